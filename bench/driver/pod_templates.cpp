#include "pod_templates.hpp"

namespace schedhost_bench {
namespace {

using nlohmann::json;

json resources(const char* cpu) {
  const json amounts = {{"cpu", cpu}, {"memory", "500Mi"}};
  return {{"limits", amounts}, {"requests", amounts}};
}

json container(const char* cpu) {
  return json::array({{{"name", "pause"},
                       {"image", "registry.k8s.io/pause:3.10"},
                       {"ports", json::array({{{"containerPort", 80}}})},
                       {"resources", resources(cpu)}}});
}

// The upstream affinity templates name both workload namespaces in their terms.
json term(const char* color, const char* topology_key) {
  return {{"labelSelector", {{"matchLabels", {{"color", color}}}}},
          {"topologyKey", topology_key},
          {"namespaces", json::array({"sched-1", "sched-0"})}};
}

json spread(const char* when_unsatisfiable) {
  return json::array({{{"maxSkew", 5},
                       {"topologyKey", "topology.kubernetes.io/zone"},
                       {"whenUnsatisfiable", when_unsatisfiable},
                       {"labelSelector", {{"matchLabels", {{"color", "blue"}}}}}}});
}

}  // namespace

const char* kind_name(PodKind kind) {
  switch (kind) {
    case PodKind::kDefault:
      return "pod-default";
    case PodKind::kPodAntiAffinity:
      return "pod-with-pod-anti-affinity";
    case PodKind::kPodAffinity:
      return "pod-with-pod-affinity";
    case PodKind::kPreferredPodAffinity:
      return "pod-with-preferred-pod-affinity";
    case PodKind::kPreferredPodAntiAffinity:
      return "pod-with-preferred-pod-anti-affinity";
    case PodKind::kNodeAffinity:
      return "pod-with-node-affinity";
    case PodKind::kTopologySpreading:
      return "pod-with-topology-spreading";
    case PodKind::kPreferredTopologySpreading:
      return "pod-with-preferred-topology-spreading";
    case PodKind::kLowPriority:
      return "pod-low-priority";
    case PodKind::kHighPriority:
      return "pod-high-priority";
    case PodKind::kFillsNode:
      return "pod-fills-node";
  }
  return "?";
}

json make_node(std::size_t index, std::size_t zones) {
  const std::string name = "node-" + std::to_string(index);
  // Upstream sets capacity only; allocatable is given too so no defaulting rule is assumed.
  const json amounts = {{"pods", "110"}, {"cpu", "4"}, {"memory", "32Gi"}};
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata",
           {{"name", name},
            {"labels",
             {{"kubernetes.io/hostname", name},
              {"topology.kubernetes.io/zone", "zone" + std::to_string(1 + index % zones)}}}}},
          {"spec", json::object()},
          {"status",
           {{"capacity", amounts},
            {"allocatable", amounts},
            {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})},
            {"phase", "Running"}}}};
}

json make_pod(PodKind kind, const std::string& name, const std::string& ns) {
  json metadata = {{"name", name}, {"namespace", ns}};
  json spec = {{"containers", container("100m")}};
  switch (kind) {
    case PodKind::kDefault:
      break;
    case PodKind::kPodAntiAffinity:
      metadata["labels"] = {{"color", "green"}};
      spec["affinity"] = {{"podAntiAffinity",
                           {{"requiredDuringSchedulingIgnoredDuringExecution",
                             json::array({term("green", "kubernetes.io/hostname")})}}}};
      break;
    case PodKind::kPodAffinity:
      metadata["labels"] = {{"color", "blue"}};
      spec["affinity"] = {{"podAffinity",
                           {{"requiredDuringSchedulingIgnoredDuringExecution",
                             json::array({term("blue", "topology.kubernetes.io/zone")})}}}};
      break;
    case PodKind::kPreferredPodAffinity:
      metadata["labels"] = {{"color", "red"}};
      spec["affinity"] = {
          {"podAffinity",
           {{"preferredDuringSchedulingIgnoredDuringExecution",
             json::array(
                 {{{"weight", 1}, {"podAffinityTerm", term("red", "kubernetes.io/hostname")}}})}}}};
      break;
    case PodKind::kPreferredPodAntiAffinity:
      metadata["labels"] = {{"color", "yellow"}};
      spec["affinity"] = {
          {"podAntiAffinity",
           {{"preferredDuringSchedulingIgnoredDuringExecution",
             json::array({{{"weight", 1},
                           {"podAffinityTerm", term("yellow", "kubernetes.io/hostname")}}})}}}};
      break;
    case PodKind::kNodeAffinity:
      spec["affinity"] = {
          {"nodeAffinity",
           {{"requiredDuringSchedulingIgnoredDuringExecution",
             {{"nodeSelectorTerms",
               json::array(
                   {{{"matchExpressions",
                      json::array({{{"key", "topology.kubernetes.io/zone"},
                                    {"operator", "In"},
                                    {"values", json::array({"zone1", "zone2"})}}})}}})}}}}}};
      break;
    case PodKind::kTopologySpreading:
      metadata["labels"] = {{"color", "blue"}};
      spec["topologySpreadConstraints"] = spread("DoNotSchedule");
      break;
    case PodKind::kPreferredTopologySpreading:
      metadata["labels"] = {{"color", "blue"}};
      spec["topologySpreadConstraints"] = spread("ScheduleAnyway");
      break;
    case PodKind::kLowPriority:
      spec["containers"] = container("900m");
      spec["terminationGracePeriodSeconds"] = 0;
      break;
    case PodKind::kHighPriority:
      spec["containers"] = container("3000m");
      spec["priority"] = 10;
      break;
    case PodKind::kFillsNode:
      spec["containers"] = container("3");
      break;
  }
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", metadata}, {"spec", spec}};
}

}  // namespace schedhost_bench
