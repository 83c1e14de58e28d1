#include "framework/cluster_event.hpp"

#include <schedhost/detail/action_names.hpp>
#include <schedhost/detail/library_rules.hpp>

#include <array>
#include <utility>

namespace schedhost::framework {
namespace {

ClusterEvent event_of(std::string_view resource, std::string_view label_resource,
                      schedhost_action_t action) {
  ClusterEvent event;
  event.resource = std::string(resource);
  event.actions = action;
  event.label = schedhost::detail::event_label(label_resource, action);
  return event;
}

// v1.28's labels of the node updates (its NodeSpecUnschedulableChange is a taint change here).
struct LegacyNodeLabel {
  schedhost_action_t action;
  std::string_view label;
};
constexpr std::array kLegacyNodeLabels{
    LegacyNodeLabel{SCHEDHOST_ACTION_ADD, "NodeAdd"},
    LegacyNodeLabel{SCHEDHOST_ACTION_DELETE, "NodeDelete"},
    LegacyNodeLabel{SCHEDHOST_ACTION_UPDATE_NODE_ALLOCATABLE, "NodeAllocatableChange"},
    LegacyNodeLabel{SCHEDHOST_ACTION_UPDATE_NODE_LABEL, "NodeLabelChange"},
    LegacyNodeLabel{SCHEDHOST_ACTION_UPDATE_NODE_TAINT, "NodeTaintChange"},
    LegacyNodeLabel{SCHEDHOST_ACTION_UPDATE_NODE_CONDITION, "NodeConditionChange"},
    LegacyNodeLabel{SCHEDHOST_ACTION_UPDATE_NODE_ANNOTATION, "NodeAnnotationChange"},
};

}  // namespace

ClusterEvent node_event(schedhost_action_t action) {
  return event_of("Node", "Node", action);
}

ClusterEvent assigned_pod_event(schedhost_action_t action) {
  return event_of("Pod", "AssignedPod", action);
}

ClusterEvent object_event(std::string_view resource, schedhost_action_t action) {
  return event_of(resource, resource, action);
}

ClusterEvent pending_pod_event(schedhost_action_t action) {
  ClusterEvent event = event_of("Pod", "UnschedulablePod", action);
  event.pending_pod = true;
  return event;
}

bool registration_matches(const EventRegistration& registration, const ClusterEvent& event) {
  const bool resource = registration.resource == kAnyResource || event.resource == kAnyResource ||
                        registration.resource == event.resource;
  return resource && (registration.actions & event.actions) != 0 &&
         event.actions <= registration.actions;
}

std::string check_registration(const EventRegistration& registration) {
  return library_rules::check_event_registration(registration.resource, registration.actions);
}

EventRegistration legacy_registration(EventRegistration registration) {
  if (registration.actions == SCHEDHOST_ACTION_ALL) {
    registration.actions = SCHEDHOST_ACTION_ANY;
  } else if ((registration.resource == "Pod" || registration.resource == kAnyResource) &&
             (registration.actions & SCHEDHOST_ACTION_UPDATE) != 0) {
    registration.actions |= SCHEDHOST_ACTION_ANY_UPDATE;
  }
  return registration;
}

LegacyView legacy_view(const ClusterEvent& event) {
  LegacyView view{event.actions, event.label};
  if (event.resource == "Node") {
    for (const LegacyNodeLabel& l : kLegacyNodeLabels) {
      if (l.action == event.actions) view.label = std::string(l.label);
    }
  } else if (event.resource == "Pod") {
    const bool update = (event.actions & SCHEDHOST_ACTION_ANY_UPDATE) != 0;
    if (update) view.actions = SCHEDHOST_ACTION_UPDATE;
    view.label = schedhost::detail::event_label(
        "AssignedPod", update ? schedhost_action_t{SCHEDHOST_ACTION_ANY_UPDATE} : event.actions);
  }
  return view;
}

}  // namespace schedhost::framework
