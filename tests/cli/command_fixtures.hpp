// Inputs for `schedhost run` and `schedhost validate` tests: profiles that use only the plugins the
// build has (the built-ins and the fixture libraries), and small cluster files.
#pragma once

#include <string>

#include "support/fixtures.hpp"

namespace schedhost::testing {

// The C++-wrapper fixture library: Scripted, ArgsEcho, NoArgs, StateCounter, Inspector.
inline std::string wrapper_fixture() {
  return std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/sdk/wrapper_fixture.so";
}

// The upstream defaults turned off, and only installed plugins enabled: resolves without warnings
// against the built-ins plus loader_fixture("valid") (FixtureFilter, FixtureScore).
inline constexpr const char* kFixtureProfile = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: default-scheduler
    plugins:
      multiPoint:
        disabled:
          - name: '*'
      queueSort:
        enabled:
          - name: PrioritySort
      filter:
        enabled:
          - name: FixtureFilter
      score:
        enabled:
          - name: FixtureScore
            weight: 2
      bind:
        enabled:
          - name: DefaultBinder
)";

inline constexpr const char* kTwoNodesOnePod = R"(apiVersion: v1
kind: Node
metadata:
  name: node-a
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata:
  name: node-b
status:
  allocatable: {cpu: "2", memory: 4Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata:
  name: web-1
  namespace: default
spec:
  containers:
    - name: web
      image: nginx
      resources:
        requests: {cpu: 500m}
)";

// A scratch directory holding the fixture plugin library as valid.so, for --plugin-dir.
class FixturePluginDir : public ScratchDir {
 public:
  FixturePluginDir() { copy_in(loader_fixture("valid"), "valid.so"); }
};

}  // namespace schedhost::testing
