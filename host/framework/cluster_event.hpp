// Upstream's cluster events (kube-scheduler framework/types.go): what happened to which kind of
// object, and the registrations plugins make for them (EnqueueExtensions, ABI 1.3). The live
// queue retries a rejected pod only on an event one of its rejecting plugins registered for.
#pragma once

#include <schedhost/abi.h>

#include <memory>
#include <string>
#include <string_view>

#include "cluster/node_info.hpp"
#include "cluster/pod.hpp"

namespace schedhost::framework {

// The resource of the wildcard event (the 5-minute flush) and of a registration for all.
inline constexpr std::string_view kAnyResource = "*";

struct ClusterEvent {
  std::string label;     // upstream's: NodeAdd, NodeLabelChange, AssignedPodDelete, ...
  std::string resource;  // "Node", "Pod", ... or "*"
  schedhost_action_t actions = 0;
  std::shared_ptr<const cluster::NodeInfo> node;      // node add, update: with its pods
  std::shared_ptr<const cluster::NodeInfo> old_node;  // node update: the Node as it was, no pods
  std::shared_ptr<const cluster::Pod> pod;            // pod add, update
  std::shared_ptr<const cluster::Pod> old_pod;        // pod update, delete
};

// The event upstream calls `label`, with its resource and action bits ("NodeAdd": Node, Add;
// "NodeLabelChange": Node, UpdateNodeLabel; "AssignedPodUpdate": Pod, Update). A label
// upstream does not have is the wildcard.
ClusterEvent cluster_event(std::string label);

// One plugin's registration: pods it rejected may fit after `actions` on `resource`.
struct EventRegistration {
  std::string resource;
  schedhost_action_t actions = 0;
};

// Upstream's match: the same resource (or either is "*") and a common action bit.
bool registration_matches(const EventRegistration& registration, const ClusterEvent& event);

// Why a registration is not one a plugin may make (an unknown resource, no action bit, unknown
// bits), phrased with its fix; empty when it is fine.
std::string check_registration(const EventRegistration& registration);

}  // namespace schedhost::framework
