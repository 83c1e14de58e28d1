// Informer events as upstream's cluster events (kube-scheduler v1.28, eventhandlers.go): which
// event a change is (a node's update by what changed in it, first match wins), and upstream's
// pre-checks of the unschedulable pods it may help. Node updates that change nothing a plugin
// reads (images, heartbeats) and node deletions move no pod, as upstream; an assigned pod that
// arrives helps only the pods whose required pod affinity it matches. Which plugins registered
// the event is the framework's part (Framework::worth_requeuing).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "cluster/node.hpp"
#include "cluster/node_info.hpp"
#include "cluster/pod.hpp"
#include "framework/cluster_event.hpp"

namespace schedhost::live {

using framework::ClusterEvent;

// The event a node update is, by upstream's order: spec.unschedulable turned false, then
// allocatable, labels, taints, conditions (type -> status), then (not in upstream 1.28, for
// plugins that read them) annotations; nullopt for anything else (heartbeats, images).
std::optional<std::string> node_update_event(const nlohmann::json& old_node,
                                             const nlohmann::json& new_node);

// Whether an unschedulable pod is worth moving on this event: upstream's preCheckForNode for node
// events (the pod's nodeName, nodeSelector, required node affinity, resources and host ports
// against the node, and its NoSchedule taints tolerated), the required pod-affinity match for an
// assigned pod's add or update, and true for the rest.
bool may_help(const ClusterEvent& event, const cluster::Pod& pod);

}  // namespace schedhost::live
