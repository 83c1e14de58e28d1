// Inputs for the `schedhost exercise` tests: a cluster, pods, and the fixture plugin libraries
// (the built-ins, tests/scheduler's cycle_plugins.so, tests/sdk's wrapper_fixture.so and
// Staged, built in this folder).
#pragma once

#include <string>

#include "support/fixtures.hpp"

namespace schedhost::testing {

inline std::string cycle_plugins_library() {
  return std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/scheduler/cycle_plugins.so";
}
inline std::string wrapper_fixture_library() {
  return std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/sdk/wrapper_fixture.so";
}
// Staged (tests/exercise/fixtures/staged_plugin.cpp).
inline std::string staged_library() {
  return std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/exercise/staged_plugin.so";
}

// Three nodes, in this order:
//   node-a  gpu-type=nvidia, 2 GPUs free, zone z1, 4 cpu with 1 requested (25%)
//   node-b  gpu-type=nvidia, its 1 GPU taken, zone z2, 2 cpu with 1 requested (50%)
//   worker-c  no gpu-type label, 8 cpu with 6 requested (75%)
// and a pending pod, which exercise ignores.
inline constexpr const char* kExerciseCluster = R"(apiVersion: v1
kind: Node
metadata:
  name: node-a
  labels: {gpu-type: nvidia, topology.kubernetes.io/zone: z1}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110", nvidia.com/gpu: "2"}
---
apiVersion: v1
kind: Node
metadata:
  name: node-b
  labels: {gpu-type: nvidia, topology.kubernetes.io/zone: z2}
status:
  allocatable: {cpu: "2", memory: 8Gi, pods: "110", nvidia.com/gpu: "1"}
---
apiVersion: v1
kind: Node
metadata:
  name: worker-c
status:
  allocatable: {cpu: "8", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata: {name: db-0, namespace: data}
spec:
  nodeName: node-a
  containers:
    - name: db
      image: postgres
      resources: {requests: {cpu: "1"}}
---
apiVersion: v1
kind: Pod
metadata: {name: trainer, namespace: ml}
spec:
  nodeName: node-b
  containers:
    - name: train
      image: trainer
      resources: {requests: {cpu: "1", nvidia.com/gpu: "1"}}
---
apiVersion: v1
kind: Pod
metadata: {name: batch, namespace: data}
spec:
  nodeName: worker-c
  containers:
    - name: batch
      image: batch
      resources: {requests: {cpu: "6"}}
---
apiVersion: v1
kind: Pod
metadata: {name: pending, namespace: default}
spec:
  containers:
    - name: app
      image: app
      resources: {requests: {cpu: "3"}}
)";

// The pod to exercise: prod/web-1 asking for one GPU.
inline constexpr const char* kExercisePod = R"(apiVersion: v1
kind: Pod
metadata:
  name: web-1
  namespace: prod
spec:
  containers:
    - name: web
      image: web:1
      resources:
        requests: {cpu: 500m, nvidia.com/gpu: "1"}
)";

}  // namespace schedhost::testing
