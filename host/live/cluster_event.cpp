#include "live/cluster_event.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace schedhost::live {
namespace {

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

bool same_at(const nlohmann::json& a, const nlohmann::json& b, const char* pointer) {
  return same(at_or_null(a, pointer), at_or_null(b, pointer));
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

// The compact JSON at pointer, with absent, null and an empty list or map all read as "", so
// that two pods compare as upstream's DeepEqual of the typed fields. json_at gives every value as
// dump() writes it, so equal values have equal text.
std::string_view value_or_empty(const cluster::Pod& pod, std::string_view pointer) {
  const std::optional<std::string_view> text = pod.json_at(pointer);
  if (!text || *text == "null" || *text == "[]" || *text == "{}") return {};
  return *text;
}

bool same_at(const cluster::Pod& a, const cluster::Pod& b, std::string_view pointer) {
  return value_or_empty(a, pointer) == value_or_empty(b, pointer);
}

std::size_t list_size(const cluster::Pod& pod, std::string_view pointer) {
  const std::string_view text = value_or_empty(pod, pointer);
  if (text.empty() || text.front() != '[') return 0;
  const nlohmann::json list = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  return list.is_array() ? list.size() : 0;
}

// upstream's extractPodScaleDown: a request the old pod had is gone or smaller (requests as the
// node counts them: resize status and pod-level resources included).
bool scaled_down(const cluster::Pod& old_pod, const cluster::Pod& new_pod) {
  for (const auto& [name, old_value] : old_pod.requests()) {
    const std::optional<std::int64_t> new_value = new_pod.requests().get(name);
    if (!new_value || *new_value < old_value) return true;
  }
  return false;
}

}  // namespace

std::vector<schedhost_action_t> node_update_actions(const nlohmann::json& old_node,
                                                    const nlohmann::json& new_node) {
  const auto unschedulable = [](const nlohmann::json& n) {
    const nlohmann::json& u = at_or_null(n, "/spec/unschedulable");
    return u.is_boolean() && u.get<bool>();
  };
  std::vector<schedhost_action_t> out;
  if (unschedulable(old_node) && !unschedulable(new_node)) {
    out.push_back(SCHEDHOST_ACTION_UPDATE_NODE_TAINT);
  }
  if (!same_at(old_node, new_node, "/status/allocatable")) {
    out.push_back(SCHEDHOST_ACTION_UPDATE_NODE_ALLOCATABLE);
  }
  if (!same_at(old_node, new_node, "/metadata/labels")) {
    out.push_back(SCHEDHOST_ACTION_UPDATE_NODE_LABEL);
  }
  if (!same_at(old_node, new_node, "/spec/taints")) {
    out.push_back(SCHEDHOST_ACTION_UPDATE_NODE_TAINT);
  }
  if (condition_statuses(old_node) != condition_statuses(new_node)) {
    out.push_back(SCHEDHOST_ACTION_UPDATE_NODE_CONDITION);
  }
  if (!same_at(old_node, new_node, "/metadata/annotations")) {
    out.push_back(SCHEDHOST_ACTION_UPDATE_NODE_ANNOTATION);
  }
  return out;
}

std::vector<schedhost_action_t> pod_update_actions(const cluster::Pod& old_pod,
                                                   const cluster::Pod& new_pod) {
  // Read through json_at: serve's Pods keep compact text, which this scans without parsing
  // (every status update of a running pod comes here).
  std::vector<schedhost_action_t> out;
  if (!same_at(old_pod, new_pod, "/metadata/labels")) {
    out.push_back(SCHEDHOST_ACTION_UPDATE_POD_LABEL);
  }
  if (scaled_down(old_pod, new_pod)) out.push_back(SCHEDHOST_ACTION_UPDATE_POD_SCALE_DOWN);
  if (list_size(new_pod, "/spec/schedulingGates") == 0 &&
      list_size(old_pod, "/spec/schedulingGates") != 0) {
    out.push_back(SCHEDHOST_ACTION_UPDATE_POD_SCHEDULING_GATES_ELIMINATED);
  }
  // The API server only lets tolerations be added: a different count is the change.
  if (list_size(new_pod, "/spec/tolerations") != list_size(old_pod, "/spec/tolerations")) {
    out.push_back(SCHEDHOST_ACTION_UPDATE_POD_TOLERATION);
  }
  if (!same_at(old_pod, new_pod, "/status/resourceClaimStatuses") ||
      !same_at(old_pod, new_pod, "/status/extendedResourceClaimStatus")) {
    out.push_back(SCHEDHOST_ACTION_UPDATE_POD_GENERATED_RESOURCE_CLAIM);
  }
  if (out.empty()) out.push_back(SCHEDHOST_ACTION_ANY_UPDATE);
  return out;
}

}  // namespace schedhost::live
