// Issue 15, item 6, as the user sees it: apiVersion and kind in pluginConfig args (or in --args)
// are checked and removed by the host for every plugin, built-in or third-party, so a plugin that
// takes no args accepts `kind: <Name>Args` alone, and a wrong kind is one error line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli/command_fixtures.hpp"
#include "support/fixtures.hpp"
#include "support/process.hpp"

namespace schedhost::typed_args_command_test {

using testing::ProcessResult;
using testing::run_schedhost;
using testing::ScratchDir;
using testing::TwoBuiltIns;

// NoArgs (wrapper fixture) refuses any args but {}; its args' kind is on line 22, column 17.
std::string profile(const std::string& plugin, const std::string& kind) {
  return R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: default-scheduler
    plugins:
      multiPoint:
        disabled:
          - name: '*'
      queueSort:
        enabled:
          - name: PrioritySort
      filter:
        enabled:
          - name: )" +
         plugin + R"(
      bind:
        enabled:
          - name: DefaultBinder
    pluginConfig:
      - name: )" +
         plugin + R"(
        args:
          apiVersion: kubescheduler.config.k8s.io/v1
          kind: )" +
         kind + "\n";
}

struct Inputs {
  ScratchDir files;
  ScratchDir plugins;
  TwoBuiltIns builtins;
  std::string cluster = files.write("cluster.yaml", testing::kTwoNodesOnePod);
  Inputs() { plugins.copy_in(testing::wrapper_fixture(), "wrapper_fixture.so"); }
};

TEST(TypedArgsCommand, APluginThatTakesNoArgsAcceptsItsKind) {
  const Inputs in;
  const std::string config = in.files.write("profile.yaml", profile("NoArgs", "NoArgsArgs"));
  for (const std::string command : {"validate", "run"}) {
    std::vector<std::string> args = {command, "--config", config, "--plugin-dir",
                                     in.plugins.path()};
    if (command == "run") args.insert(args.end(), {"--cluster", in.cluster});
    const ProcessResult r = run_schedhost(args, in.builtins.env());
    EXPECT_EQ(r.exit_code, 0) << command << ": " << r.err;
    EXPECT_EQ(r.err, "") << command;
  }
}

TEST(TypedArgsCommand, AWrongKindIsOneErrorLineWithItsPosition) {
  const Inputs in;
  const std::string config = in.files.write("profile.yaml", profile("NoArgs", "NoArgArgs"));
  const ProcessResult r = run_schedhost(
      {"validate", "--config", config, "--plugin-dir", in.plugins.path()}, in.builtins.env());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "error: " + config +
                       ":22:17: args of plugin \"NoArgs\": kind \"NoArgArgs\" does not match "
                       "plugin \"NoArgs\", whose args are NoArgsArgs: write kind: NoArgsArgs, or "
                       "leave kind out\n");
}

TEST(TypedArgsCommand, BuiltInDefaultsAreCheckedTheSame) {
  ScratchDir files;
  // Upstream's defaults, with typed args for one of them: fine; the kind of another: refused.
  const std::string header =
      "apiVersion: kubescheduler.config.k8s.io/v1\n"
      "kind: KubeSchedulerConfiguration\n"
      "profiles:\n"
      "  - pluginConfig:\n"
      "      - name: NodeResourcesFit\n"
      "        args:\n"
      "          apiVersion: kubescheduler.config.k8s.io/v1\n";
  const std::string good = files.write(
      "good.yaml", header +
                       "          kind: NodeResourcesFitArgs\n          ignoredResources: "
                       "[example.com/foo]\n");
  ProcessResult r = run_schedhost({"validate", "--config", good, "--plugin-dir", files.path()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string bad =
      files.write("bad.yaml", header + "          kind: NodeResourcesBalancedAllocationArgs\n");
  r = run_schedhost({"validate", "--config", bad, "--plugin-dir", files.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + bad +
                       ":8:17: args of plugin \"NodeResourcesFit\": kind "
                       "\"NodeResourcesBalancedAllocationArgs\" does not match plugin "
                       "\"NodeResourcesFit\", whose args are NodeResourcesFitArgs: write kind: "
                       "NodeResourcesFitArgs, or leave kind out\n");
}

TEST(TypedArgsCommand, ExerciseArgsLoseTheirTypeFieldsToo) {
  const Inputs in;
  const std::string pod = in.files.write("pod.yaml", R"(apiVersion: v1
kind: Pod
metadata:
  name: p
  namespace: default
spec:
  containers:
    - name: c
      image: busybox
)");
  const ProcessResult r = run_schedhost(
      {"exercise", "--plugin", "ArgsEcho", "--pod", pod, "--cluster", in.cluster, "--plugin-dir",
       in.plugins.path(), "--args",
       R"({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "ArgsEchoArgs", "x": 1})"},
      in.builtins.env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["filter"]["node-a"]["reasons"], nlohmann::json::parse(R"(["{\"x\":1}"])"));

  const ProcessResult bad =
      run_schedhost({"exercise", "--plugin", "ArgsEcho", "--pod", pod, "--cluster", in.cluster,
                     "--plugin-dir", in.plugins.path(), "--args", R"({"kind": "Echo"})"},
                    in.builtins.env());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err,
            "error: plugin \"ArgsEcho\": args: kind \"Echo\" does not match plugin \"ArgsEcho\", "
            "whose args are ArgsEchoArgs: write kind: ArgsEchoArgs, or leave kind out\n");
}

}  // namespace schedhost::typed_args_command_test
