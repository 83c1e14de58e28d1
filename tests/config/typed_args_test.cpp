// Issue 15, item 6: upstream-style typed args. `apiVersion` and `kind` inside pluginConfig[].args
// are checked (kind must be "<PluginName>Args", apiVersion a kubescheduler.config.k8s.io version)
// and removed before any plugin sees its args, for every plugin, as kube-scheduler's decoder does.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "common/typed_args.hpp"
#include "config/config_parser.hpp"
#include "config_test_support.hpp"

namespace schedhost::config::typed_args_test {

using testing::input_error_of;

// A profile with one pluginConfig entry; its args' fields start on line 8, column 9.
std::string with_args(const std::string& plugin, const std::string& args_lines) {
  return "apiVersion: kubescheduler.config.k8s.io/v1\n"
         "kind: KubeSchedulerConfiguration\n"
         "profiles:\n"
         "  - schedulerName: default-scheduler\n"
         "    pluginConfig:\n"
         "      - name: " +
         plugin +
         "\n"
         "        args:\n" +
         args_lines;
}

SchedulerConfiguration parse(const std::string& text) {
  return parse_configuration(text, "profile.yaml");
}

std::string parse_error(const std::string& text) {
  return input_error_of([&] { parse(text); });
}

TEST(TypedArgs, ApiVersionAndKindAreRemovedBeforeThePluginSeesItsArgs) {
  const auto c = parse(with_args("NodeResourcesFit",
                                 "          apiVersion: kubescheduler.config.k8s.io/v1\n"
                                 "          kind: NodeResourcesFitArgs\n"
                                 "          ignoredResources: [example.com/foo]\n"));
  EXPECT_EQ(c.profiles.at(0).args_for("NodeResourcesFit"),
            nlohmann::json::parse(R"({"ignoredResources": ["example.com/foo"]})"));
}

TEST(TypedArgs, AThirdPartyPluginIsTreatedTheSame) {
  const auto c = parse(with_args("GpuFilter",
                                 "          apiVersion: kubescheduler.config.k8s.io/v1beta3\n"
                                 "          kind: GpuFilterArgs\n"));
  EXPECT_EQ(c.profiles.at(0).args_for("GpuFilter"), nlohmann::json::object());
}

TEST(TypedArgs, EitherMayComeAlone) {
  EXPECT_EQ(parse(with_args("GpuFilter", "          kind: GpuFilterArgs\n          keep: 1\n"))
                .profiles.at(0)
                .args_for("GpuFilter"),
            nlohmann::json::parse(R"({"keep": 1})"));
  EXPECT_EQ(parse(with_args("GpuFilter", "          apiVersion: kubescheduler.config.k8s.io/v1\n"))
                .profiles.at(0)
                .args_for("GpuFilter"),
            nlohmann::json::object());
}

TEST(TypedArgs, OnlyTheTopLevelFieldsAreTheirs) {
  // A field named kind deeper down belongs to the plugin.
  const auto c = parse(with_args("GpuFilter", "          selector: {kind: gpu}\n"));
  EXPECT_EQ(c.profiles.at(0).args_for("GpuFilter"),
            nlohmann::json::parse(R"({"selector": {"kind": "gpu"}})"));
}

TEST(TypedArgs, AKindOfAnotherPluginIsAnErrorAtItsPosition) {
  EXPECT_EQ(parse_error(with_args("NodeResourcesFit", "          kind: NodeResourceFitArgs\n")),
            "profile.yaml:8:17: args of plugin \"NodeResourcesFit\": kind "
            "\"NodeResourceFitArgs\" does not match plugin \"NodeResourcesFit\", whose args are "
            "NodeResourcesFitArgs: write kind: NodeResourcesFitArgs, or leave kind out");
  EXPECT_EQ(parse_error(with_args("GpuFilter", "          kind: NodeResourcesFitArgs\n")),
            "profile.yaml:8:17: args of plugin \"GpuFilter\": kind \"NodeResourcesFitArgs\" does "
            "not match plugin \"GpuFilter\", whose args are GpuFilterArgs: write kind: "
            "GpuFilterArgs, or leave kind out");
}

TEST(TypedArgs, AKindThatIsNotAStringIsAnError) {
  EXPECT_EQ(parse_error(with_args("GpuFilter", "          kind: [GpuFilterArgs]\n")),
            "profile.yaml:8:17: args of plugin \"GpuFilter\": kind [\"GpuFilterArgs\"] does not "
            "match plugin \"GpuFilter\", whose args are GpuFilterArgs: write kind: GpuFilterArgs, "
            "or leave kind out");
}

TEST(TypedArgs, AnApiVersionOfAnotherGroupIsAnError) {
  EXPECT_EQ(parse_error(with_args("GpuFilter", "          apiVersion: example.com/v1\n")),
            "profile.yaml:8:23: args of plugin \"GpuFilter\": apiVersion \"example.com/v1\" is not "
            "kubescheduler.config.k8s.io/v1 or kubescheduler.config.k8s.io/v1beta3: write "
            "apiVersion: kubescheduler.config.k8s.io/v1, or leave apiVersion out");
}

TEST(TypedArgs, ArgsAsTextAreCheckedAndStrippedTheSameWay) {
  EXPECT_EQ(typed_args_text(
                R"({"kind":"XArgs","apiVersion":"kubescheduler.config.k8s.io/v1","a":1})", "X"),
            R"({"a":1})");
  // Untouched when there is nothing to remove, or nothing the host can read.
  EXPECT_EQ(typed_args_text(R"({"b": 2})", "X"), R"({"b": 2})");
  EXPECT_EQ(typed_args_text("not json", "X"), "not json");
  EXPECT_EQ(typed_args_text("[1]", "X"), "[1]");
  EXPECT_EQ(input_error_of([] { typed_args_text(R"({"kind":"YArgs"})", "X"); }),
            "plugin \"X\": args: kind \"YArgs\" does not match plugin \"X\", whose args are XArgs: "
            "write kind: XArgs, or leave kind out");
}

}  // namespace schedhost::config::typed_args_test
