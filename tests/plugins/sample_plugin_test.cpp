// SamplePlugin (plugins/examples/sample_plugin), the real built-in .so: its Filter verdicts, its
// Score arithmetic (CPU percentage, the prod zone bonus, clamping, threshold), its defaults, its
// debug log and every message it refuses args with.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "plugin_harness.hpp"
#include "support/log_capture.hpp"

namespace schedhost {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testing::make_node;
using testing::make_pod;
using testing::Outcome;
using testing::run_filter;
using testing::run_score;
using J = nlohmann::json;

constexpr const char* kMissingLabel = "node(s) didn't have label gpu-type=nvidia";
constexpr const char* kInsufficientGpu = "Insufficient nvidia.com/gpu";

J nvidia(const char* zone) {
  J labels = {{"gpu-type", "nvidia"}};
  if (zone != nullptr) labels["topology.kubernetes.io/zone"] = zone;
  return labels;
}

// Every node shape the plugin distinguishes, with the pods already running on them.
cluster::Snapshot make_snapshot() {
  const std::vector<std::shared_ptr<const cluster::Node>> nodes = {
      // 25% cpu requested, 2 GPUs free, zone-a
      make_node("gpu-a", nvidia("zone-a"), {{"cpu", "4"}, {"nvidia.com/gpu", "2"}}),
      // 1000m of 3000m = 33% (integer division), 1 of 2 GPUs free, zone-b
      make_node("gpu-b", nvidia("zone-b"), {{"cpu", "3"}, {"nvidia.com/gpu", "2"}}),
      // its only GPU is used
      make_node("gpu-full", nvidia("zone-a"), {{"cpu", "4"}, {"nvidia.com/gpu", "1"}}),
      // labelled, but no nvidia.com/gpu at all
      make_node("no-gpu-resource", nvidia("zone-a"), {{"cpu", "4"}}),
      make_node("amd", {{"gpu-type", "amd"}, {"topology.kubernetes.io/zone", "zone-a"}},
                {{"cpu", "4"}, {"amd.com/gpu", "4"}, {"nvidia.com/gpu", "4"}}),
      make_node("plain", J::object(), {{"cpu", "4"}, {"nvidia.com/gpu", "4"}}),
      // nothing requested: 0%
      make_node("idle-a", nvidia("zone-a"), {{"cpu", "4"}, {"nvidia.com/gpu", "1"}}),
      // 89% and 90% requested
      make_node("busy-89-a", nvidia("zone-a"), {{"cpu", "100"}, {"nvidia.com/gpu", "1"}}),
      make_node("busy-90-a", nvidia("zone-a"), {{"cpu", "10"}, {"nvidia.com/gpu", "1"}}),
      // 100% requested
      make_node("full-cpu-a", nvidia("zone-a"), {{"cpu", "2"}, {"nvidia.com/gpu", "1"}}),
      // no allocatable cpu: counts as 100%
      make_node("no-cpu-a", nvidia("zone-a"), {{"nvidia.com/gpu", "1"}}),
      // more requested than allocatable: 150%
      make_node("overcommitted-a", nvidia("zone-a"), {{"cpu", "2"}, {"nvidia.com/gpu", "1"}}),
      // 25% requested, no zone label
      make_node("no-zone", nvidia(nullptr), {{"cpu", "4"}, {"nvidia.com/gpu", "1"}}),
  };
  const std::vector<std::shared_ptr<const cluster::Pod>> running = {
      make_pod("default", "on-gpu-a", {{"cpu", "1"}}, "gpu-a"),
      make_pod("default", "on-gpu-b", {{"cpu", "1"}, {"nvidia.com/gpu", "1"}}, "gpu-b"),
      make_pod("default", "on-gpu-full", {{"cpu", "1"}, {"nvidia.com/gpu", "1"}}, "gpu-full"),
      make_pod("default", "on-busy-89", {{"cpu", "89"}}, "busy-89-a"),
      make_pod("default", "on-busy-90", {{"cpu", "9"}}, "busy-90-a"),
      make_pod("default", "on-full-cpu", {{"cpu", "2"}}, "full-cpu-a"),
      make_pod("default", "on-overcommitted", {{"cpu", "3"}}, "overcommitted-a"),
      make_pod("default", "on-no-zone", {{"cpu", "1"}}, "no-zone"),
  };
  return cluster::Snapshot(nodes, running);
}

class SamplePluginTest : public ::testing::Test {
 protected:
  std::unique_ptr<framework::PluginInstance> create(const std::string& args) {
    return harness_.create("SamplePlugin", args);
  }
  Outcome filter(const framework::PluginInstance& p, const cluster::Pod& pod, const char* node) {
    return run_filter(p, snapshot_, pod, node);
  }
  // The score of pod on node; fails the test unless Score succeeded without reasons.
  std::int64_t score(const framework::PluginInstance& p, const cluster::Pod& pod,
                     const char* node) {
    const Outcome out = run_score(p, snapshot_, pod, node);
    EXPECT_EQ(out.code, SCHEDHOST_SUCCESS) << node;
    EXPECT_THAT(out.reasons, IsEmpty()) << node;
    return out.score;
  }
  std::string error(const std::string& args) { return harness_.create_error("SamplePlugin", args); }

  testing::PluginHarness harness_{"sample_plugin.so"};
  cluster::Snapshot snapshot_ = make_snapshot();
  std::shared_ptr<const cluster::Pod> prod_pod_ =
      make_pod("prod", "train", {{"cpu", "500m"}, {"nvidia.com/gpu", "1"}});
  std::shared_ptr<const cluster::Pod> dev_pod_ =
      make_pod("dev", "train", {{"cpu", "500m"}, {"nvidia.com/gpu", "1"}});
};

TEST_F(SamplePluginTest, IsAFilterAndScorePluginOfItsOwnLibrary) {
  const loader::PluginDefinition& def = harness_.definition("SamplePlugin");
  EXPECT_EQ(def.description,
            "Sample: keeps pods on gpu-type=nvidia nodes with a free nvidia.com/gpu; prefers idle "
            "CPU, +20 in whitelisted zones for prod pods");
  std::vector<std::string> points;
  for (ExtensionPoint p : kAllExtensionPoints) {
    if (def.points.contains(p)) points.emplace_back(to_string(p));
  }
  EXPECT_THAT(points, ElementsAre("Filter", "Score"));
  EXPECT_EQ(def.library->name, "sample-plugin");
  EXPECT_EQ(def.library->version, "1.0.0");
  EXPECT_EQ(harness_.registry().plugins().size(), 1u);
}

TEST_F(SamplePluginTest, FilterPassesANvidiaNodeWithAFreeGpu) {
  auto p = create("{}");
  for (const char* node : {"gpu-a", "gpu-b", "idle-a", "no-zone", "full-cpu-a"}) {
    const Outcome out = filter(*p, *prod_pod_, node);
    EXPECT_EQ(out.code, SCHEDHOST_SUCCESS) << node;
    EXPECT_THAT(out.reasons, IsEmpty()) << node;
  }
}

TEST_F(SamplePluginTest, FilterRejectsANodeWithoutTheLabelAsUnresolvable) {
  auto p = create("{}");
  // "plain" has no labels, "amd" has gpu-type=amd; both have nvidia.com/gpu to spare.
  for (const char* node : {"plain", "amd"}) {
    const Outcome out = filter(*p, *prod_pod_, node);
    EXPECT_EQ(out.code, SCHEDHOST_UNSCHEDULABLE_AND_UNRESOLVABLE) << node;
    EXPECT_THAT(out.reasons, ElementsAre(kMissingLabel)) << node;
  }
}

TEST_F(SamplePluginTest, FilterRejectsANodeWithoutAFreeGpuAsUnschedulable) {
  auto p = create("{}");
  for (const char* node : {"gpu-full", "no-gpu-resource"}) {
    const Outcome out = filter(*p, *prod_pod_, node);
    EXPECT_EQ(out.code, SCHEDHOST_UNSCHEDULABLE) << node;
    EXPECT_THAT(out.reasons, ElementsAre(kInsufficientGpu)) << node;
  }
}

TEST_F(SamplePluginTest, FilterWantsAFreeGpuEvenForAPodThatRequestsNone) {
  auto p = create("{}");
  const auto cpu_only = make_pod("default", "cpu-only", {{"cpu", "100m"}});
  EXPECT_EQ(filter(*p, *cpu_only, "gpu-a").code, SCHEDHOST_SUCCESS);
  const Outcome out = filter(*p, *cpu_only, "gpu-full");
  EXPECT_EQ(out.code, SCHEDHOST_UNSCHEDULABLE);
  EXPECT_THAT(out.reasons, ElementsAre(kInsufficientGpu));
}

TEST_F(SamplePluginTest, FilterCountsThePodsOwnGpuRequest) {
  auto p = create("{}");
  const auto two = make_pod("prod", "two-gpus", {{"cpu", "1"}, {"nvidia.com/gpu", "2"}});
  EXPECT_EQ(filter(*p, *two, "gpu-a").code, SCHEDHOST_SUCCESS);  // 2 free
  const Outcome out = filter(*p, *two, "gpu-b");                 // 1 free
  EXPECT_EQ(out.code, SCHEDHOST_UNSCHEDULABLE);
  EXPECT_THAT(out.reasons, ElementsAre(kInsufficientGpu));
  const auto three = make_pod("prod", "three-gpus", {{"nvidia.com/gpu", "3"}});
  EXPECT_EQ(filter(*p, *three, "gpu-a").code, SCHEDHOST_UNSCHEDULABLE);
  // The label is checked first: a node without it is unresolvable whatever the GPUs.
  const Outcome plain = filter(*p, *three, "plain");
  EXPECT_EQ(plain.code, SCHEDHOST_UNSCHEDULABLE_AND_UNRESOLVABLE);
  EXPECT_THAT(plain.reasons, ElementsAre(kMissingLabel));
}

TEST_F(SamplePluginTest, ScoreIsOneHundredMinusTheRequestedCpuPercentage) {
  auto p = create("{}");
  EXPECT_EQ(score(*p, *dev_pod_, "gpu-a"), 75);      // 1000m of 4000m
  EXPECT_EQ(score(*p, *dev_pod_, "gpu-b"), 67);      // 1000 * 100 / 3000 = 33
  EXPECT_EQ(score(*p, *dev_pod_, "idle-a"), 100);    // nothing requested
  EXPECT_EQ(score(*p, *dev_pod_, "busy-89-a"), 11);  // 89%
  EXPECT_EQ(score(*p, *dev_pod_, "busy-90-a"), 10);  // 90%, below the default threshold 100
  // The node's requests only: the pod being scored does not count.
  const auto big = make_pod("dev", "big", {{"cpu", "3"}, {"nvidia.com/gpu", "1"}});
  EXPECT_EQ(score(*p, *big, "gpu-a"), 75);
}

TEST_F(SamplePluginTest, ScoreIsZeroForAFullOrOvercommittedNodeOrOneWithoutCpu) {
  auto p = create(R"({"whitelistZones":["zone-a"]})");
  for (const auto* pod : {dev_pod_.get(), prod_pod_.get()}) {
    EXPECT_EQ(score(*p, *pod, "full-cpu-a"), 0);       // 100%
    EXPECT_EQ(score(*p, *pod, "overcommitted-a"), 0);  // 150%
    EXPECT_EQ(score(*p, *pod, "no-cpu-a"), 0);         // allocatable 0 counts as 100%
  }
}

TEST_F(SamplePluginTest, AProdPodGetsTwentyMoreInAWhitelistedZone) {
  auto p = create(R"({"whitelistZones":["zone-a","zone-c"]})");
  EXPECT_EQ(score(*p, *prod_pod_, "gpu-a"), 95);      // 75 + 20
  EXPECT_EQ(score(*p, *prod_pod_, "busy-89-a"), 31);  // 11 + 20
  EXPECT_EQ(score(*p, *prod_pod_, "busy-90-a"), 30);  // 10 + 20
}

TEST_F(SamplePluginTest, NoBonusForAnotherNamespaceZoneOrANodeWithoutZone) {
  auto p = create(R"({"whitelistZones":["zone-a"]})");
  EXPECT_EQ(score(*p, *dev_pod_, "gpu-a"), 75);  // zone-a, but not prod
  const auto production = make_pod("production", "train", {{"nvidia.com/gpu", "1"}});
  EXPECT_EQ(score(*p, *production, "gpu-a"), 75);  // the namespace must be exactly "prod"
  EXPECT_EQ(score(*p, *prod_pod_, "gpu-b"), 67);   // prod, but zone-b is not whitelisted
  EXPECT_EQ(score(*p, *prod_pod_, "no-zone"), 75);
}

TEST_F(SamplePluginTest, ScoreIsClampedToOneHundred) {
  auto p = create(R"({"whitelistZones":["zone-a"]})");
  EXPECT_EQ(score(*p, *prod_pod_, "idle-a"), 100);  // 100 + 20
  EXPECT_EQ(score(*p, *dev_pod_, "idle-a"), 100);
}

TEST_F(SamplePluginTest, ANodeAtOrAboveTheThresholdScoresZeroWithoutBonus) {
  auto p = create(R"({"threshold":90,"whitelistZones":["zone-a"]})");
  EXPECT_EQ(score(*p, *dev_pod_, "busy-90-a"), 0);    // at the threshold
  EXPECT_EQ(score(*p, *prod_pod_, "busy-90-a"), 0);   // no bonus either
  EXPECT_EQ(score(*p, *dev_pod_, "busy-89-a"), 11);   // just below it
  EXPECT_EQ(score(*p, *prod_pod_, "busy-89-a"), 31);  // with the bonus
  EXPECT_EQ(score(*p, *prod_pod_, "gpu-a"), 95);

  auto zero = create(R"({"threshold":0,"whitelistZones":["zone-a"]})");
  for (const char* node : {"idle-a", "gpu-a", "gpu-b"}) {
    EXPECT_EQ(score(*zero, *prod_pod_, node), 0) << node;  // every percentage is >= 0
  }
  auto hundred = create(R"({"threshold":100})");
  EXPECT_EQ(score(*hundred, *dev_pod_, "busy-90-a"), 10);
}

TEST_F(SamplePluginTest, DefaultsAreThreshold100NoZonesNoDebugLog) {
  testing::LogCapture log;
  for (const char* args : {"", "{}"}) {
    auto p = create(args);
    EXPECT_EQ(score(*p, *prod_pod_, "gpu-a"), 75);      // no whitelisted zone: no bonus
    EXPECT_EQ(score(*p, *prod_pod_, "busy-90-a"), 10);  // 90% < 100
    EXPECT_EQ(score(*p, *prod_pod_, "full-cpu-a"), 0);  // 100% >= 100
    EXPECT_EQ(filter(*p, *prod_pod_, "plain").code, SCHEDHOST_UNSCHEDULABLE_AND_UNRESOLVABLE);
  }
  EXPECT_THAT(log.lines(), IsEmpty());
}

TEST_F(SamplePluginTest, TheLimitsOfEachArgAreAccepted) {
  for (const char* args :
       {R"({"threshold":0})", R"({"threshold":100})", R"({"whitelistZones":[]})",
        R"({"enableDebugLog":false})",
        R"({"threshold":90,"whitelistZones":["zone-a","zone-b"],"enableDebugLog":true})"}) {
    EXPECT_EQ(error(args), "<no error>") << args;
  }
}

TEST_F(SamplePluginTest, DebugLogHasOneLinePerRejectionAndPerScore) {
  testing::LogCapture log;
  auto p = create(R"({"threshold":90,"whitelistZones":["zone-a"],"enableDebugLog":true})");
  EXPECT_EQ(filter(*p, *prod_pod_, "gpu-a").code, SCHEDHOST_SUCCESS);  // a pass logs nothing
  EXPECT_EQ(filter(*p, *prod_pod_, "plain").code, SCHEDHOST_UNSCHEDULABLE_AND_UNRESOLVABLE);
  EXPECT_EQ(filter(*p, *prod_pod_, "gpu-full").code, SCHEDHOST_UNSCHEDULABLE);
  EXPECT_EQ(score(*p, *prod_pod_, "gpu-a"), 95);
  EXPECT_EQ(score(*p, *dev_pod_, "gpu-b"), 67);
  EXPECT_EQ(score(*p, *prod_pod_, "busy-90-a"), 0);
  EXPECT_THAT(
      log.lines(),
      ElementsAre(
          "plugin \"SamplePlugin\": Filter prod/train on plain: " + std::string(kMissingLabel),
          "plugin \"SamplePlugin\": Filter prod/train on gpu-full: Insufficient nvidia.com/gpu",
          "plugin \"SamplePlugin\": Score prod/train on gpu-a: cpu requested 25%, zone bonus "
          "+20, score 95",
          "plugin \"SamplePlugin\": Score dev/train on gpu-b: cpu requested 33%, score 67",
          "plugin \"SamplePlugin\": Score prod/train on busy-90-a: cpu requested 90% (at or "
          "above threshold 90), score 0"));
}

TEST_F(SamplePluginTest, EveryBadArgIsRefusedWithItsOwnMessage) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"[1]", "args must be an object with threshold, whitelistZones and enableDebugLog, got [1]"},
      {R"({"thresold":90})",
       "unknown arg \"thresold\": the args are threshold, whitelistZones and enableDebugLog"},
      {R"({"threshold":90,"zones":["zone-a"]})",
       "unknown arg \"zones\": the args are threshold, whitelistZones and enableDebugLog"},
      {R"({"threshold":"90"})", "threshold must be an integer, got \"90\""},
      {R"({"threshold":90.5})", "threshold must be an integer, got 90.5"},
      {R"({"threshold":true})", "threshold must be an integer, got true"},
      {R"({"threshold":null})", "threshold must be an integer, got null"},
      {R"({"threshold":101})", "threshold must be between 0 and 100, got 101"},
      {R"({"threshold":-1})", "threshold must be between 0 and 100, got -1"},
      {R"({"threshold":18446744073709551615})",
       "threshold must be between 0 and 100, got 18446744073709551615"},
      {R"({"whitelistZones":"zone-a"})",
       "whitelistZones must be a list of strings, got \"zone-a\""},
      {R"({"whitelistZones":{"zone":"a"}})",
       "whitelistZones must be a list of strings, got {\"zone\":\"a\"}"},
      {R"({"whitelistZones":["zone-a",3]})", "whitelistZones[1] must be a string, got 3"},
      {R"({"whitelistZones":[""]})", "whitelistZones[0] must not be empty"},
      {R"({"enableDebugLog":"yes"})", "enableDebugLog must be a boolean, got \"yes\""},
      {R"({"enableDebugLog":1})", "enableDebugLog must be a boolean, got 1"},
  };
  for (const auto& [args, message] : cases) {
    EXPECT_EQ(error(args), "plugin \"SamplePlugin\": " + message) << args;
  }
}

// Filter and Score run on many threads at once for one pod, on the same instance.
TEST_F(SamplePluginTest, FilterAndScoreAreSafeToCallConcurrently) {
  auto p = create(R"({"threshold":90,"whitelistZones":["zone-a"]})");
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        const Outcome f = run_filter(*p, snapshot_, *prod_pod_, "gpu-full");
        const Outcome s = run_score(*p, snapshot_, *prod_pod_, "gpu-a");
        if (f.code != SCHEDHOST_UNSCHEDULABLE || f.reasons.size() != 1 || s.score != 95) ++wrong;
      }
    });
  }
  for (auto& t : threads)
    t.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace schedhost
