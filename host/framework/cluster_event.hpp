// Upstream's cluster events (kube-scheduler v1.35 framework/types.go, events.go): what happened to
// which kind of object, and the registrations plugins make for them (EnqueueExtensions, ABI 1.3).
// The live queue retries a rejected pod only on an event one of its rejecting plugins registered
// for, and whose queueing hint does not say Skip.
#pragma once

#include <schedhost/abi.h>

#include <memory>
#include <string>
#include <string_view>

#include "cluster/api_object.hpp"
#include "cluster/node_info.hpp"
#include "cluster/pod.hpp"

namespace schedhost::framework {

// The resource of the wildcard event (the 5-minute flush) and of a registration for all.
inline constexpr std::string_view kAnyResource = "*";

struct ClusterEvent {
  std::string label;     // upstream's: NodeAdd, NodeUpdateNodeLabel, AssignedPodDelete, ...
  std::string resource;  // "Node", "Pod", ... or "*"
  schedhost_action_t actions = 0;
  bool pending_pod = false;  // the update of the pending pod itself (UnschedulablePod...)
  std::shared_ptr<const cluster::NodeInfo> node;      // node add, update: with its pods
  std::shared_ptr<const cluster::NodeInfo> old_node;  // node update: the Node as it was; delete
  std::shared_ptr<const cluster::Pod> pod;            // pod add, update
  std::shared_ptr<const cluster::Pod> old_pod;        // pod update, delete
  // Events on the other kinds (ABI 1.8: PersistentVolume, storage.k8s.io/StorageClass...).
  std::shared_ptr<const cluster::ApiObject> object;      // add, update
  std::shared_ptr<const cluster::ApiObject> old_object;  // update, delete
};

// Upstream's events, labelled as v1.35 labels them (resource, then the action's name): a node's
// ("NodeUpdateNodeTaint"), an assigned pod's ("AssignedPodUpdatePodLabel"), and the pending pod's
// own update ("UnschedulablePodUpdatePodToleration"). action is one SCHEDHOST_ACTION_* bit, or
// SCHEDHOST_ACTION_ANY_UPDATE for an update of no particular kind.
ClusterEvent node_event(schedhost_action_t action);
ClusterEvent assigned_pod_event(schedhost_action_t action);
ClusterEvent pending_pod_event(schedhost_action_t action);
// An event on another kind of object (ABI 1.8), labelled as upstream's ClusterEvent.Label():
// "PersistentVolumeAdd", "storage.k8s.io/StorageClassUpdate". action is ADD, DELETE or
// SCHEDHOST_ACTION_ANY_UPDATE (upstream sends these kinds' updates as Update).
ClusterEvent object_event(std::string_view resource, schedhost_action_t action);

// One plugin's registration: pods it rejected may fit after `actions` on `resource`.
struct EventRegistration {
  std::string resource;
  schedhost_action_t actions = 0;
};

// Upstream's MatchClusterEvents: the same resource (or either is "*"), a common action bit, and
// the event's bits not above the registration's (so an update of no particular kind reaches only
// registrations of every update).
bool registration_matches(const EventRegistration& registration, const ClusterEvent& event);

// Why a registration is not one a plugin may make (an unknown resource, no action bit, unknown
// bits), phrased with its fix; empty when it is fine.
std::string check_registration(const EventRegistration& registration);

// A library built against ABI 1.3-1.6 knew v1.28's bits: its registration as it meant it (abi.h:
// UPDATE on "Pod" or "*" is every update, ALL is every bit), and an event as its hint expects it
// (a pod update is UPDATE, labels are v1.28's: "NodeLabelChange", "AssignedPodUpdate").
inline constexpr std::uint32_t kFirstMinorWithV135Events = 7;
EventRegistration legacy_registration(EventRegistration registration);
struct LegacyView {
  schedhost_action_t actions = 0;
  std::string label;
};
LegacyView legacy_view(const ClusterEvent& event);

}  // namespace schedhost::framework
