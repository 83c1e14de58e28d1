#include "live_workloads.hpp"

namespace schedhost_live_bench {

const char* arrival_name(Arrival arrival) {
  switch (arrival) {
    case Arrival::kWhileRunning:
      return "created while the scheduler runs";
    case Arrival::kPreCreated:
      return "pre-created, then the scheduler started";
    case Arrival::kUnschedulableBurst:
      return "unschedulable, then nodes added";
  }
  return "?";
}

std::vector<LiveWorkload> live_workloads() {
  std::vector<LiveWorkload> all;
  // SchedulingBasic at upstream's counts, each way of arriving; the bind-only baseline beside
  // the pods created while the scheduler runs.
  struct Basic {
    const char* name;
    std::size_t nodes, init, measured;
    bool baseline;
  };
  for (const Basic& b : {Basic{"SchedulingBasic/500Nodes", 500, 500, 1000, true},
                         Basic{"SchedulingBasic/5000Nodes_1000Pods", 5000, 1000, 1000, true},
                         Basic{"SchedulingBasic/5000Nodes_5000Pods", 5000, 1000, 5000, false}}) {
    LiveWorkload w;
    w.name = b.name;
    w.nodes = b.nodes;
    w.init = b.init;
    w.measured = b.measured;
    w.bind_only_baseline = b.baseline;
    all.push_back(w);
    w.name += "/PreCreated";
    w.arrival = Arrival::kPreCreated;
    w.bind_only_baseline = false;
    all.push_back(w);
  }
  LiveWorkload spreading;
  spreading.name = "TopologySpreading/500Nodes";
  spreading.nodes = 500;
  spreading.init = 1000;
  spreading.measured_kind = PodKind::kTopologySpreading;
  spreading.measured = 1000;
  all.push_back(spreading);

  LiveWorkload anti_affinity;
  anti_affinity.name = "SchedulingPodAntiAffinity/500Nodes";
  anti_affinity.nodes = 500;
  anti_affinity.init_kind = PodKind::kPodAntiAffinity;
  anti_affinity.init = 100;
  anti_affinity.measured_kind = PodKind::kPodAntiAffinity;
  anti_affinity.measured = 400;
  all.push_back(anti_affinity);

  LiveWorkload burst;
  burst.name = "UnschedulableBurst/500Nodes";
  burst.nodes = 500;
  burst.measured = 1000;
  burst.small_nodes = 100;
  burst.arrival = Arrival::kUnschedulableBurst;
  all.push_back(burst);

  LiveWorkload quick;
  quick.name = "SchedulingBasic/100Nodes_Quick";
  quick.nodes = 100;
  quick.init = 100;
  quick.measured = 200;
  quick.bind_only_baseline = true;
  quick.quick = true;
  all.push_back(quick);
  return all;
}

}  // namespace schedhost_live_bench
