// Each way a plugin can break the ABI's rules at run time becomes an Error (or a clamp, or a
// truncation) for the one pod it concerns, with the plugin's name; the other pods are scheduled.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "common/input_error.hpp"
#include "scheduler/scheduler_harness.hpp"

namespace schedhost {
namespace {

using scheduler::RunResult;

std::string profile(const std::string& fault) {
  return R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      disabled: [{name: '*'}]
      enabled: [{name: Faulty}]
    queueSort:
      enabled: [{name: PrioritySort}]
    bind:
      enabled: [{name: DefaultBinder}]
  pluginConfig:
  - name: Faulty
    args: {fault: )" +
         fault + "}\n";
}

const std::string kCluster = testing::node_yaml("node-a") + testing::node_yaml("node-b") +
                             testing::pod_yaml("bad", "  labels: {faulty: 'yes'}\n") +
                             testing::pod_yaml("good");

class PluginFaults : public ::testing::Test {
 protected:
  RunResult run(const std::string& fault) {
    return harness_.run(profile(fault), kCluster, {false, 0, {}, std::nullopt});
  }
  // The bad pod's entry; the good one must have been scheduled.
  scheduler::PodResult bad(const RunResult& r) {
    EXPECT_EQ(r.pods.size(), 2u);
    scheduler::PodResult out;
    for (const auto& p : r.pods) {
      if (p.pod == "default/bad") out = p;
      if (p.pod == "default/good") {
        EXPECT_EQ(p.result, "Scheduled") << p.message;
      }
    }
    return out;
  }
  testing::SchedulerHarness harness_{{"plugin_faults"}};
};

TEST_F(PluginFaults, AnUnknownStatusCodeIsAnError) {
  const auto p = bad(run("unknown-code"));
  EXPECT_EQ(p.result, "Error");
  EXPECT_EQ(p.message,
            "running \"Faulty\" filter plugin: plugin \"Faulty\" returned unknown status code 42");
}

TEST_F(PluginFaults, AScoreOutOfRangeIsAnError) {
  const auto p = bad(run("score-150"));
  EXPECT_EQ(p.result, "Error");
  EXPECT_EQ(p.message,
            "plugin \"Faulty\" returns an invalid score 150 for node \"node-a\", it should in the "
            "range of [0, 100] after normalizing");
}

TEST_F(PluginFaults, NormalizeScoreMayNotChangeTheNodeList) {
  const auto p = bad(run("normalize-renames"));
  EXPECT_EQ(p.result, "Error");
  EXPECT_EQ(p.message,
            "plugin \"Faulty\" changed the node list in NormalizeScore: it may only rewrite the "
            "scores");
}

TEST_F(PluginFaults, AnOverlongReasonIsTruncatedNotRefused) {
  const auto p = bad(run("long-reason"));
  EXPECT_EQ(p.result, "Unschedulable");
  const std::string reason = std::string(1024, 'x') + "... (truncated from 5000 bytes)";
  EXPECT_EQ(p.message, "0/2 nodes are available: 2 " + reason + ".");
}

TEST_F(PluginFaults, AWaitLongerThanUpstreamsMaximumIsClamped) {
  const auto p = bad(run("permit-forever"));
  EXPECT_EQ(p.result, "Unschedulable");
  EXPECT_EQ(p.message, "rejected due to timeout after waiting 15m0s at plugin Faulty");
}

TEST_F(PluginFaults, CreateWithoutAnInstanceIsRefusedAtStartup) {
  try {
    run("null-instance");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), ::testing::EndsWith(
                              "plugin \"Faulty\": create() returned SUCCESS without an instance "
                              "(*out_self is NULL): return a non-NULL pointer, even to static "
                              "data"));
  }
}

}  // namespace
}  // namespace schedhost
