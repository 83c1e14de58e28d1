#include "workloads.hpp"

namespace schedhost_bench {

std::size_t Workload::init_count() const {
  std::size_t n = 0;
  for (const PodGroup& g : init)
    n += g.count;
  return n;
}

std::vector<Workload> all_workloads() {
  using K = PodKind;
  std::vector<Workload> w;
  auto add = [&w](std::string name, std::size_t nodes, std::vector<PodGroup> init,
                  PodGroup measured) -> Workload& {
    Workload x;
    x.name = std::move(name);
    x.nodes = nodes;
    x.init = std::move(init);
    x.measured = measured;
    return w.emplace_back(std::move(x));
  };
  add("SchedulingBasic/500Nodes", 500, {{K::kDefault, 500}}, {K::kDefault, 1000}).quick = true;
  // The target size (upstream's 5000Nodes_10000Pods).
  add("SchedulingBasic/5000Nodes_10000Pods", 5000, {{K::kDefault, 1000}}, {K::kDefault, 10000})
      .file_run = true;
  add("SchedulingBasic/5000Nodes_1000Pods", 5000, {{K::kDefault, 1000}}, {K::kDefault, 1000})
      .quick = true;
  add("SchedulingBasic/15000Nodes", 15000, {{K::kDefault, 1000}}, {K::kDefault, 5000});
  add("SchedulingPodAntiAffinity/500Nodes", 500, {{K::kPodAntiAffinity, 100}},
      {K::kPodAntiAffinity, 400})
      .quick = true;
  add("SchedulingPodAntiAffinity/5000Nodes", 5000, {{K::kPodAntiAffinity, 1000}},
      {K::kPodAntiAffinity, 1000});
  // Upstream labels every node of these three zone1 (labelNodePrepareStrategy).
  add("SchedulingPodAffinity/5000Nodes", 5000, {{K::kPodAffinity, 5000}}, {K::kPodAffinity, 1000})
      .zones = 1;
  add("SchedulingNodeAffinity/5000Nodes", 5000, {{K::kNodeAffinity, 5000}},
      {K::kNodeAffinity, 1000})
      .zones = 1;
  add("TopologySpreading/500Nodes", 500, {{K::kDefault, 1000}}, {K::kTopologySpreading, 1000})
      .quick = true;
  add("TopologySpreading/5000Nodes", 5000, {{K::kDefault, 5000}}, {K::kTopologySpreading, 2000});
  add("PreferredTopologySpreading/5000Nodes", 5000, {{K::kDefault, 5000}},
      {K::kPreferredTopologySpreading, 2000});
  add("MixedSchedulingBasePod/5000Nodes", 5000,
      {{K::kDefault, 2000},
       {K::kPodAffinity, 2000},
       {K::kPodAntiAffinity, 2000},
       {K::kPreferredPodAffinity, 2000},
       {K::kPreferredPodAntiAffinity, 2000}},
      {K::kDefault, 1000})
      .zones = 1;
  add("PreemptionBasic/500Nodes", 500, {{K::kLowPriority, 2000}}, {K::kHighPriority, 500}).quick =
      true;
  // Opportunistic batching (issue 26): the default profile never batches (PodTopologySpread's
  // system default constraints), so these use configs/batching-profile.yaml, with the gate on
  // and off. SchedulingBasic's pods leave room on their node (40 fit on one): the kept ranking
  // is dropped every time (node_not_full). pod-fills-node's pods take a node each: batched.
  for (const bool gate : {true, false}) {
    const std::string suffix = gate ? "" : "_GateOff";
    Workload& basic = add("Batching/SchedulingBasic_5000Nodes_10000Pods" + suffix, 5000,
                          {{K::kDefault, 1000}}, {K::kDefault, 10000});
    basic.batching_profile = true;
    basic.batching_gate = gate;
    Workload& fills = add("Batching/OnePodPerNode_5000Nodes_4000Pods" + suffix, 5000,
                          {{K::kDefault, 1000}}, {K::kFillsNode, 4000});
    fills.batching_profile = true;
    fills.batching_gate = gate;
    Workload& small = add("Batching/OnePodPerNode_500Nodes_400Pods" + suffix, 500,
                          {{K::kDefault, 500}}, {K::kFillsNode, 400});
    small.batching_profile = true;
    small.batching_gate = gate;
    small.quick = true;
  }
  // The RSS target of issue 7: 5000 nodes holding 50,000 running pods (bound round-robin).
  Workload& rss =
      add("RunningPods/5000Nodes_50000Init", 5000, {{K::kDefault, 50000}}, {K::kDefault, 1000});
  rss.place_init_round_robin = true;
  return w;
}

}  // namespace schedhost_bench
