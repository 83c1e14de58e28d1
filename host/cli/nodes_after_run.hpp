// Each node's requests after a run (its running pods, less those preempted, plus the pods the run
// bound to it) against its allocatable, and its zone: what the HTML summary draws.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cluster/cluster.hpp"
#include "scheduler/run_result.hpp"

namespace schedhost::cli {

struct NodeAfterRun {
  std::string name;
  std::string zone;                // topology.kubernetes.io/zone, "" when unlabelled
  std::int64_t cpu_requested = 0;  // millicores
  std::int64_t cpu_allocatable = 0;
  std::int64_t memory_requested = 0;  // bytes
  std::int64_t memory_allocatable = 0;
  int pods = 0;
};

// In the cluster file's node order.
std::vector<NodeAfterRun> nodes_after_run(const cluster::Cluster& cluster,
                                          const scheduler::RunResult& result);

}  // namespace schedhost::cli
