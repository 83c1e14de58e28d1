// `schedhost plugins` and `schedhost version`, run as processes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "support/fixtures.hpp"
#include "support/process.hpp"

namespace schedhost {
namespace {

using testing::loader_fixture;
using testing::run_schedhost;
using testing::ScratchDir;

// The example plugins are not built-ins: they take no name in the built-in directory and are
// listed from their own directory, which configs/ and `make run` name with --plugin-dir.
TEST(PluginsCommand, TheExamplesLiveInTheirOwnDirectory) {
  const auto r =
      run_schedhost({"plugins", "--plugin-dir", testing::example_plugin_dir(), "-o", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, std::string> where;  // plugin name -> "builtin" or "examples"
  const nlohmann::json listing = nlohmann::json::parse(r.out);
  for (const auto& p : listing["plugins"]) {
    const std::string file = p["file"];
    where[p["name"]] = file.rfind(testing::builtin_plugin_dir() + "/", 0) == 0   ? "builtin"
                       : file.rfind(testing::example_plugin_dir() + "/", 0) == 0 ? "examples"
                                                                                 : file;
  }
  EXPECT_EQ(where["NodeName"], "builtin");
  for (const char* example : {"SamplePlugin", "ExampleFilter", "Coscheduling", "LoadAware"})
    EXPECT_EQ(where[example], "examples") << example;
}

TEST(PluginsCommand, ListsTheBuiltInPluginsWithTheirExtensionPoints) {
  ScratchDir empty;  // as a --plugin-dir: only the built-ins remain
  const auto r = run_schedhost({"plugins", "--plugin-dir", empty.path(), "-o", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const auto json = nlohmann::json::parse(r.out);
  const std::string dir = testing::builtin_plugin_dir();
  EXPECT_EQ(json["failed"], nlohmann::json::array());
  std::map<std::string, std::vector<std::string>> points;
  for (const auto& p : json["plugins"]) {
    points[p["name"]] = p["extensionPoints"].get<std::vector<std::string>>();
    EXPECT_EQ(p["abi"], "1.9") << p["name"];
    EXPECT_EQ(p["file"].get<std::string>().rfind(dir + "/", 0), 0u) << p["name"];
  }
  using Points = std::vector<std::string>;
  EXPECT_EQ(
      points,
      (std::map<std::string, Points>{
          {"DefaultBinder", Points{"Bind"}},
          {"DefaultPreemption", Points{"PostFilter"}},
          {"DynamicResources", Points{"PreFilter", "PostFilter"}},
          {"ImageLocality", Points{"Score"}},
          {"InterPodAffinity", Points{"PreFilter", "PreFilterExtensions", "Filter", "PreScore",
                                      "Score", "NormalizeScore"}},
          {"NodeAffinity", Points{"PreFilter", "Filter", "PreScore", "Score", "NormalizeScore"}},
          {"NodeName", Points{"Filter"}},
          {"NodePorts", Points{"PreFilter", "Filter"}},
          {"NodeResourcesBalancedAllocation", Points{"PreScore", "Score"}},
          {"NodeResourcesFit", Points{"PreFilter", "Filter", "PreScore", "Score"}},
          {"NodeUnschedulable", Points{"Filter"}},
          {"NodeVolumeLimits", Points{"PreFilter", "Filter"}},
          {"PodTopologySpread", Points{"PreFilter", "PreFilterExtensions", "Filter", "PreScore",
                                       "Score", "NormalizeScore"}},
          {"PrioritySort", Points{"QueueSort"}},
          {"SchedulingGates", Points{"PreEnqueue"}},
          {"TaintToleration", Points{"Filter", "PreScore", "Score", "NormalizeScore"}},
          {"VolumeBinding",
           Points{"PreFilter", "Filter", "PreScore", "Score", "Reserve", "Unreserve", "PreBind"}},
          {"VolumeRestrictions", Points{"PreFilter", "PreFilterExtensions", "Filter"}},
          {"VolumeZone", Points{"PreFilter", "Filter"}},
      }));
  // One entry in full.
  EXPECT_EQ(json["plugins"][0], nlohmann::json::parse(R"(
    {"name": "DefaultBinder", "description": "Binds the pod to the selected node",
     "file": ")" + dir + R"(/default_binder.so", "library": "default-binder", "version": "1.0.0",
     "abi": "1.9", "extensionPoints": ["Bind"]})"));
}

TEST(PluginsCommand, TableShowsOneRowPerPlugin) {
  ScratchDir dir;
  dir.copy_in(loader_fixture("valid"), "valid.so");
  testing::TwoBuiltIns builtins;
  const auto r = run_schedhost({"plugins", "--plugin-dir", dir.path()}, builtins.env());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string b = builtins.path();
  EXPECT_EQ(r.out,
            "NAME           EXTENSION POINTS  LIBRARY         VERSION  ABI  FILE\n"
            "DefaultBinder  Bind              default-binder  1.0.0    1.9  " +
                b +
                "/default_binder.so\n"
                "PrioritySort   QueueSort         priority-sort   1.0.0    1.9  " +
                b +
                "/priority_sort.so\n"
                "FixtureFilter  Filter,Score      fixture         0.0.1    1.9  " +
                dir.file("valid.so") +
                "\n"
                "FixtureScore   Filter,Score      fixture         0.0.1    1.9  " +
                dir.file("valid.so") + "\n");
}

TEST(PluginsCommand, AFailedLibraryIsListedWithItsErrorAndExitsTwo) {
  ScratchDir dir;
  dir.copy_in(loader_fixture("valid"), "a_valid.so");
  const std::string bad_name = dir.copy_in(loader_fixture("bad_name"), "b_bad_name.so");
  const std::string major = dir.copy_in(loader_fixture("abi_major_2"), "c_major.so");
  testing::TwoBuiltIns builtins;
  const auto r =
      run_schedhost({"plugins", "--plugin-dir", dir.path(), "-o", "json"}, builtins.env());
  EXPECT_EQ(r.exit_code, 2);
  const auto json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["plugins"].size(), 4u);
  EXPECT_EQ(
      json["failed"],
      nlohmann::json::parse(
          R"([
    {"file": ")" +
          bad_name +
          R"(", "error": "plugin \"Sample_Plugin\" is not a valid name: must match ^[a-zA-Z][a-zA-Z0-9]*$"},
    {"file": ")" +
          major +
          R"(", "error": "built for plugin ABI 2.0, this host has ABI 1.9: rebuild the plugin with the 1.x SDK"}])"));
  EXPECT_EQ(r.err, "error: " + bad_name +
                       ": plugin \"Sample_Plugin\" is not a valid name: must match "
                       "^[a-zA-Z][a-zA-Z0-9]*$\n"
                       "error: " +
                       major +
                       ": built for plugin ABI 2.0, this host has ABI 1.9: rebuild the plugin "
                       "with the 1.x SDK\n");
}

TEST(PluginsCommand, AMissingPluginDirIsBadInput) {
  const auto r = run_schedhost({"plugins", "--plugin-dir", "/nonexistent/plugins"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "error: /nonexistent/plugins: plugin directory does not exist: create it or fix "
            "--plugin-dir\n");
}

TEST(PluginsCommand, AnUnknownFlagIsBadInput) {
  const auto r = run_schedhost({"plugins", "--frobnicate"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(
      r.err,
      "error: The following argument was not expected: --frobnicate (see schedhost --help)\n");
}

TEST(VersionCommand, PrintsTheVersionAndTheAbi) {
  const auto r = run_schedhost({"version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, std::string("schedhost ") + SCHEDHOST_VERSION + " (plugin ABI 1.9)\n");
}

}  // namespace
}  // namespace schedhost

namespace schedhost {
namespace {

// Every broken fixture library, dropped alone into a plugin directory: `schedhost plugins` exits
// 2 and prints exactly one error line naming the file (the messages are checked in loader_tests).
class BrokenLibrary : public ::testing::TestWithParam<const char*> {};

TEST_P(BrokenLibrary, IsRefusedWithOneLineAndExitCodeTwo) {
  ScratchDir dir;
  const std::string path = dir.copy_in(loader_fixture(GetParam()), std::string(GetParam()) + ".so");
  testing::TwoBuiltIns builtins;
  const auto r = run_schedhost({"plugins", "--plugin-dir", dir.path()}, builtins.env());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("error: " + path + ": ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.back(), '\n');
}

INSTANTIATE_TEST_SUITE_P(EachCheck, BrokenLibrary,
                         ::testing::Values("missing_dependency", "no_entry", "returns_null",
                                           "bad_magic", "abi_major_2", "needs_newer_minor",
                                           "small_library", "small_vtable", "init_refused",
                                           "zero_plugins", "bad_name", "duplicate_in_file",
                                           "no_extension_point", "normalize_without_score",
                                           "unreserve_without_reserve"));

}  // namespace
}  // namespace schedhost
