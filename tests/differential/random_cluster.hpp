// A random cluster for the differential test: nodes, running pods and probe pods, as the JSON
// a client creates, drawn from a seed so that a failure can be reproduced. What it draws is what
// v1.35 changed or what the default profile decides on: plain and pod-level requests, pods
// resized in place (their status), zones, labels, taints, unschedulable nodes, host ports, node
// affinity, pod (anti-)affinity with matchLabelKeys, topology spreading, preemptionPolicy.
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
  std::vector<RunningPod> running;
  std::vector<nlohmann::json> probes;  // pending pods, decided one at a time
};

// Every pod is in namespace "default" or "team" (the caller makes "team").
RandomCluster make_random_cluster(std::uint32_t seed, int probe_count);

}  // namespace schedhost::testing::differential
