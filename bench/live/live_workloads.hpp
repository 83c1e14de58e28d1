// The workloads of the live benchmark: upstream scheduler_perf's cases, played through a real
// API server, with the two ways pods reach a scheduler (created while it runs, or waiting for it
// when it starts) and a burst of pods that fit nowhere until nodes are added.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "driver/pod_templates.hpp"

namespace schedhost_live_bench {

using schedhost_bench::PodKind;

// How the measured pods meet the scheduler.
enum class Arrival {
  // The scheduler runs; the generator creates the measured pods as fast as it can. The window
  // runs from the first create to the last binding.
  kWhileRunning,
  // The measured pods are created while no scheduler runs, then a fresh scheduler process starts
  // (its start-up and informer sync are in the window, which runs from its start).
  kPreCreated,
  // The measured pods fit on no node (small_nodes are too small); once the scheduler has found
  // each unschedulable, the workload's nodes are added. The window runs from the first node
  // added to the last binding.
  kUnschedulableBurst,
};

const char* arrival_name(Arrival arrival);

struct LiveWorkload {
  std::string name;
  std::size_t nodes = 0;
  PodKind init_kind = PodKind::kDefault;  // namespace sched-0, bound before the window opens
  std::size_t init = 0;
  PodKind measured_kind = PodKind::kDefault;  // namespace sched-1
  std::size_t measured = 0;
  Arrival arrival = Arrival::kWhileRunning;
  std::size_t small_nodes = 0;      // kUnschedulableBurst: nodes no pod fits, there from the start
  bool bind_only_baseline = false;  // also run the generator binding pods itself, no scheduler
  bool quick = false;               // the --quick set (and only that)
};

// Every workload, the quick one included (last).
std::vector<LiveWorkload> live_workloads();

}  // namespace schedhost_live_bench
