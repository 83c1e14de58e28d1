// A random cluster for the differential test: nodes, running pods and probe pods, as the JSON
// a client creates, drawn from a seed so that a failure can be reproduced. What it draws is what
// v1.35 changed or what the default profile decides on: plain and pod-level requests, pods
// resized in place (their status), zones, labels, taints, unschedulable nodes, host ports, node
// affinity, pod (anti-)affinity with matchLabelKeys, topology spreading, preemptionPolicy; and what
// issue 19 added to the default profile: claims bound to zonal, node-local and CSI volumes, CSI
// attach limits, ReadWriteOncePod claims, GCE PD disk conflicts, claims that cannot bind or do not
// exist, and the Services and ReplicaSets that give pods PodTopologySpread's system defaults.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace schedhost::testing::differential {

// A running pod and, when it was resized in place, the status the kubelet would have written.
struct RunningPod {
  nlohmann::json pod;     // with spec.nodeName set
  nlohmann::json status;  // {} when there is no status to write
};

struct RandomCluster {
  std::vector<nlohmann::json> nodes;  // each with its status (allocatable, capacity)
  // Created after the nodes and before the pods, in order: StorageClasses, PersistentVolumes,
  // claims, CSINodes, Services, ReplicaSets. Every volume is claimed (spec.claimRef) and every
  // claim that is bound is fully bound (the PV controller's annotation), so no binding waits for
  // a controller: a probe either needs no volume write or cannot be placed.
  std::vector<nlohmann::json> objects;
  std::vector<RunningPod> running;
  std::vector<nlohmann::json> probes;  // pending pods, decided one at a time
};

// Every pod is in namespace "default" or "team" (the caller makes "team"). A pod a ReplicaSet
// controls carries an ownerReference with an empty uid: the caller fills in the uid the API
// server gave the ReplicaSet of that name.
RandomCluster make_random_cluster(std::uint32_t seed, int probe_count);

}  // namespace schedhost::testing::differential
