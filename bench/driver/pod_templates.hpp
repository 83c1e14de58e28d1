// Upstream scheduler_perf's node and pod templates (test/integration/scheduler_perf/config and
// templates), as the JSON objects a cluster file would hold.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace schedhost_bench {

enum class PodKind {
  kDefault,                     // pod-default.yaml: 100m cpu, 500Mi
  kPodAntiAffinity,             // pod-with-pod-anti-affinity.yaml: required, hostname
  kPodAffinity,                 // pod-with-pod-affinity.yaml: required, zone
  kPreferredPodAffinity,        // pod-with-preferred-pod-affinity.yaml
  kPreferredPodAntiAffinity,    // pod-with-preferred-pod-anti-affinity.yaml
  kNodeAffinity,                // pod-with-node-affinity.yaml: zone In [zone1, zone2]
  kTopologySpreading,           // pod-with-topology-spreading.yaml: DoNotSchedule, maxSkew 5
  kPreferredTopologySpreading,  // pod-with-preferred-topology-spreading.yaml: ScheduleAnyway
  kLowPriority,                 // pod-low-priority.yaml: 900m cpu, priority 0
  kHighPriority,                // pod-high-priority.yaml: 3000m cpu, priority 10
  kFillsNode,                   // not upstream's: pod-default with 3 cpu, one per 4-cpu node
};

const char* kind_name(PodKind kind);

// node-default.yaml (4 cpu, 32Gi, 110 pods) named node-<index>, with the kubernetes.io/hostname
// label and topology.kubernetes.io/zone = zone<1 + index % zones>.
nlohmann::json make_node(std::size_t index, std::size_t zones);

// A pending pod of that template, named name in namespace ns.
nlohmann::json make_pod(PodKind kind, const std::string& name, const std::string& ns);

}  // namespace schedhost_bench
