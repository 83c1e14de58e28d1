#include "framework/cluster_event.hpp"

#include <schedhost/detail/library_rules.hpp>

#include <array>
#include <utility>

namespace schedhost::framework {
namespace {

struct Known {
  std::string_view label;
  std::string_view resource;
  schedhost_action_t actions;
};

constexpr std::array kKnownEvents{
    Known{"NodeAdd", "Node", SCHEDHOST_ACTION_ADD},
    // The node became schedulable: upstream files it under taints.
    Known{"NodeSpecUnschedulableChange", "Node", SCHEDHOST_ACTION_UPDATE_NODE_TAINT},
    Known{"NodeAllocatableChange", "Node", SCHEDHOST_ACTION_UPDATE_NODE_ALLOCATABLE},
    Known{"NodeLabelChange", "Node", SCHEDHOST_ACTION_UPDATE_NODE_LABEL},
    Known{"NodeTaintChange", "Node", SCHEDHOST_ACTION_UPDATE_NODE_TAINT},
    Known{"NodeConditionChange", "Node", SCHEDHOST_ACTION_UPDATE_NODE_CONDITION},
    Known{"NodeAnnotationChange", "Node", SCHEDHOST_ACTION_UPDATE_NODE_ANNOTATION},
    Known{"AssignedPodAdd", "Pod", SCHEDHOST_ACTION_ADD},
    Known{"AssignedPodUpdate", "Pod", SCHEDHOST_ACTION_UPDATE},
    Known{"AssignedPodDelete", "Pod", SCHEDHOST_ACTION_DELETE},
};

}  // namespace

ClusterEvent cluster_event(std::string label) {
  ClusterEvent event;
  for (const Known& k : kKnownEvents) {
    if (k.label == label) {
      event.resource = std::string(k.resource);
      event.actions = k.actions;
      event.label = std::move(label);
      return event;
    }
  }
  event.resource = std::string(kAnyResource);
  event.actions = SCHEDHOST_ACTION_ALL;
  event.label = std::move(label);
  return event;
}

bool registration_matches(const EventRegistration& registration, const ClusterEvent& event) {
  const bool resource = registration.resource == kAnyResource || event.resource == kAnyResource ||
                        registration.resource == event.resource;
  return resource && (registration.actions & event.actions) != 0;
}

std::string check_registration(const EventRegistration& registration) {
  return library_rules::check_event_registration(registration.resource, registration.actions);
}

}  // namespace schedhost::framework
