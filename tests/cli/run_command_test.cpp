// `schedhost run`, run as a process: every bad input the command can meet before the scheduler
// runs is one error line on stderr, nothing on stdout, and exit code 2.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

#include <string>
#include <vector>

#include "command_fixtures.hpp"
#include "support/fixtures.hpp"
#include "support/process.hpp"

namespace schedhost {
namespace {

using testing::FixturePluginDir;
using testing::kFixtureProfile;
using testing::kTwoNodesOnePod;
using testing::loader_fixture;
using testing::run_schedhost;
using testing::ScratchDir;
using testing::TwoBuiltIns;

struct RunInputs {
  ScratchDir files;
  FixturePluginDir plugins;
  std::string config = files.write("profile.yaml", kFixtureProfile);
  std::string cluster = files.write("cluster.yaml", kTwoNodesOnePod);

  std::vector<std::string> args(std::vector<std::string> extra = {}) const {
    std::vector<std::string> a = {"run",   "--config",     config,        "--cluster",
                                  cluster, "--plugin-dir", plugins.path()};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
};

TEST(RunCommand, ConfigIsRequired) {
  RunInputs in;
  const auto r = run_schedhost({"run", "--cluster", in.cluster});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "error: --config is required (see schedhost --help)\n");
}

TEST(RunCommand, ClusterIsRequired) {
  RunInputs in;
  const auto r = run_schedhost({"run", "--config", in.config});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: --cluster is required (see schedhost --help)\n");
}

TEST(RunCommand, AnUnknownOutputFormatIsBadInput) {
  RunInputs in;
  const auto r = run_schedhost(in.args({"-o", "xml"}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "error: --output: xml not in {table,json,yaml,html} (see schedhost --help)\n");
}

TEST(RunCommand, ANegativeSeedIsBadInput) {
  RunInputs in;
  const auto r = run_schedhost(in.args({"--seed", "-1"}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "error: --seed: \"-1\" is not a valid seed: use a whole number from 0 to "
            "18446744073709551615 (see schedhost --help)\n");
}

TEST(RunCommand, AMissingConfigFileIsOneLineNamingIt) {
  RunInputs in;
  const std::string missing = in.files.file("missing.yaml");
  const auto r = run_schedhost(
      {"run", "--config", missing, "--cluster", in.cluster, "--plugin-dir", in.plugins.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "error: " + missing +
                       ": cannot read the configuration file (No such file or directory): check "
                       "the --config path\n");
}

TEST(RunCommand, AnInvalidConfigIsOneLineWithLineAndColumn) {
  RunInputs in;
  const std::string config =
      in.files.write("bad.yaml", R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
parallelizm: 4
)");
  const auto r = run_schedhost(
      {"run", "--config", config, "--cluster", in.cluster, "--plugin-dir", in.plugins.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "error: " + config +
                       ":3:1: unknown field \"parallelizm\" in KubeSchedulerConfiguration: remove "
                       "it or fix its spelling (did you mean \"parallelism\"?)\n");
}

TEST(RunCommand, AnUnknownPluginInTheProfileIsBadInput) {
  RunInputs in;
  const std::string config =
      in.files.write("unknown.yaml", R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - plugins:
      filter:
        enabled:
          - name: GpuFilter
)");
  const auto r = run_schedhost(
      {"run", "--config", config, "--cluster", in.cluster, "--plugin-dir", in.plugins.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  // The warnings about defaults that are not installed come first; the error is the last line.
  EXPECT_THAT(r.err, ::testing::EndsWith("error: " + config +
                                         ":7:19: plugin \"GpuFilter\" is not installed "
                                         "(searched, in order: " +
                                         testing::builtin_plugin_dir() + " (built-in), " +
                                         in.plugins.path() +
                                         "): put its .so in a --plugin-dir, or remove it\n"));
}

TEST(RunCommand, ABrokenPluginLibraryIsBadInputBeforeTheConfigIsRead) {
  ScratchDir dir;
  dir.copy_in(loader_fixture("valid"), "a_valid.so");
  const std::string major = dir.copy_in(loader_fixture("abi_major_2"), "b_major.so");
  const std::string no_entry = dir.copy_in(loader_fixture("no_entry"), "c_no_entry.so");
  // Neither file exists: the plugin errors alone are reported.
  const auto r = run_schedhost({"run", "--config", dir.file("profile.yaml"), "--cluster",
                                dir.file("cluster.yaml"), "--plugin-dir", dir.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "error: " + major +
                       ": built for plugin ABI 2.0, this host has ABI 1.9: rebuild the plugin "
                       "with the 1.x SDK\n"
                       "error: " +
                       no_entry +
                       ": not a schedhost plugin: it does not export "
                       "schedhost_plugin_library_v1() (build it with schedhost_add_plugin and "
                       "SCHEDHOST_LIBRARY)\n");
}

TEST(RunCommand, AMissingPluginDirIsBadInput) {
  RunInputs in;
  const auto r = run_schedhost({"run", "--config", in.config, "--cluster", in.cluster,
                                "--plugin-dir", "/nonexistent/plugins"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "error: /nonexistent/plugins: plugin directory does not exist: create it or fix "
            "--plugin-dir\n");
}

TEST(RunCommand, AMissingClusterFileIsBadInput) {
  RunInputs in;
  const std::string missing = in.files.file("nowhere.yaml");
  const auto r = run_schedhost(
      {"run", "--config", in.config, "--cluster", missing, "--plugin-dir", in.plugins.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "error: " + missing + ": no such file or directory: check the cluster file path\n");
}

// A Node whose allocatable cpu is not a quantity: an error at line 6.
constexpr const char* kNodeWithABadQuantity = R"(apiVersion: v1
kind: Node
metadata:
  name: node-a
status:
  allocatable: {cpu: "four"}
)";

TEST(RunCommand, AnInvalidClusterFileIsOneLineWithItsPosition) {
  RunInputs in;
  const std::string cluster = in.files.write("broken.yaml", kNodeWithABadQuantity);
  const auto r = run_schedhost(
      {"run", "--config", in.config, "--cluster", cluster, "--plugin-dir", in.plugins.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, ::testing::StartsWith("error: " + cluster + ":6:"));
  EXPECT_THAT(r.err, ::testing::HasSubstr("Node \"node-a\""));
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
}

// run reads the cluster files while the plugins load, and makes the objects afterwards: the
// errors still come as one pass would find them.
TEST(RunCommand, AConfigErrorComesBeforeAClusterReadWhileThePluginsLoaded) {
  RunInputs in;
  const std::string config = in.files.write("bad.yaml", "kind: [\n");
  const std::string cluster = in.files.write("broken.yaml", "apiVersion: v1\nkind: [Node\n");
  const auto r = run_schedhost(
      {"run", "--config", config, "--cluster", cluster, "--plugin-dir", in.plugins.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, ::testing::StartsWith("error: " + config + ":"));
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
}

TEST(RunCommand, AnObjectErrorInOneFileComesBeforeASyntaxErrorInALaterOne) {
  RunInputs in;
  std::filesystem::create_directories(in.files.file("objects"));
  const std::string a = in.files.write("objects/a.yaml", kNodeWithABadQuantity);
  in.files.write("objects/b.yaml", "apiVersion: v1\nkind: [Node\n");
  const auto r = run_schedhost({"run", "--config", in.config, "--cluster", in.files.file("objects"),
                                "--plugin-dir", in.plugins.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, ::testing::StartsWith("error: " + a + ":6:"));
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
}

TEST(RunCommand, ResolutionWarningsArePrintedBeforeLaterErrors) {
  RunInputs in;
  // No plugins block: the upstream defaults apply, and only two are installed here.
  const TwoBuiltIns builtins;
  const std::string config =
      in.files.write("defaults.yaml", R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
)");
  const auto r = run_schedhost({"run", "--config", config, "--cluster", in.files.file("none.yaml"),
                                "--plugin-dir", in.plugins.path()},
                               builtins.env());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, ::testing::StartsWith("warning: " + config +
                                           ": profile \"default-scheduler\": 17 default plugins "
                                           "are not installed"));
  EXPECT_THAT(r.err, ::testing::EndsWith("error: " + in.files.file("none.yaml") +
                                         ": no such file or directory: check the cluster file "
                                         "path\n"));
}

// With the scheduler: a completed run exits 0 whatever it decided, and prints the result.

constexpr const char* kGpuFilterProfile = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: default-scheduler
    plugins:
      multiPoint:
        disabled:
          - name: '*'
        enabled:
          - name: PrioritySort
          - name: DefaultBinder
      filter:
        enabled:
          - name: Scripted
    pluginConfig:
      - name: Scripted
        args:
          code: Unschedulable
          reasons: ["node(s) had no GPU"]
)";

constexpr const char* kUnservedPod = R"(---
apiVersion: v1
kind: Pod
metadata:
  name: gang-1
  namespace: batch
spec:
  schedulerName: gang-scheduler
  containers:
    - name: worker
      image: busybox
)";

TEST(RunCommand, SchedulesEveryPendingPodAndExitsZero) {
  RunInputs in;
  const auto r = run_schedhost(in.args({"-o", "json"}));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const auto json = nlohmann::json::parse(r.out);
  ASSERT_EQ(json["pods"].size(), 1u);
  const auto& pod = json["pods"][0];
  EXPECT_EQ(pod["pod"], "default/web-1");
  EXPECT_EQ(pod["profile"], "default-scheduler");
  EXPECT_EQ(pod["result"], "Scheduled");
  EXPECT_THAT(pod["node"].get<std::string>(), ::testing::AnyOf("node-a", "node-b"));
  EXPECT_EQ(pod["message"], "");
  EXPECT_FALSE(pod.contains("explain"));
  EXPECT_EQ(json["summary"],
            nlohmann::json::parse(
                R"({"scheduled":1,"unschedulable":0,"skipped":0,"errors":0,"preempted":0})"));
}

TEST(RunCommand, TheSameSeedGivesTheSameRun) {
  RunInputs in;
  const auto first = run_schedhost(in.args({"-o", "json", "--seed", "7"}));
  const auto second = run_schedhost(in.args({"-o", "json", "--seed", "7"}));
  EXPECT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.out, second.out);
  // No --seed is --seed 0.
  EXPECT_EQ(run_schedhost(in.args({"-o", "json"})).out,
            run_schedhost(in.args({"-o", "json", "--seed", "0"})).out);
}

TEST(RunCommand, ExplainShowsEveryNodeInSnapshotOrderWithItsScores) {
  RunInputs in;
  const auto r = run_schedhost(in.args({"-o", "json", "--explain"}));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto json = nlohmann::ordered_json::parse(r.out);
  // FixtureScore answers 11 on every node (library id 1 * 10 + one init); its weight is 2.
  EXPECT_EQ(json["pods"][0]["explain"].dump(),
            R"({"nodes":{"node-a":{"filter":{"code":"Success"},"scores":{"FixtureScore":11},)"
            R"("total":22},"node-b":{"filter":{"code":"Success"},"scores":{"FixtureScore":11},)"
            R"("total":22}}})");
}

TEST(RunCommand, UnschedulableAndSkippedPodsAreResultsNotFailures) {
  RunInputs in;
  in.plugins.copy_in(testing::wrapper_fixture(), "wrapper.so");
  const std::string config = in.files.write("gpu.yaml", kGpuFilterProfile);
  const std::string cluster =
      in.files.write("pods.yaml", std::string(kTwoNodesOnePod) + kUnservedPod);
  const auto r = run_schedhost({"run", "--config", config, "--cluster", cluster, "--plugin-dir",
                                in.plugins.path(), "--explain"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out,
            "POD            PROFILE            RESULT         NODE    MESSAGE\n"
            "batch/gang-1   <none>             Skipped        <none>  no profile serves "
            "schedulerName \"gang-scheduler\"\n"
            "default/web-1  default-scheduler  Unschedulable  <none>  0/2 nodes are available: 2 "
            "node(s) had no GPU.\n"
            "    NODE    FILTER         REASON\n"
            "    node-a  Unschedulable  Scripted: node(s) had no GPU\n"
            "    node-b  Unschedulable  Scripted: node(s) had no GPU\n"
            "\n"
            "scheduled: 0, unschedulable: 1, skipped: 1, errors: 0, preempted: 0\n");
}

TEST(RunCommand, YamlIsTheJsonDocument) {
  RunInputs in;
  const auto json = run_schedhost(in.args({"-o", "json", "--explain"}));
  const auto yaml = run_schedhost(in.args({"-o", "yaml", "--explain"}));
  EXPECT_EQ(yaml.exit_code, 0) << yaml.err;
  const YAML::Node doc = YAML::Load(yaml.out);
  EXPECT_EQ(doc["pods"][0]["pod"].as<std::string>(), "default/web-1");
  EXPECT_EQ(doc["pods"][0]["node"].as<std::string>(),
            nlohmann::json::parse(json.out)["pods"][0]["node"].get<std::string>());
  EXPECT_EQ(doc["pods"][0]["explain"]["nodes"]["node-b"]["total"].as<int>(), 22);
  EXPECT_EQ(doc["summary"]["scheduled"].as<int>(), 1);
}

// What counts for nothing is said, never dropped: an unmodelled kind and a pod bound to a node
// the file lacks are one warning line each; the run goes on.
TEST(RunCommand, ObjectsThatCountForNothingAreWarnedAbout) {
  RunInputs in;
  const std::string cluster = in.files.write(
      "extra.yaml", std::string(kTwoNodesOnePod) +
                        "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: web, namespace: "
                        "default}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: orphan, "
                        "namespace: default}\nspec: {nodeName: gone, containers: [{name: c, "
                        "image: x}]}\n");
  std::vector<std::string> args = in.args({"-o", "json"});
  args[4] = cluster;
  const auto r = run_schedhost(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("error"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("warning: " + cluster + ":"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(": ConfigMap \"default/web\" is not modelled by schedhost and counted for "
                       "nothing: no scheduling plugin reads this kind"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(": Pod \"default/orphan\" is bound to node \"gone\", which is not in the "
                       "cluster: it counts on no node"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 2) << r.err;
  // The orphan is not pending: only the file's pending pod is in the output.
  EXPECT_EQ(nlohmann::json::parse(r.out)["pods"].size(), 1u) << r.out;
}

TEST(RunCommand, BadFeatureGatesAreOneLineEach) {
  RunInputs in;
  const auto unknown =
      run_schedhost(in.args({"--feature-gates", "OpportunisticBatching=true,Nope=true"}));
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.out, "");
  EXPECT_EQ(unknown.err,
            "error: --feature-gates: unknown feature gate \"Nope\": this host knows "
            "CSIMigrationPortworx, DynamicResourceAllocation, InPlacePodVerticalScaling, "
            "MatchLabelKeysInPodTopologySpread, NodeInclusionPolicyInPodTopologySpread, "
            "NominatedNodeNameForExpectation, OpportunisticBatching, PodLevelResources, "
            "PodSchedulingReadiness, SchedulerAsyncPreemption, SchedulerPopFromBackoffQ, "
            "SidecarContainers, StorageCapacityScoring, TaintTolerationComparisonOperators, "
            "VolumeAttributesClass, VolumeLimitScaling\n");
  // A gate upstream locked (GA) keeps its value, as kube-scheduler refuses to change it.
  const auto locked = run_schedhost(in.args({"--feature-gates", "SidecarContainers=false"}));
  EXPECT_EQ(locked.exit_code, 2);
  EXPECT_EQ(locked.err,
            "error: --feature-gates: SidecarContainers=false: SidecarContainers is GA in "
            "kube-scheduler v1.35 and locked to true: remove it from --feature-gates\n");
  EXPECT_EQ(run_schedhost(in.args({"--feature-gates", "SidecarContainers=true"})).exit_code, 0);
  EXPECT_EQ(run_schedhost(in.args({"--feature-gates", "MatchLabelKeysInPodTopologySpread=false"}))
                .exit_code,
            0);
  const auto value = run_schedhost(in.args({"--feature-gates", "OpportunisticBatching=maybe"}));
  EXPECT_EQ(value.exit_code, 2);
  EXPECT_EQ(value.err,
            "error: --feature-gates: OpportunisticBatching=maybe: the value must be true or "
            "false\n");
  const auto bare = run_schedhost(in.args({"--feature-gates", "OpportunisticBatching"}));
  EXPECT_EQ(bare.exit_code, 2);
  EXPECT_EQ(bare.err,
            "error: --feature-gates: \"OpportunisticBatching\" is not Name=true or Name=false: "
            "write it as OpportunisticBatching=true\n");
}

// Four nodes of 8, 7, 6 and 5 CPUs and three pods that fill any of them: the second and third
// take the first one's ranking (configs/batching-profile.yaml allows batching).
std::string three_filling_pods() {
  std::string text;
  for (const auto& [node, cpu] :
       {std::pair{"node-a", "8"}, {"node-b", "7"}, {"node-c", "6"}, {"node-d", "5"}}) {
    text += std::string("apiVersion: v1\nkind: Node\nmetadata: {name: ") + node +
            "}\nstatus: {allocatable: {cpu: '" + cpu + "', memory: 8Gi, pods: '110'}}\n---\n";
  }
  for (const char* pod : {"p1", "p2", "p3"}) {
    text += std::string("apiVersion: v1\nkind: Pod\nmetadata: {name: ") + pod +
            ", namespace: default}\nspec: {containers: [{name: c, image: busybox, resources: "
            "{requests: {cpu: 4500m}}}]}\n---\n";
  }
  return text;
}

TEST(RunCommand, ExplainSaysWhenADecisionReusedAnEarlierRanking) {
  ScratchDir files;
  const std::string config = std::string(SCHEDHOST_SOURCE_DIR) + "/configs/batching-profile.yaml";
  const std::string cluster = files.write("cluster.yaml", three_filling_pods());
  const auto json_run =
      run_schedhost({"run", "--config", config, "--cluster", cluster, "--explain", "-o", "json"});
  ASSERT_EQ(json_run.exit_code, 0) << json_run.err;
  const auto out = nlohmann::json::parse(json_run.out);
  EXPECT_FALSE(out["pods"][0]["explain"].contains("reused"));
  EXPECT_EQ(out["pods"][1]["node"], "node-b");
  EXPECT_EQ(out["pods"][1]["explain"]["reused"],
            nlohmann::json::parse(R"({"rankedBy": "default/p1", "nodesLeft": 2})"));
  EXPECT_EQ(out["pods"][2]["node"], "node-c");
  EXPECT_EQ(out["pods"][2]["explain"]["reused"]["nodesLeft"], 1);

  const auto table = run_schedhost({"run", "--config", config, "--cluster", cluster, "--explain"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("default/p2  default-scheduler  Scheduled  node-b\n"
                           "    reused the ranking of default/p1 (opportunistic batching; 2 nodes "
                           "of it left)\n"),
            std::string::npos)
      << table.out;

  // The gate off: every pod scored, the same nodes.
  const auto off = run_schedhost({"run", "--config", config, "--cluster", cluster, "--explain",
                                  "-o", "json", "--feature-gates", "OpportunisticBatching=false"});
  ASSERT_EQ(off.exit_code, 0) << off.err;
  const auto scored = nlohmann::json::parse(off.out);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(scored["pods"][i]["node"], out["pods"][i]["node"]);
    EXPECT_FALSE(scored["pods"][i]["explain"].contains("reused"));
  }
}

TEST(RunCommand, APluginThatRefusesItsArgsIsBadInput) {
  RunInputs in;
  in.plugins.copy_in(testing::wrapper_fixture(), "wrapper.so");
  std::string profile = kGpuFilterProfile;
  profile += R"(      - name: NoArgs
        args: {x: 1}
)";
  profile.replace(profile.find("          - name: Scripted"), 26,
                  "          - name: Scripted\n          - name: NoArgs");
  const std::string config = in.files.write("args.yaml", profile);
  const auto r = run_schedhost(
      {"run", "--config", config, "--cluster", in.cluster, "--plugin-dir", in.plugins.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, ::testing::StartsWith("error: "));
  EXPECT_THAT(r.err, ::testing::EndsWith("plugin \"NoArgs\": this plugin takes no args\n"));
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
}

}  // namespace
}  // namespace schedhost
