// Informer events as upstream v1.35's cluster events (framework/events.go): which properties an
// update changed, one event for each. With queueing hints GA, v1.35 moves unschedulable pods on
// an event through the hints alone (its pre-checks of v1.28 are off); which plugins registered
// the event, and what their hints say, is the framework's part (Framework::worth_requeuing).
#pragma once

#include <schedhost/abi.h>

#include <nlohmann/json.hpp>
#include <vector>

#include "cluster/pod.hpp"
#include "framework/cluster_event.hpp"

namespace schedhost::live {

using framework::ClusterEvent;

// upstream's NodeSchedulingPropertiesChange: one SCHEDHOST_ACTION_UPDATE_NODE_* bit per property
// that changed, in its order: spec.unschedulable turned false (a taint change), allocatable,
// labels, taints, conditions (type -> status), annotations. Empty when none did (heartbeats,
// images): such an update moves no pod.
std::vector<schedhost_action_t> node_update_actions(const nlohmann::json& old_node,
                                                    const nlohmann::json& new_node);

// upstream's PodSchedulingPropertiesChange: one SCHEDHOST_ACTION_UPDATE_POD_* bit per property
// that changed, in its order: labels, a request scaled down or removed, the last scheduling gate
// removed, tolerations added, the generated resource claims' status; {ANY_UPDATE} when none did.
std::vector<schedhost_action_t> pod_update_actions(const cluster::Pod& old_pod,
                                                   const cluster::Pod& new_pod);

}  // namespace schedhost::live
