// End to end: `schedhost run` with the default profile on tests/preemption/data/pdb-cluster.yaml
// (its header explains every decision), and the same cluster without its PodDisruptionBudget.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>

#include "scheduler/scheduler_harness.hpp"
#include "support/fixtures.hpp"
#include "support/process.hpp"

namespace schedhost {
namespace {

const std::string kSource = SCHEDHOST_SOURCE_DIR;
const std::string kCluster = kSource + "/tests/preemption/data/pdb-cluster.yaml";

TEST(PreemptionRun, APodDisruptionBudgetDecidesWhichNodeIsEmptied) {
  const auto r =
      testing::run_schedhost({"run", "--config", kSource + "/configs/default-profile.yaml",
                              "--cluster", kCluster, "-o", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(nlohmann::json::parse(r.out), nlohmann::json::parse(R"({"pods": [
    {"pod": "shop/batch-2", "profile": "default-scheduler", "result": "Preempted", "node": "node-3",
     "message": "Preempted by pod api-critical-uid on node node-3"},
    {"pod": "shop/batch-3", "profile": "default-scheduler", "result": "Preempted", "node": "node-3",
     "message": "Preempted by pod api-critical-uid on node node-3"},
    {"pod": "shop/api-critical", "profile": "default-scheduler", "result": "Scheduled",
     "node": "node-3", "message": "", "preempted": ["shop/batch-2", "shop/batch-3"]},
    {"pod": "shop/web-1", "profile": "default-scheduler", "result": "Scheduled", "node": "node-3",
     "message": ""},
    {"pod": "shop/report-1", "profile": "default-scheduler", "result": "Unschedulable", "node": "",
     "message": "0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."}],
   "summary": {"scheduled": 2, "unschedulable": 1, "skipped": 0, "errors": 0, "preempted": 2}})"));
}

TEST(PreemptionRun, WithoutTheBudgetTheNodeWithFewerVictimsIsEmptied) {
  std::string cluster = testing::read_file(kCluster);
  const std::size_t begin = cluster.find("apiVersion: policy/v1");
  const std::size_t end = cluster.find("---\n", begin) + 4;
  ASSERT_NE(begin, std::string::npos);
  cluster.erase(begin, end - begin);
  testing::SchedulerHarness harness;
  const scheduler::RunResult r =
      harness.run(testing::read_file(kSource + "/configs/default-profile.yaml"), cluster,
                  {false, 0, {}, std::nullopt});
  ASSERT_GE(r.pods.size(), 2u);
  EXPECT_EQ(r.pods[0].pod, "shop/db-1");
  EXPECT_EQ(r.pods[0].result, "Preempted");
  EXPECT_EQ(r.pods[1].pod, "shop/api-critical");
  EXPECT_EQ(r.pods[1].node, "node-2");
  EXPECT_EQ(r.pods[1].preempted, std::vector<std::string>{"shop/db-1"});
}

}  // namespace
}  // namespace schedhost
