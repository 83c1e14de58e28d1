#include "cluster/pod.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cluster/object_error.hpp"
#include "test_yaml.hpp"

namespace schedhost::cluster {
namespace {

using testing::yaml;

constexpr int64_t kMi = 1024 * 1024;

Pod pod_from(const std::string& text) {
  return Pod(yaml(text));
}

// The ObjectError a pod raises, as "pointer | message".
std::string pod_error(const std::string& text) {
  try {
    pod_from(text);
  } catch (const ObjectError& e) {
    return e.pointer() + " | " + e.what();
  }
  return "no error";
}

TEST(PodTest, DefaultsWhenFieldsAreUnset) {
  Pod pod = pod_from("metadata: {name: web}\nspec: {containers: [{name: c}]}");
  EXPECT_EQ(pod.name(), "web");
  EXPECT_EQ(pod.namespace_name(), "default");
  EXPECT_EQ(pod.key(), "default/web");
  EXPECT_EQ(pod.uid(), "uid-default-web");
  EXPECT_EQ(pod.node_name(), "");
  EXPECT_EQ(pod.scheduler_name(), "default-scheduler");
  EXPECT_EQ(pod.priority_class_name(), "");
  EXPECT_EQ(pod.nominated_node_name(), "");
  EXPECT_EQ(pod.preemption_policy(), "PreemptLowerPriority");
  EXPECT_EQ(pod.phase(), "");
  EXPECT_EQ(pod.priority(), 0);
  EXPECT_EQ(pod.start_time_ms(), 0);
  EXPECT_EQ(pod.creation_time_ms(), 0);
  EXPECT_FALSE(pod.terminating());
  EXPECT_TRUE(pod.labels().empty());
  EXPECT_TRUE(pod.requests().empty());
  EXPECT_FALSE(pod.has_affinity());
  EXPECT_FALSE(pod.has_required_anti_affinity());
  EXPECT_EQ(Pod(yaml("metadata: {name: web}"), "").namespace_name(), "");
}

TEST(PodTest, ReadsEveryTypedField) {
  Pod pod = pod_from(R"(
apiVersion: v1
kind: Pod
metadata:
  name: web-1
  namespace: shop
  uid: 1234-abcd
  labels: {app: web, tier: "2"}
  annotations: {example.com/owner: team-a}
  creationTimestamp: "2024-01-02T03:04:05Z"
  deletionTimestamp: "2024-01-02T03:05:00.250+01:00"
spec:
  nodeName: node-a
  schedulerName: my-scheduler
  priorityClassName: high
  priority: 1000
  preemptionPolicy: Never
  nodeSelector: {disk: ssd, zone: z1}
  tolerations:
  - {key: dedicated, operator: Equal, value: gpu, effect: NoSchedule}
  - {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}
  - {key: plain, value: v}
  containers:
  - name: app
    image: nginx:1.25
    ports:
    - {containerPort: 80, hostPort: 8080}
    - {containerPort: 53, hostPort: 53, protocol: UDP, hostIP: 10.0.0.1}
    - {containerPort: 9090}
    - {containerPort: 9091, hostPort: 0}
  - name: log
    image: fluentd
  initContainers:
  - name: setup
    image: busybox
    ports: [{containerPort: 70, hostPort: 7070}]
  - name: mesh
    image: envoy
    restartPolicy: Always
    ports: [{containerPort: 15001, hostPort: 15001}]
status:
  phase: Running
  nominatedNodeName: node-b
  startTime: "1970-01-01T00:00:01.5Z"
)");
  EXPECT_EQ(pod.key(), "shop/web-1");
  EXPECT_EQ(pod.uid(), "1234-abcd");
  EXPECT_EQ(pod.node_name(), "node-a");
  EXPECT_EQ(pod.scheduler_name(), "my-scheduler");
  EXPECT_EQ(pod.priority_class_name(), "high");
  EXPECT_EQ(pod.priority(), 1000);
  EXPECT_EQ(pod.preemption_policy(), "Never");
  EXPECT_EQ(pod.phase(), "Running");
  EXPECT_EQ(pod.nominated_node_name(), "node-b");
  EXPECT_EQ(pod.creation_time_ms(), 1704164645000);
  EXPECT_EQ(pod.start_time_ms(), 1500);
  EXPECT_TRUE(pod.terminating());
  EXPECT_EQ(pod.labels(), StringMap({{"app", "web"}, {"tier", "2"}}));
  EXPECT_EQ(pod.annotations(), (StringMap{{"example.com/owner", "team-a"}}));
  EXPECT_EQ(pod.node_selector(), StringMap({{"disk", "ssd"}, {"zone", "z1"}}));
  EXPECT_EQ(pod.tolerations(), (std::vector<Toleration>{
                                   {"dedicated", "Equal", "gpu", "NoSchedule", std::nullopt},
                                   {"node.kubernetes.io/not-ready", "Exists", "", "NoExecute", 300},
                                   {"plain", "Equal", "v", "", std::nullopt}}));
  // Sidecars' first (v1.35), then the regular containers'; a plain init container's port is
  // not held; hostPort 0 and ports without one are not host ports.
  EXPECT_EQ(pod.host_ports(),
            (std::vector<HostPort>{
                {"0.0.0.0", "TCP", 15001}, {"0.0.0.0", "TCP", 8080}, {"10.0.0.1", "UDP", 53}}));
  EXPECT_EQ(pod.containers(),
            (std::vector<Container>{{"app", "nginx:1.25", ContainerKind::kRegular},
                                    {"log", "fluentd", ContainerKind::kRegular},
                                    {"setup", "busybox", ContainerKind::kInit},
                                    {"mesh", "envoy", ContainerKind::kSidecar}}));
}

TEST(PodTest, SumsRegularContainers) {
  Pod pod = pod_from(R"(
metadata: {name: p}
spec:
  containers:
  - resources: {requests: {cpu: 100m, memory: 1Gi}}
  - resources: {requests: {cpu: "0.2", nvidia.com/gpu: 1, ephemeral-storage: 1G}}
  - resources: {}
  - name: no-resources
)");
  EXPECT_EQ(pod.requests(), (ResourceList{{"cpu", 300},
                                          {"ephemeral-storage", 1000000000},
                                          {"memory", 1024 * kMi},
                                          {"nvidia.com/gpu", 1}}));
}

TEST(PodTest, InitContainerLargerThanTheSumWins) {
  Pod pod = pod_from(R"(
metadata: {name: p}
spec:
  initContainers:
  - resources: {requests: {cpu: 500m, memory: 50Mi}}
  - resources: {requests: {cpu: 100m, memory: 200Mi, example.com/foo: 3}}
  containers:
  - resources: {requests: {cpu: 100m, memory: 60Mi}}
  - resources: {requests: {cpu: 200m, memory: 40Mi}}
)");
  EXPECT_EQ(pod.requests(),
            (ResourceList{{"cpu", 500}, {"example.com/foo", 3}, {"memory", 200 * kMi}}));
}

TEST(PodTest, SidecarsRunWithTheContainersAndLaterInitContainers) {
  // total = main 1 + sidecars 1 + 3 = 5 cpu; the plain init container runs next to the first
  // sidecar: 10 + 1 = 11 cpu, the peak. Memory: 50Mi + 100Mi running, 100Mi at the init peak.
  Pod pod = pod_from(R"(
metadata: {name: p}
spec:
  initContainers:
  - name: sidecar-1
    restartPolicy: Always
    resources: {requests: {cpu: 1, memory: 100Mi}}
  - name: init
    resources: {requests: {cpu: 10}}
  - name: sidecar-2
    restartPolicy: Always
    resources: {requests: {cpu: 3}}
  containers:
  - resources: {requests: {cpu: 1, memory: 50Mi}}
)");
  EXPECT_EQ(pod.requests(), (ResourceList{{"cpu", 11000}, {"memory", 150 * kMi}}));

  Pod small_init = pod_from(R"(
metadata: {name: p}
spec:
  initContainers:
  - {restartPolicy: Always, resources: {requests: {cpu: 1}}}
  - resources: {requests: {cpu: 2}}
  - {restartPolicy: Always, resources: {requests: {cpu: 3}}}
  containers:
  - resources: {requests: {cpu: 1}}
)");
  EXPECT_EQ(small_init.requests(), (ResourceList{{"cpu", 5000}}));  // 1 + 1 + 3 > 2 + 1
}

TEST(PodTest, OverheadIsAddedOnTop) {
  Pod pod = pod_from(R"(
metadata: {name: p}
spec:
  overhead: {cpu: 250m, memory: 120Mi}
  initContainers:
  - resources: {requests: {cpu: 2}}
  containers:
  - resources: {requests: {cpu: 1}}
)");
  EXPECT_EQ(pod.requests(), (ResourceList{{"cpu", 2250}, {"memory", 120 * kMi}}));
  EXPECT_EQ(pod.nonzero_requests(), (ResourceList{{"cpu", 2250}, {"memory", 320 * kMi}}));
}

TEST(PodTest, LimitsStandInForMissingRequests) {
  Pod pod = pod_from(R"(
metadata: {name: p}
spec:
  containers:
  - resources:
      requests: {cpu: 500m}
      limits: {cpu: 2, memory: 1Gi}
)");
  EXPECT_EQ(pod.requests(), (ResourceList{{"cpu", 500}, {"memory", 1024 * kMi}}));
}

TEST(PodTest, SumsExactlyBeforeRounding) {
  // Upstream adds Quantities and rounds once: 0.5m + 0.5m is 1m, 0.5 + 0.5 bytes is 1 byte.
  Pod pod = pod_from(R"(
metadata: {name: p}
spec:
  containers:
  - resources: {requests: {cpu: "0.0005", memory: 500m}}
  - resources: {requests: {cpu: "0.0005", memory: 500m}}
)");
  EXPECT_EQ(pod.requests(), (ResourceList{{"cpu", 1}, {"memory", 1}}));
}

TEST(PodTest, PodsRequestedByContainersStayInThePodList) {
  Pod pod =
      pod_from("metadata: {name: p}\nspec: {containers: [{resources: {requests: {pods: 1}}}]}");
  EXPECT_EQ(pod.requests(), (ResourceList{{"pods", 1}}));
}

TEST(PodTest, NonzeroRequestsDefaultMissingCpuAndMemory) {
  Pod pod = pod_from(R"(
metadata: {name: p}
spec:
  containers:
  - name: nothing
  - resources: {requests: {cpu: 0, memory: 1Gi, nvidia.com/gpu: 1}}
)");
  EXPECT_EQ(pod.requests(),
            (ResourceList{{"cpu", 0}, {"memory", 1024 * kMi}, {"nvidia.com/gpu", 1}}));
  // 100m for the first container; the explicit 0 stays 0. Memory: 200Mi + 1Gi.
  EXPECT_EQ(pod.nonzero_requests(),
            (ResourceList{{"cpu", 100}, {"memory", 1224 * kMi}, {"nvidia.com/gpu", 1}}));
}

TEST(PodTest, NonzeroRequestsCountInitContainersAndSidecars) {
  Pod pod = pod_from(R"(
metadata: {name: p}
spec:
  initContainers:
  - name: empty-init
  containers:
  - resources: {requests: {cpu: 50m, memory: 10Mi}}
)");
  EXPECT_EQ(pod.requests(), (ResourceList{{"cpu", 50}, {"memory", 10 * kMi}}));
  EXPECT_EQ(pod.nonzero_requests(), (ResourceList{{"cpu", 100}, {"memory", 200 * kMi}}));

  Pod with_sidecar = pod_from(R"(
metadata: {name: p}
spec:
  initContainers:
  - {name: mesh, restartPolicy: Always}
  containers:
  - resources: {requests: {cpu: 1}}
)");
  EXPECT_EQ(with_sidecar.requests(), (ResourceList{{"cpu", 1000}}));
  EXPECT_EQ(with_sidecar.nonzero_requests(), (ResourceList{{"cpu", 1100}, {"memory", 400 * kMi}}));
}

// Pod-level resources (v1.35, PodLevelResources on): the pod's own requests for cpu, memory and
// hugepages replace what its containers add up to, the others still come from the containers;
// the non-zero defaults of containers without requests are replaced too.
TEST(PodTest, PodLevelRequestsReplaceTheContainersTotalForCpuMemoryAndHugepages) {
  Pod pod = pod_from(R"(
metadata: {name: p}
spec:
  overhead: {cpu: 100m}
  resources:
    requests: {cpu: "3", memory: 2Gi, hugepages-2Mi: 4Mi, example.com/foo: "9"}
  containers:
  - name: plain
  - resources: {requests: {cpu: 500m, example.com/foo: "1"}}
)");
  // example.com/foo is not a pod-level resource: the container's 1 counts, the 9 does not.
  EXPECT_EQ(pod.requests(), (ResourceList{{"cpu", 3100},
                                          {"example.com/foo", 1},
                                          {"hugepages-2Mi", 4 * kMi},
                                          {"memory", 2048 * kMi}}));
  // On its node it counts its requests (cpu and memory are set at pod level: no defaults).
  EXPECT_EQ(pod.node_nonzero_requests(), pod.requests());
  // NodeResourcesFit scores it by its containers, with the defaults (upstream v1.35's scorer
  // leaves pod-level requests out): 100m + 500m + the 100m overhead, 200Mi twice.
  EXPECT_EQ(pod.nonzero_requests(),
            (ResourceList{{"cpu", 700}, {"example.com/foo", 1}, {"memory", 400 * kMi}}));
}

// A running pod with pod-level requests gets the scoring defaults on its node only for cpu or
// memory that nothing in the pod requests (upstream CalculateResource), not per container.
TEST(PodTest, APodLevelPodGetsTheNodeDefaultsOnlyForWhatNothingRequests) {
  const Pod pod = pod_from(R"(
metadata: {name: p}
spec:
  resources: {requests: {cpu: "1"}}
  containers:
  - resources: {requests: {memory: 1Gi}}
  - name: nothing
)");
  EXPECT_EQ(pod.node_nonzero_requests(), (ResourceList{{"cpu", 1000}, {"memory", 1024 * kMi}}));
  const Pod none = pod_from(R"(
metadata: {name: p}
spec:
  resources: {requests: {cpu: "1"}}
  containers:
  - name: nothing
)");
  EXPECT_EQ(none.node_nonzero_requests(), (ResourceList{{"cpu", 1000}, {"memory", 200 * kMi}}));
}

// The API server's defaulting of pod-level requests, when only pod-level limits are written:
// cpu and memory from the containers' total where a container requests them, otherwise (and for
// hugepages) the pod-level limit.
TEST(PodTest, PodLevelLimitsDefaultThePodLevelRequestsAsTheApiServerDoes) {
  Pod pod = pod_from(R"(
metadata: {name: p}
spec:
  resources:
    limits: {cpu: "4", memory: 8Gi, hugepages-1Gi: 2Gi}
  containers:
  - resources: {requests: {cpu: 250m}}
  - resources: {limits: {cpu: 750m}}
  - name: nothing
)");
  EXPECT_EQ(pod.requests(),
            (ResourceList{{"cpu", 1000}, {"hugepages-1Gi", 2048 * kMi}, {"memory", 8192 * kMi}}));
  // On its node, the defaulted pod-level cpu (the plain total, 1000m) replaces the non-zero
  // total (1100m).
  EXPECT_EQ(pod.node_nonzero_requests(), pod.requests());
  // Scoring sees the containers: 250m + 750m (its limit) + 100m, and 200Mi each.
  EXPECT_EQ(pod.nonzero_requests(), (ResourceList{{"cpu", 1100}, {"memory", 600 * kMi}}));
}

// In-place resize (v1.35, GA): each container counts, per resource, the larger of what its spec
// asks and what the kubelet reports as allocated and as actually applied; while a resize is
// infeasible, only the reported ones.
TEST(PodTest, AResizedPodCountsTheLargerOfSpecAllocatedAndActual) {
  const std::string pod_text = R"(
metadata: {name: p}
spec:
  containers:
  - name: app
    resources: {requests: {cpu: "%SPEC%", memory: 1Gi}}
  - name: helper
    resources: {requests: {cpu: 100m}}
status:
  containerStatuses:
  - name: app
    allocatedResources: {cpu: "%ALLOCATED%", memory: 1Gi}
    resources: {requests: {cpu: "%ACTUAL%", memory: 512Mi}}
%CONDITIONS%
)";
  auto requests = [&](const std::string& spec, const std::string& allocated,
                      const std::string& actual, const std::string& conditions = "") {
    std::string text = pod_text;
    for (const auto& [key, value] : {std::pair<std::string, std::string>{"%SPEC%", spec},
                                     {"%ALLOCATED%", allocated},
                                     {"%ACTUAL%", actual},
                                     {"%CONDITIONS%", conditions}}) {
      text.replace(text.find(key), key.size(), value);
    }
    return pod_from(text).requests();
  };
  // Shrunk in the spec, not yet by the kubelet: still 2 cpus.
  EXPECT_EQ(requests("1", "2", "2"), (ResourceList{{"cpu", 2100}, {"memory", 1024 * kMi}}));
  // Grown in the spec, not yet allocated: the spec's 3.
  EXPECT_EQ(requests("3", "1", "1"), (ResourceList{{"cpu", 3100}, {"memory", 1024 * kMi}}));
  // Allocated but not applied yet: the allocation.
  EXPECT_EQ(requests("1", "1500m", "1"), (ResourceList{{"cpu", 1600}, {"memory", 1024 * kMi}}));
  // An infeasible resize to 8 cpus: what the kubelet reports counts, not the spec; a container
  // it reports nothing on (helper) counts its spec, as upstream v1.35.
  const std::string infeasible =
      "  conditions:\n  - {type: PodResizePending, status: \"True\", reason: Infeasible}";
  EXPECT_EQ(requests("8", "1", "1", infeasible),
            (ResourceList{{"cpu", 1100}, {"memory", 1024 * kMi}}));
  // A deferred one leaves the spec in.
  const std::string deferred =
      "  conditions:\n  - {type: PodResizePending, status: \"True\", reason: Deferred}";
  EXPECT_EQ(requests("8", "1", "1", deferred),
            (ResourceList{{"cpu", 8100}, {"memory", 1024 * kMi}}));
}

TEST(PodTest, ResizeViewsCountInitContainersAndNonzeroDefaults) {
  Pod pod = pod_from(R"(
metadata: {name: p}
spec:
  initContainers:
  - {name: mesh, restartPolicy: Always, resources: {requests: {cpu: 100m}}}
  containers:
  - name: app
status:
  initContainerStatuses:
  - {name: mesh, allocatedResources: {cpu: 300m}, resources: {}}
  containerStatuses:
  - {name: app, allocatedResources: {cpu: 200m}, resources: {}}
)");
  // Allocated: 300m + 200m beats the spec's 100m + nothing.
  EXPECT_EQ(pod.requests(), (ResourceList{{"cpu", 500}}));
  // On its node, non-zero: a missing memory request is 200Mi, per container.
  EXPECT_EQ(pod.node_nonzero_requests(), (ResourceList{{"cpu", 500}, {"memory", 400 * kMi}}));
  // Scoring reads the spec only: 100m and 0 (defaulted to 100m).
  EXPECT_EQ(pod.nonzero_requests(), (ResourceList{{"cpu", 200}, {"memory", 400 * kMi}}));
}

// The larger of the views is taken container by container, then summed (upstream v1.35
// determineEffectiveRequests): 2 + 3, where the larger of the pod's totals would be 4.
TEST(PodTest, EachContainerCountsItsOwnLargestView) {
  const Pod pod = pod_from(R"(
metadata: {name: p}
spec:
  containers:
  - {name: a, resources: {requests: {cpu: "1"}}}
  - {name: b, resources: {requests: {cpu: "3"}}}
status:
  containerStatuses:
  - {name: a, allocatedResources: {cpu: "2"}, resources: {requests: {cpu: "2"}}}
  - {name: b, allocatedResources: {cpu: "1"}, resources: {requests: {cpu: "1"}}}
)");
  EXPECT_EQ(pod.requests(), (ResourceList{{"cpu", 5000}}));
}

// Until the kubelet reports a container's resources (status `resources`), its allocation is not
// read: the spec counts. A regular init container always counts its spec.
TEST(PodTest, AContainerWhoseResourcesAreNotReportedCountsItsSpec) {
  const Pod pod = pod_from(R"(
metadata: {name: p}
spec:
  initContainers:
  - {name: setup, resources: {requests: {cpu: "1"}}}
  containers:
  - {name: app, resources: {requests: {cpu: 500m}}}
status:
  initContainerStatuses:
  - {name: setup, allocatedResources: {cpu: "4"}, resources: {requests: {cpu: "4"}}}
  containerStatuses:
  - {name: app, allocatedResources: {cpu: "2"}}
)");
  EXPECT_EQ(pod.requests(), (ResourceList{{"cpu", 1000}}));
}

TEST(PodTest, NoContainersMeansNoDefaults) {
  EXPECT_TRUE(pod_from("metadata: {name: p}\nspec: {}").nonzero_requests().empty());
}

TEST(PodTest, AffinityFlagsNeedTerms) {
  EXPECT_FALSE(pod_from("metadata: {name: p}\nspec: {affinity: {podAffinity: {}}}").has_affinity());
  EXPECT_FALSE(
      pod_from("metadata: {name: p}\nspec: {affinity: {nodeAffinity: {x: 1}}}").has_affinity());
  Pod preferred = pod_from(R"(
metadata: {name: p}
spec:
  affinity:
    podAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - {weight: 1, podAffinityTerm: {topologyKey: zone}}
)");
  EXPECT_TRUE(preferred.has_affinity());
  EXPECT_FALSE(preferred.has_required_anti_affinity());
  Pod anti = pod_from(R"(
metadata: {name: p}
spec:
  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - {topologyKey: kubernetes.io/hostname}
)");
  EXPECT_TRUE(anti.has_affinity());
  EXPECT_TRUE(anti.has_required_anti_affinity());
}

TEST(PodTest, BoundToMakesANewVersion) {
  Pod pod = pod_from("metadata: {name: web}\nspec: {containers: [{name: c}]}");
  EXPECT_EQ(pod.json_at("/spec/nodeName"), std::nullopt);
  std::shared_ptr<const Pod> bound = pod.bound_to("node-a");
  EXPECT_EQ(bound->node_name(), "node-a");
  EXPECT_EQ(bound->json_at("/spec/nodeName"), "\"node-a\"");
  EXPECT_EQ(bound->uid(), pod.uid());
  EXPECT_GT(bound->generation(), pod.generation());
  EXPECT_EQ(pod.node_name(), "");  // the original is untouched
  EXPECT_EQ(pod.json_at("/spec/nodeName"), std::nullopt);
}

TEST(PodTest, GenerationsAreDistinct) {
  Pod a = pod_from("metadata: {name: a}");
  Pod b = pod_from("metadata: {name: a}");
  EXPECT_NE(a.generation(), b.generation());
  Pod copy = a;
  EXPECT_EQ(copy.generation(), a.generation());
}

TEST(PodTest, LenientScalarsInStringFields) {
  Pod pod = pod_from("metadata: {name: p, labels: {version: 2, enabled: true, empty: null}}");
  EXPECT_EQ(pod.labels(), StringMap({{"empty", ""}, {"enabled", "true"}, {"version", "2"}}));
}

TEST(PodTest, QuantitiesMayBeNumbers) {
  Pod pod = pod_from(R"(
metadata: {name: p}
spec:
  containers:
  - resources: {requests: {cpu: 0.5, memory: 1e3, example.com/foo: 2}}
)");
  EXPECT_EQ(pod.requests(), (ResourceList{{"cpu", 500}, {"example.com/foo", 2}, {"memory", 1000}}));
}

TEST(PodTest, RejectsFieldsItCannotAccept) {
  EXPECT_EQ(
      pod_error("metadata: {name: p}\nspec: {containers: [{resources: {requests: {cpu: abc}}}]}"),
      "/spec/containers/0/resources/requests/cpu | spec.containers[0].resources.requests.cpu "
      "\"abc\" is not a valid quantity: use a number with an optional suffix such as 500m or 2");
  EXPECT_EQ(
      pod_error("metadata: {name: p}\nspec: {initContainers: [{resources: {limits: "
                "{example.com/foo: 1x}}}]}"),
      "/spec/initContainers/0/resources/limits/example.com~1foo | "
      "spec.initContainers[0].resources.limits[example.com/foo] \"1x\" is not a valid quantity: "
      "use a number with an optional suffix such as 500m or 2");
  EXPECT_EQ(
      pod_error("metadata: {name: p}\nspec: {overhead: {memory: -1Gi}}"),
      "/spec/overhead/memory | spec.overhead.memory \"-1Gi\" must not be negative: use 0 or more");
  EXPECT_EQ(
      pod_error("metadata: {name: p}\nspec: {containers: {name: c}}"),
      "/spec/containers | spec.containers must be a sequence (a list), not a mapping: fix its "
      "type");
  EXPECT_EQ(
      pod_error("metadata: {name: p}\nspec: {priority: high}"),
      "/spec/priority | spec.priority must be an integer, not \"high\": write a whole number");
  EXPECT_EQ(pod_error("metadata: {name: p}\nspec: {containers: [{ports: [{hostPort: 70000}]}]}"),
            "/spec/containers/0/ports/0/hostPort | spec.containers[0].ports[0].hostPort must be "
            "between 0 and 65535, not 70000: use a valid port number, or 0 for none");
  EXPECT_EQ(pod_error("metadata: {name: p, creationTimestamp: yesterday}"),
            "/metadata/creationTimestamp | metadata.creationTimestamp \"yesterday\" is not an RFC "
            "3339 time: use a time such as 2024-01-02T03:04:05Z");
  EXPECT_EQ(pod_error("metadata: {name: p, labels: [a, b]}"),
            "/metadata/labels | metadata.labels must be a mapping (key: value pairs), not a "
            "sequence: fix its type");
  EXPECT_EQ(pod_error("metadata: {name: p, labels: {app: {nested: 1}}}"),
            "/metadata/labels/app | metadata.labels.app must be a string, not a mapping: quote the "
            "value");
  EXPECT_EQ(pod_error("spec: 5"),
            "/spec | spec must be a mapping (key: value pairs), not a number: fix its type");
  EXPECT_EQ(pod_error("[1]"),
            " | the object must be a mapping with metadata and spec: fix the Pod");
}

TEST(PodTest, TimestampsFollowRfc3339) {
  auto created = [](const std::string& time) {
    return pod_from("metadata: {name: p, creationTimestamp: \"" + time + "\"}").creation_time_ms();
  };
  EXPECT_EQ(created("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(created("2024-02-29T23:59:59.999Z"), 1709251199999);
  EXPECT_EQ(created("2024-01-02T03:04:05.123456789+02:00"), 1704157445123);
  EXPECT_EQ(created("1969-12-31T23:59:59z"), -1000);
  for (const char* bad : {"2024-02-30T00:00:00Z", "2024-01-02 03:04:05Z", "2024-01-02T03:04:05",
                          "2024-13-01T00:00:00Z", "2024-01-02T24:00:00Z", "2024-01-02T03:04:60Z",
                          "2024-01-02T03:04:05.Z", "2024-01-02T03:04:05+0100"}) {
    EXPECT_NE(pod_error(std::string("metadata: {name: p, creationTimestamp: \"") + bad + "\"}"),
              "no error")
        << bad;
  }
}

}  // namespace
}  // namespace schedhost::cluster

namespace schedhost::cluster {
namespace {

// bound_to and nominated_to share the source's tree and patch it when first read: the source
// never sees the change, each copy sees its own, and patches on a patched pod accumulate.
TEST(PodTest, BoundAndNominatedCopiesPatchTheirOwnJson) {
  auto source = std::make_shared<const nlohmann::json>(
      testing::yaml("metadata: {name: web, uid: u1}\nspec: {containers: [{name: c}]}"));
  const Pod pod(source);
  EXPECT_EQ(&pod.json(), source.get());  // not copied at all

  const std::shared_ptr<const Pod> nominated = pod.nominated_to("node-a");
  const std::shared_ptr<const Pod> bound = nominated->bound_to("node-b");
  const std::shared_ptr<const Pod> rebound = pod.bound_to("node-c");

  EXPECT_FALSE(source->contains("status"));
  EXPECT_FALSE(source->at("spec").contains("nodeName"));
  EXPECT_EQ(nominated->json().at("status").at("nominatedNodeName"), "node-a");
  EXPECT_FALSE(nominated->json().at("spec").contains("nodeName"));
  EXPECT_EQ(bound->json().at("status").at("nominatedNodeName"), "node-a");
  EXPECT_EQ(bound->json().at("spec").at("nodeName"), "node-b");
  EXPECT_EQ(bound->node_name(), "node-b");
  EXPECT_EQ(rebound->json().at("spec").at("nodeName"), "node-c");
  EXPECT_FALSE(rebound->json().contains("status"));
  EXPECT_EQ(rebound->json_at("/spec/nodeName"), "\"node-c\"");
  EXPECT_EQ(rebound->json_at("/metadata/name"), "\"web\"");
  EXPECT_EQ(&rebound->json(), &rebound->json());  // made once
}

// The patched tree is made once however many threads read it first.
TEST(PodTest, ThreadsReadingABoundPodFirstShareOneTree) {
  const Pod pod(testing::yaml("metadata: {name: web}\nspec: {containers: [{name: c}]}"));
  for (int round = 0; round < 20; ++round) {
    const std::shared_ptr<const Pod> bound = pod.bound_to("node-" + std::to_string(round));
    std::vector<const nlohmann::json*> seen(4, nullptr);
    std::vector<std::thread> readers;
    for (std::size_t t = 0; t < seen.size(); ++t)
      readers.emplace_back([&, t] { seen[t] = &bound->json(); });
    for (std::thread& r : readers)
      r.join();
    for (const nlohmann::json* tree : seen) {
      EXPECT_EQ(tree, seen.front());
      EXPECT_EQ(tree->at("spec").at("nodeName"), "node-" + std::to_string(round));
    }
  }
}

}  // namespace
}  // namespace schedhost::cluster
