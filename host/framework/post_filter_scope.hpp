// What a PostFilter call may use besides the snapshot, so a preemption plugin can do what
// upstream's DefaultPreemption does through its framework handle: run the profile's own
// PreFilter extensions and Filter chain on copies of a node (dry runs), spread them over the
// worker threads, draw reproducible random numbers, and offer candidates to the extenders.
#pragma once

#include <cstdint>
#include <functional>

#include "cluster/pod.hpp"
#include "framework/preemption_extenders.hpp"

namespace schedhost::framework {

class Framework;
class Parallelizer;
struct CycleContext;

struct PostFilterScope {
  const Framework* framework = nullptr;
  const CycleContext* cycle = nullptr;             // the failed cycle; dry runs clone it
  const cluster::Pod* pod = nullptr;               // the pod being scheduled
  Parallelizer* parallelizer = nullptr;            // null: parallel_for runs on the calling thread
  std::function<std::uint64_t()> random;           // the run's seeded generator
  const PreemptionExtenders* extenders = nullptr;  // null or empty: no extender preempts
};

}  // namespace schedhost::framework
