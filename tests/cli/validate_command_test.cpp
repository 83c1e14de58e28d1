// `schedhost validate`, run as a process: a summary line per valid profile, and the same one-line
// errors as `run` for everything wrong with the plugins, the profile, the plugin args and the
// cluster file.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
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

constexpr const char* kDefaults =
    "defaults: kube-scheduler v1.35 (kubescheduler.config.k8s.io/v1)\n";
constexpr const char* kFixtureSummary =
    "defaults: kube-scheduler v1.35 (kubescheduler.config.k8s.io/v1)\n"
    "profile \"default-scheduler\": queueSort: PrioritySort; filter: FixtureFilter; score: "
    "FixtureScore (weight 2); bind: DefaultBinder\n";

TEST(ValidateCommand, AValidProfileIsSummarizedAndExitsZero) {
  ScratchDir files;
  FixturePluginDir plugins;
  const std::string config = files.write("profile.yaml", kFixtureProfile);
  const auto r = run_schedhost({"validate", "--config", config, "--plugin-dir", plugins.path()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, kFixtureSummary);
}

TEST(ValidateCommand, MultiPointPluginsAppearAtEveryPointTheyImplement) {
  ScratchDir files;
  FixturePluginDir plugins;
  const std::string config =
      files.write("profile.yaml", R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: default-scheduler
    plugins:
      multiPoint:
        disabled:
          - name: '*'
        enabled:
          - name: PrioritySort
          - name: FixtureFilter
          - name: FixtureScore
            weight: 3
          - name: DefaultBinder
  - schedulerName: filter-only
    plugins:
      multiPoint:
        disabled:
          - name: '*'
        enabled:
          - name: PrioritySort
          - name: DefaultBinder
      filter:
        enabled:
          - name: FixtureScore
)");
  const auto r = run_schedhost({"validate", "--config", config, "--plugin-dir", plugins.path()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out,
            std::string(kDefaults) +
                "profile \"default-scheduler\": queueSort: PrioritySort; filter: FixtureFilter, "
                "FixtureScore; score: FixtureFilter (weight 1), FixtureScore (weight 3); bind: "
                "DefaultBinder\n"
                "profile \"filter-only\": queueSort: PrioritySort; filter: FixtureScore; bind: "
                "DefaultBinder\n");
}

// A v1beta3 file (kube-scheduler reads only v1 since v1.29) is read as v1, with one warning.
TEST(ValidateCommand, AV1beta3FileIsValidWithOneDeprecationWarning) {
  ScratchDir files;
  ScratchDir no_plugins;
  testing::TwoBuiltIns builtins;
  const std::string config = files.write(
      "old.yaml",
      "kind: KubeSchedulerConfiguration\napiVersion: kubescheduler.config.k8s.io/v1beta3\n"
      "profiles:\n- plugins:\n    multiPoint:\n      disabled: [{name: '*'}]\n"
      "      enabled: [{name: PrioritySort}, {name: DefaultBinder}]\n");
  const auto r = run_schedhost({"validate", "--config", config, "--plugin-dir", no_plugins.path()},
                               builtins.env());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            std::string(kDefaults) +
                "profile \"default-scheduler\": queueSort: PrioritySort; bind: DefaultBinder\n");
  EXPECT_EQ(r.err, "warning: " + config +
                       ":2:13: apiVersion kubescheduler.config.k8s.io/v1beta3 is deprecated "
                       "(kube-scheduler reads only kubescheduler.config.k8s.io/v1 since v1.29): "
                       "schedhost reads it as kubescheduler.config.k8s.io/v1, whose defaults are "
                       "the same (v1 also lets a profile set percentageOfNodesToScore); change "
                       "the apiVersion to kubescheduler.config.k8s.io/v1\n");
}

TEST(ValidateCommand, TheUpstreamDefaultsResolveWithOneWarningNamingTheMissingPlugins) {
  ScratchDir files;
  ScratchDir no_plugins;
  testing::TwoBuiltIns builtins;  // only PrioritySort and DefaultBinder are installed
  const std::string config =
      files.write("defaults.yaml", R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
)");
  const auto r = run_schedhost({"validate", "--config", config, "--plugin-dir", no_plugins.path()},
                               builtins.env());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            std::string(kDefaults) +
                "profile \"default-scheduler\": queueSort: PrioritySort; bind: DefaultBinder\n");
  EXPECT_EQ(r.err,
            "warning: " + config +
                ": profile \"default-scheduler\": 17 default plugins are not installed "
                "(searched, in order: " +
                builtins.path() + " (built-in), " + no_plugins.path() +
                "), so they are skipped: \"SchedulingGates\", \"NodeUnschedulable\", \"NodeName\", "
                "\"TaintToleration\", "
                "\"NodeAffinity\", \"NodePorts\", \"NodeResourcesFit\", \"VolumeRestrictions\", "
                "\"NodeVolumeLimits\", \"VolumeBinding\", \"VolumeZone\", \"PodTopologySpread\", "
                "\"InterPodAffinity\", \"DynamicResources\", \"DefaultPreemption\", "
                "\"NodeResourcesBalancedAllocation\", "
                "\"ImageLocality\": put their .so files in a --plugin-dir, or "
                "disable them in multiPoint\n");
}

TEST(ValidateCommand, AnUnusedPluginConfigIsAWarning) {
  ScratchDir files;
  FixturePluginDir plugins;
  const std::string config =
      files.write("profile.yaml", std::string(kFixtureProfile) + R"(    pluginConfig:
      - name: NodeResourcesFit
        args:
          scoringStrategy: {type: MostAllocated}
)");
  const auto r = run_schedhost({"validate", "--config", config, "--plugin-dir", plugins.path()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, kFixtureSummary);
  EXPECT_EQ(r.err, "warning: " + config +
                       ":23:15: profile \"default-scheduler\": pluginConfig for plugin "
                       "\"NodeResourcesFit\" is ignored: the profile does not enable "
                       "\"NodeResourcesFit\"; enable it or remove the entry\n");
}

TEST(ValidateCommand, EveryPluginThatRefusesItsArgsIsReportedWithItsPluginConfigEntry) {
  ScratchDir files;
  ScratchDir plugins;
  plugins.copy_in(testing::wrapper_fixture(), "wrapper.so");
  const std::string config = files.write("args.yaml", R"(apiVersion: kubescheduler.config.k8s.io/v1
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
          - name: NoArgs
          - name: Scripted
    pluginConfig:
      - name: NoArgs
        args:
          unexpected: 1
      - name: Scripted
        args:
          code: Maybe
)");
  const auto r = run_schedhost({"validate", "--config", config, "--plugin-dir", plugins.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "error: " + config +
                       ":17:15: plugin \"NoArgs\": this plugin takes no args\n"
                       "error: " +
                       config + ":20:15: plugin \"Scripted\": unknown code \"Maybe\"\n");
}

TEST(ValidateCommand, ArgsAPluginAcceptsAreValid) {
  ScratchDir files;
  ScratchDir plugins;
  plugins.copy_in(testing::wrapper_fixture(), "wrapper.so");
  const std::string config = files.write("args.yaml", R"(apiVersion: kubescheduler.config.k8s.io/v1
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
      score:
        enabled:
          - name: Scripted
    pluginConfig:
      - name: Scripted
        args:
          code: Success
          score: 40
)");
  const auto r = run_schedhost({"validate", "--config", config, "--plugin-dir", plugins.path()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(
      r.out,
      std::string(kDefaults) +
          "profile \"default-scheduler\": queueSort: PrioritySort; score: Scripted (weight 1); "
          "bind: DefaultBinder\n");
}

TEST(ValidateCommand, WarnsAboutPendingPodsNoProfileServes) {
  ScratchDir files;
  FixturePluginDir plugins;
  const std::string config = files.write("profile.yaml", kFixtureProfile);
  const std::string cluster = files.write("cluster.yaml", std::string(kTwoNodesOnePod) + R"(---
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
---
apiVersion: v1
kind: Pod
metadata:
  name: already-running
  namespace: batch
spec:
  schedulerName: gang-scheduler
  nodeName: node-a
  containers:
    - name: worker
      image: busybox
)");
  const auto r = run_schedhost(
      {"validate", "--config", config, "--plugin-dir", plugins.path(), "--cluster", cluster});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, kFixtureSummary);
  EXPECT_EQ(r.err,
            "warning: pod \"batch/gang-1\" asks for schedulerName \"gang-scheduler\", which no "
            "profile serves\n");
}

TEST(ValidateCommand, AClusterWhosePodsAreAllServedHasNoWarning) {
  ScratchDir files;
  FixturePluginDir plugins;
  const std::string config = files.write("profile.yaml", kFixtureProfile);
  const std::string cluster = files.write("cluster.yaml", kTwoNodesOnePod);
  const auto r = run_schedhost(
      {"validate", "--config", config, "--plugin-dir", plugins.path(), "--cluster", cluster});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, kFixtureSummary);
}

TEST(ValidateCommand, AnInvalidClusterFileIsBadInput) {
  ScratchDir files;
  FixturePluginDir plugins;
  const std::string config = files.write("profile.yaml", kFixtureProfile);
  const std::string cluster = files.write("cluster.yaml", "kind: Pod\nmetadata: {name: [1\n");
  const auto r = run_schedhost(
      {"validate", "--config", config, "--plugin-dir", plugins.path(), "--cluster", cluster});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, ::testing::StartsWith("error: " + cluster + ":"));
  EXPECT_THAT(r.err, ::testing::HasSubstr("invalid YAML"));
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
}

TEST(ValidateCommand, AMissingConfigIsBadInput) {
  ScratchDir files;
  FixturePluginDir plugins;
  const std::string missing = files.file("missing.yaml");
  const auto r = run_schedhost({"validate", "--config", missing, "--plugin-dir", plugins.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "error: " + missing +
                       ": cannot read the configuration file (No such file or directory): check "
                       "the --config path\n");
}

TEST(ValidateCommand, ConfigIsRequired) {
  const auto r = run_schedhost({"validate"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: --config is required (see schedhost --help)\n");
}

TEST(ValidateCommand, AnUnknownPluginIsBadInput) {
  ScratchDir files;
  FixturePluginDir plugins;
  std::string profile = kFixtureProfile;
  profile.replace(profile.find("FixtureFilter"), 13, "GpuFilter");
  const std::string config = files.write("profile.yaml", profile);
  const auto r = run_schedhost({"validate", "--config", config, "--plugin-dir", plugins.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "error: " + config +
                       ":14:19: plugin \"GpuFilter\" is not installed (searched, in order: " +
                       testing::builtin_plugin_dir() + " (built-in), " + plugins.path() +
                       "): put its .so in a --plugin-dir, or remove it\n");
}

TEST(ValidateCommand, APluginAtAPointItDoesNotImplementIsBadInput) {
  ScratchDir files;
  FixturePluginDir plugins;
  std::string profile = kFixtureProfile;
  profile.replace(profile.find("name: DefaultBinder"), 19, "name: FixtureFilter");
  const std::string config = files.write("profile.yaml", profile);
  const auto r = run_schedhost({"validate", "--config", config, "--plugin-dir", plugins.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "error: " + config +
                       ":21:19: plugin \"FixtureFilter\" does not implement Bind: remove it from "
                       "bind or use multiPoint\n");
}

TEST(ValidateCommand, ABrokenPluginLibraryIsBadInput) {
  ScratchDir files;
  FixturePluginDir plugins;
  const std::string bad = plugins.copy_in(loader_fixture("bad_name"), "z_bad_name.so");
  const std::string config = files.write("profile.yaml", kFixtureProfile);
  const auto r = run_schedhost({"validate", "--config", config, "--plugin-dir", plugins.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "error: " + bad +
                       ": plugin \"Sample_Plugin\" is not a valid name: must match "
                       "^[a-zA-Z][a-zA-Z0-9]*$\n");
}

}  // namespace
}  // namespace schedhost
