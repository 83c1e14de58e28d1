// schedhost/detail/action_names.hpp - upstream's names of the SCHEDHOST_ACTION_* values, and the
// labels of cluster events built from them ("Node" + "UpdateNodeLabel"), as kube-scheduler v1.35
// prints them in its metrics and logs. Shared by the host and the fake host.
#pragma once

#include <schedhost/abi.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace schedhost::detail {

// Upstream's ActionType.String(): one bit's name, "Update" or "All"; empty for another set.
inline std::string_view action_name(std::uint32_t actions) {
  switch (actions) {
    case SCHEDHOST_ACTION_ADD:
      return "Add";
    case SCHEDHOST_ACTION_DELETE:
      return "Delete";
    case SCHEDHOST_ACTION_UPDATE_NODE_ALLOCATABLE:
      return "UpdateNodeAllocatable";
    case SCHEDHOST_ACTION_UPDATE_NODE_LABEL:
      return "UpdateNodeLabel";
    case SCHEDHOST_ACTION_UPDATE_NODE_TAINT:
      return "UpdateNodeTaint";
    case SCHEDHOST_ACTION_UPDATE_NODE_CONDITION:
      return "UpdateNodeCondition";
    case SCHEDHOST_ACTION_UPDATE_NODE_ANNOTATION:
      return "UpdateNodeAnnotation";
    case SCHEDHOST_ACTION_UPDATE_NODE_DECLARED_FEATURE:
      return "UpdateNodeDeclaredFeature";
    case SCHEDHOST_ACTION_UPDATE_POD_LABEL:
      return "UpdatePodLabel";
    case SCHEDHOST_ACTION_UPDATE_POD_SCALE_DOWN:
      return "UpdatePodScaleDown";
    case SCHEDHOST_ACTION_UPDATE_POD_TOLERATION:
      return "UpdatePodToleration";
    case SCHEDHOST_ACTION_UPDATE_POD_SCHEDULING_GATES_ELIMINATED:
      return "UpdatePodSchedulingGatesEliminated";
    case SCHEDHOST_ACTION_UPDATE_POD_GENERATED_RESOURCE_CLAIM:
      return "UpdatePodGeneratedResourceClaim";
    case SCHEDHOST_ACTION_ANY_UPDATE:
      return "Update";
    case SCHEDHOST_ACTION_ANY:
      return "All";
    default:
      return {};
  }
}

// An event's label: its resource as upstream's queue names it ("Node", "AssignedPod",
// "UnschedulablePod", ...) followed by the action's name: "NodeUpdateNodeTaint".
inline std::string event_label(std::string_view resource, std::uint32_t actions) {
  return std::string(resource) + std::string(action_name(actions));
}

}  // namespace schedhost::detail
