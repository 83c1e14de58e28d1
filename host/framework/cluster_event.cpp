#include "framework/cluster_event.hpp"

#include <algorithm>
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

constexpr std::array<std::string_view, 8> kResources{
    "Pod",
    "Node",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "storage.k8s.io/StorageClass",
    "storage.k8s.io/CSINode",
    "storage.k8s.io/CSIDriver",
    "storage.k8s.io/CSIStorageCapacity"};

// Upstream's form for any other kind: <plural>.<version>.<group>, at least two dots, no slash.
bool is_custom_resource(std::string_view r) {
  if (r.empty() || r.find('/') != std::string_view::npos || r.front() == '.' ||
      r.back() == '.' || r.find("..") != std::string_view::npos) {
    return false;
  }
  return std::count(r.begin(), r.end(), '.') >= 2;
}

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
  const std::string& r = registration.resource;
  const bool known = r == kAnyResource ||
                     std::find(kResources.begin(), kResources.end(), r) != kResources.end() ||
                     is_custom_resource(r);
  if (!known) {
    std::string names;
    for (std::string_view k : kResources)
      names += std::string(names.empty() ? "" : ", ") + std::string(k);
    return "registers events for \"" + r + "\", which is not a resource: use one of " + names +
           ", \"*\", or \"<plural>.<version>.<group>\" for another kind";
  }
  if (registration.actions == 0 || (registration.actions & ~SCHEDHOST_ACTION_ALL) != 0) {
    return "registers events for \"" + r + "\" with action bits " +
           std::to_string(registration.actions) +
           ": use SCHEDHOST_ACTION_* bits (1 to " + std::to_string(SCHEDHOST_ACTION_ALL) + ")";
  }
  return {};
}

}  // namespace schedhost::framework
