#include "scheduler/feasible_nodes.hpp"

namespace schedhost::scheduler {
namespace {
constexpr std::size_t kMinFeasibleNodesToFind = 100;
constexpr int kMinFeasibleNodesPercentageToFind = 5;
}  // namespace

std::size_t num_feasible_nodes_to_find(int percentage, std::size_t num_nodes) {
  if (num_nodes < kMinFeasibleNodesToFind || percentage >= 100) return num_nodes;
  if (percentage <= 0) {
    // Adaptive: 50% of a small cluster, shrinking by 1% per 125 nodes, never below 5%.
    percentage = 50 - static_cast<int>(num_nodes / 125);
    if (percentage < kMinFeasibleNodesPercentageToFind) {
      percentage = kMinFeasibleNodesPercentageToFind;
    }
  }
  const std::size_t num = num_nodes * static_cast<std::size_t>(percentage) / 100;
  return num < kMinFeasibleNodesToFind ? kMinFeasibleNodesToFind : num;
}

}  // namespace schedhost::scheduler
