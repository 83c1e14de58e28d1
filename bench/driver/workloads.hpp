// The workloads: upstream scheduler_perf's test cases (config/performance-config.yaml and its
// successors), with their node and pod counts.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "pod_templates.hpp"

namespace schedhost_bench {

struct PodGroup {
  PodKind kind;
  std::size_t count;
};

struct Workload {
  std::string name;  // "<TestCase>/<variant>" as upstream names them
  std::size_t nodes = 0;
  std::size_t zones = 3;
  std::vector<PodGroup> init;  // created first, in this order, in namespace sched-0
  PodGroup measured;           // in namespace sched-1
  // Init pods are scheduled by the scheduler in an untimed first run (as upstream does); with
  // place_init_round_robin they are bound round-robin instead (for very large counts).
  bool place_init_round_robin = false;
  bool quick = false;     // part of QUICK=1
  bool file_run = false;  // also time `schedhost run` on this cluster as a YAML file
  // The default profile with PodTopologySpread's defaultingType List and no default constraints
  // (configs/batching-profile.yaml), which lets pods be batched; and the OpportunisticBatching
  // gate, so that the two effects can be told apart.
  bool batching_profile = false;
  bool batching_gate = true;

  std::size_t init_count() const;
};

std::vector<Workload> all_workloads();

}  // namespace schedhost_bench
