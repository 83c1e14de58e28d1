// The pure pieces of the cycle: the FitError message, numFeasibleNodesToFind, host selection.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "scheduler/feasible_nodes.hpp"
#include "scheduler/fit_error.hpp"
#include "scheduler/select_host.hpp"

namespace schedhost::scheduler {
namespace {

using framework::Status;

Status unschedulable(std::vector<std::string> reasons) {
  return {SCHEDHOST_UNSCHEDULABLE, std::move(reasons), "P"};
}

TEST(FitError, CountsEachReasonAndSortsTheLinesAsStrings) {
  std::vector<Status> statuses;
  for (int i = 0; i < 10; ++i)
    statuses.push_back(unschedulable({"Insufficient cpu"}));
  statuses.push_back(unschedulable({"node(s) had untolerated taint(s)"}));
  statuses.push_back(unschedulable({"node(s) had untolerated taint(s)"}));
  statuses.push_back(unschedulable({"Insufficient cpu", "Insufficient memory"}));
  EXPECT_EQ(fit_error_message(13, "", statuses, ""),
            "0/13 nodes are available: 1 Insufficient memory, 11 Insufficient cpu, 2 node(s) had "
            "untolerated taint(s).");
}

TEST(FitError, PreFilterMessageReplacesTheHistogramAndPostFilterIsAppended) {
  const std::vector<Status> statuses(3, unschedulable({"ignored"}));
  EXPECT_EQ(fit_error_message(3, "pod has unbound PVCs", statuses, ""),
            "0/3 nodes are available: pod has unbound PVCs.");
  EXPECT_EQ(
      fit_error_message(1, "", {unschedulable({"node(s) had untolerated taint(s)"})},
                        "preemption: 0/1 nodes are available: 1 Preemption is not helpful for "
                        "scheduling."),
      "0/1 nodes are available: 1 node(s) had untolerated taint(s). "
      "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.");
  EXPECT_EQ(fit_error_message(0, "", {}, ""), "0/0 nodes are available:");
}

TEST(FeasibleNodes, UpstreamsAdaptivePercentage) {
  EXPECT_EQ(num_feasible_nodes_to_find(0, 50), 50u);      // under 100: all
  EXPECT_EQ(num_feasible_nodes_to_find(0, 200), 100u);    // 49% = 98, raised to 100
  EXPECT_EQ(num_feasible_nodes_to_find(0, 1000), 420u);   // 50 - 8 = 42%
  EXPECT_EQ(num_feasible_nodes_to_find(0, 5000), 500u);   // 50 - 40 = 10%
  EXPECT_EQ(num_feasible_nodes_to_find(0, 10000), 500u);  // floored at 5%
  EXPECT_EQ(num_feasible_nodes_to_find(30, 1000), 300u);
  EXPECT_EQ(num_feasible_nodes_to_find(1, 1000), 100u);
  EXPECT_EQ(num_feasible_nodes_to_find(100, 5000), 5000u);
}

TEST(SelectHost, TheHighestTotalWins) {
  std::mt19937_64 rng(1);
  EXPECT_EQ(select_host({10, 30, 20}, rng), 1u);
  EXPECT_EQ(select_host({5}, rng), 0u);
}

TEST(SelectHost, TiesAreSpreadUniformlyAndReproducibly) {
  std::mt19937_64 a(42), b(42);
  std::vector<int> counts(4, 0);
  for (int i = 0; i < 4000; ++i) {
    const std::size_t pick = select_host({7, 9, 9, 9}, a);
    EXPECT_EQ(pick, select_host({7, 9, 9, 9}, b));
    ++counts[pick];
  }
  EXPECT_EQ(counts[0], 0);
  for (int k = 1; k < 4; ++k) {
    EXPECT_GT(counts[k], 1150) << k;  // about 1333 each
    EXPECT_LT(counts[k], 1520) << k;
  }
}

}  // namespace
}  // namespace schedhost::scheduler
