// Informer events as upstream's cluster events (kube-scheduler v1.28, eventhandlers.go): which
// event a change is (a node's update by what changed in it, first match wins), and which
// unschedulable pods it may help, so only those are tried again. Node updates that change nothing
// a plugin filters on (annotations, images, heartbeats) and node deletions move no pod, as
// upstream; an assigned pod that arrives helps only the pods whose required pod affinity it
// matches.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "cluster/node.hpp"
#include "cluster/node_info.hpp"
#include "cluster/pod.hpp"

namespace schedhost::live {

struct ClusterEvent {
  std::string label;  // upstream's: NodeAdd, NodeLabelChange, AssignedPodDelete, ...
  // NodeAdd and node updates: the node as it is now, with its pods (for the pre-check).
  std::shared_ptr<const cluster::NodeInfo> node;
  // AssignedPodAdd and AssignedPodUpdate: the pod (for the affinity match).
  std::shared_ptr<const cluster::Pod> pod;
};

// The event a node update is, by upstream's order: spec.unschedulable turned false, then
// allocatable, labels, taints, conditions (type -> status); nullopt for anything else.
std::optional<std::string> node_update_event(const nlohmann::json& old_node,
                                             const nlohmann::json& new_node);

// Whether an unschedulable pod is worth moving on this event: upstream's preCheckForNode for node
// events (the pod's nodeName, nodeSelector, required node affinity, resources and host ports
// against the node, and its NoSchedule taints tolerated), the required pod-affinity match for an
// assigned pod's add or update, and true for the rest.
bool may_help(const ClusterEvent& event, const cluster::Pod& pod);

}  // namespace schedhost::live
