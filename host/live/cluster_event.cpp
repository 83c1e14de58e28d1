#include "live/cluster_event.hpp"

#include <schedhost/k8s/label_selector.hpp>
#include <schedhost/k8s/node_selector.hpp>
#include <schedhost/k8s/toleration.hpp>

#include <map>

namespace schedhost::live {
namespace {

// A StringMap as the SDK's selectors read labels.
struct Labels {
  const cluster::StringMap& map;
  std::optional<std::string_view> label(std::string_view key) const {
    const std::string* v = map.find(key);
    return v == nullptr ? std::nullopt : std::optional<std::string_view>(*v);
  }
};

const nlohmann::json& at_or_null(const nlohmann::json& j, const char* pointer) {
  static const nlohmann::json null;
  const nlohmann::json::json_pointer p(pointer);
  return j.contains(p) ? j.at(p) : null;
}

// Equal as upstream's DeepEqual of the typed fields: an absent list or map equals an empty one.
bool same(const nlohmann::json& a, const nlohmann::json& b) {
  const auto empty = [](const nlohmann::json& j) {
    return j.is_null() || (j.is_structured() && j.empty());
  };
  return (empty(a) && empty(b)) || a == b;
}

std::map<std::string, std::string> condition_statuses(const nlohmann::json& node) {
  std::map<std::string, std::string> out;
  const nlohmann::json& conditions = at_or_null(node, "/status/conditions");
  if (!conditions.is_array()) return out;
  for (const nlohmann::json& c : conditions) {
    if (c.is_object()) out[c.value("type", "")] = c.value("status", "");
  }
  return out;
}

// upstream's preCheckForNode: AdmissionCheck (resources, nodeName, nodeSelector and required
// node affinity, host ports) and the NoSchedule taints tolerated.
bool fits_node(const cluster::NodeInfo& node, const cluster::Pod& pod) {
  if (!pod.node_name().empty() && pod.node_name() != node.name()) return false;
  const Labels labels{node.node().labels()};
  for (const auto& [key, value] : pod.node_selector()) {
    const std::optional<std::string_view> v = labels.label(key);
    if (!v || *v != value) return false;
  }
  const nlohmann::json& required = at_or_null(
      pod.json(), "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution");
  if (!required.is_null() &&
      !k8s::NodeSelector::parse(required).matches(labels, std::string_view(node.name()))) {
    return false;
  }
  for (const auto& [resource, amount] : pod.requests()) {
    if (amount <= 0) continue;
    const std::int64_t free =
        node.allocatable().get_or_zero(resource) - node.requested().get_or_zero(resource);
    if (amount > free) return false;
  }
  if (node.allocatable().contains("pods") &&
      static_cast<std::int64_t>(node.pods().size()) + 1 > node.allocatable().get_or_zero("pods")) {
    return false;
  }
  for (const cluster::HostPort& port : pod.host_ports()) {
    if (node.port_conflicts(port)) return false;
  }
  for (const cluster::Taint& taint : node.node().taints()) {
    if (taint.effect == k8s::kEffectNoSchedule &&
        !k8s::tolerations_tolerate_taint(pod.tolerations(), taint)) {
      return false;
    }
  }
  return true;
}

// Whether `assigned` matches one of `pod`'s required pod-affinity terms: its label selector, in
// the term's namespaces (the pod's own when none are listed; a namespaceSelector is taken as a
// match, to err on the side of moving the pod).
bool affinity_matches(const cluster::Pod& pod, const cluster::Pod& assigned) {
  if (!pod.has_affinity()) return false;
  const nlohmann::json& terms = at_or_null(
      pod.json(), "/spec/affinity/podAffinity/requiredDuringSchedulingIgnoredDuringExecution");
  if (!terms.is_array()) return false;
  for (const nlohmann::json& term : terms) {
    if (!term.is_object()) continue;
    bool in_namespace = term.contains("namespaceSelector");
    if (const auto ns = term.find("namespaces");
        ns != term.end() && ns->is_array() && !ns->empty()) {
      for (const nlohmann::json& n : *ns)
        in_namespace = in_namespace || (n.is_string() && n == assigned.namespace_name());
    } else if (!in_namespace) {
      in_namespace = assigned.namespace_name() == pod.namespace_name();
    }
    if (!in_namespace) continue;
    try {
      const auto selector =
          k8s::LabelSelector::parse(term.value("labelSelector", nlohmann::json()));
      if (selector.matches(Labels{assigned.labels()})) return true;
    } catch (const std::exception&) {
      return true;  // a selector the plugins will refuse: let them say so
    }
  }
  return false;
}

}  // namespace

std::optional<std::string> node_update_event(const nlohmann::json& old_node,
                                             const nlohmann::json& new_node) {
  const auto unschedulable = [](const nlohmann::json& n) {
    const nlohmann::json& u = at_or_null(n, "/spec/unschedulable");
    return u.is_boolean() && u.get<bool>();
  };
  if (unschedulable(old_node) != unschedulable(new_node) && !unschedulable(new_node)) {
    return "NodeSpecUnschedulableChange";
  }
  if (!same(at_or_null(old_node, "/status/allocatable"),
            at_or_null(new_node, "/status/allocatable"))) {
    return "NodeAllocatableChange";
  }
  if (!same(at_or_null(old_node, "/metadata/labels"), at_or_null(new_node, "/metadata/labels"))) {
    return "NodeLabelChange";
  }
  if (!same(at_or_null(old_node, "/spec/taints"), at_or_null(new_node, "/spec/taints"))) {
    return "NodeTaintChange";
  }
  if (condition_statuses(old_node) != condition_statuses(new_node)) return "NodeConditionChange";
  if (!same(at_or_null(old_node, "/metadata/annotations"),
            at_or_null(new_node, "/metadata/annotations"))) {
    return "NodeAnnotationChange";
  }
  return std::nullopt;
}

bool may_help(const ClusterEvent& event, const cluster::Pod& pod) {
  if (event.node) return fits_node(*event.node, pod);
  if (event.pod) return affinity_matches(pod, *event.pod);
  return true;
}

}  // namespace schedhost::live
