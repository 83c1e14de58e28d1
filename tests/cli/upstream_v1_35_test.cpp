// What kube-scheduler v1.35 (and its API server) do differently from v1.28, through
// `schedhost run` with the default profile, as a user meets it. Pod-level resources
// (spec.resources, PodLevelResources): the pod's own requests decide where it fits, count
// against its node once it runs, and steer preemption. Affinity matchLabelKeys and
// mismatchLabelKeys, which the API server merges into the selectors at creation.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

#include "support/fixtures.hpp"
#include "support/process.hpp"

namespace schedhost::upstream_v1_35_test {

using nlohmann::json;

const std::string kSourceDir = SCHEDHOST_SOURCE_DIR;

std::string node(const std::string& name, const std::string& cpu) {
  return "apiVersion: v1\nkind: Node\nmetadata: {name: " + name +
         ", labels: {kubernetes.io/hostname: " + name + "}}\nstatus: {allocatable: {cpu: \"" + cpu +
         "\", memory: 8Gi, pods: \"110\"}}\n---\n";
}

// A pod whose one container requests nothing and whose spec.resources requests `cpu`.
std::string pod(const std::string& name, const std::string& cpu, const std::string& on = "",
                int priority = 0) {
  std::string spec = "{priority: " + std::to_string(priority) + ", resources: {requests: {cpu: \"" +
                     cpu + "\"}}, containers: [{name: c, image: pause}]";
  if (!on.empty()) spec += ", nodeName: " + on;
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
         ", namespace: default}\nspec: " + spec + "}\n---\n";
}

// (pod, result, node or message) for every pod of the run.
// profile: the default one unless given (the text of a profile file).
std::vector<std::vector<std::string>> run(const std::string& cluster,
                                          const std::string& profile = "") {
  testing::ScratchDir dir;
  const std::string config = profile.empty() ? kSourceDir + "/configs/default-profile.yaml"
                                             : dir.write("profile.yaml", profile);
  const auto r = testing::run_schedhost(
      {"run", "--config", config, "--cluster", dir.write("cluster.yaml", cluster), "-o", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::vector<std::string>> out;
  const json answer = json::parse(r.out);
  for (const json& p : answer["pods"]) {
    const std::string result = p["result"];
    out.push_back({p["pod"], result,
                   result == "Scheduled" || result == "Preempted"
                       ? p["node"].get<std::string>()
                       : p["message"].get<std::string>()});
  }
  return out;
}

using Row = std::vector<std::string>;

TEST(PodLevelResources, ThePodsOwnRequestDecidesWhereItFits) {
  // The issue's example: 3 cpus asked at pod level, none by the container, 1 cpu allocatable.
  EXPECT_EQ(run(node("small", "1") + pod("big", "3")),
            (std::vector<Row>{{"default/big", "Unschedulable",
                               "0/1 nodes are available: 1 Insufficient cpu. no new claims to "
                               "deallocate, preemption: 0/1 nodes are available: 1 Preemption "
                               "is not helpful for scheduling."}}));
  EXPECT_EQ(run(node("small", "1") + node("large", "4") + pod("big", "3")),
            (std::vector<Row>{{"default/big", "Scheduled", "large"}}));
}

TEST(PodLevelResources, ARunningPodsOwnRequestCountsOnItsNode) {
  // 3 of node-a's 4 cpus are taken by a running pod whose container asks for nothing.
  EXPECT_EQ(run(node("node-a", "4") + pod("running", "3", "node-a") + pod("next", "2")),
            (std::vector<Row>{{"default/next", "Unschedulable",
                               "0/1 nodes are available: 1 Insufficient cpu. no new claims to "
                               "deallocate, preemption: 0/1 nodes are available: 1 No preemption "
                               "victims found for incoming pod."}}));
  // With a higher priority the newcomer evicts it: preemption counts the same requests.
  EXPECT_EQ(run(node("node-a", "4") + pod("running", "3", "node-a") + pod("next", "2", "", 100)),
            (std::vector<Row>{{"default/running", "Preempted", "node-a"},
                              {"default/next", "Scheduled", "node-a"}}));
}

// Nodes with one running pod each: app=web version v1 on node-a (4 cpus), app=web version v2 on
// node-b (16 cpus, so the scores prefer it), and with `other`, app=db on node-c (16 cpus). The
// newcomer is app=web, version v2.
std::string web_nodes(bool other) {
  auto running = [](const std::string& name, const std::string& node, const std::string& labels) {
    return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
           ", namespace: default, labels: " + labels + "}\nspec: {nodeName: " + node +
           ", containers: [{name: c, image: pause}]}\n---\n";
  };
  std::string out = node("node-a", "4") + node("node-b", "16") +
                    running("web-v1", "node-a", "{app: web, version: v1}") +
                    running("web-v2", "node-b", "{app: web, version: v2}");
  if (other) out += node("node-c", "16") + running("db", "node-c", "{app: db}");
  return out;
}

std::string newcomer(const std::string& affinity) {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: new, namespace: default, labels: {app: web, "
         "version: v2}}\nspec:\n  containers: [{name: c, image: pause}]\n  affinity:\n" +
         affinity + "---\n";
}

TEST(AffinityLabelKeys, MatchLabelKeysNarrowAnAntiAffinityToThePodsOwnVersion) {
  // Away from app=web pods of my own version only: node-b is out, node-a is not (without the
  // merge, both would be).
  const std::string anti = R"(    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector: {matchLabels: {app: web}}
        matchLabelKeys: [version]
        topologyKey: kubernetes.io/hostname
)";
  EXPECT_EQ(run(web_nodes(false) + newcomer(anti)),
            (std::vector<Row>{{"default/new", "Scheduled", "node-a"}}));
}

TEST(AffinityLabelKeys, MismatchLabelKeysLeadAnAffinityToOtherVersions) {
  // Next to an app=web pod of another version: node-a only (without the merge, the larger
  // node-b would win).
  const std::string with = R"(    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector: {matchLabels: {app: web}}
        mismatchLabelKeys: [version]
        topologyKey: kubernetes.io/hostname
)";
  EXPECT_EQ(run(web_nodes(true) + newcomer(with)),
            (std::vector<Row>{{"default/new", "Scheduled", "node-a"}}));
}

// A pod with spec.resourceClaims needs its devices allocated (DynamicResources, GA since
// v1.34); schedhost has no such plugin yet, so the pod is not placed, and the message says why.
TEST(DynamicResourceAllocation, APodWithResourceClaimsIsUnschedulableSayingWhatIsMissing) {
  const std::string claimed =
      "apiVersion: v1\nkind: Pod\nmetadata: {name: gpu-job, namespace: default}\nspec:\n"
      "  containers: [{name: c, image: pause, resources: {claims: [{name: gpu}]}}]\n"
      "  resourceClaims: [{name: gpu, resourceClaimName: gpu-claim}]\n---\n";
  EXPECT_EQ(run(node("node-a", "4") + node("node-b", "2") + claimed + pod("plain", "1")),
            (std::vector<Row>{
                {"default/gpu-job", "Unschedulable",
                 "0/2 nodes are available: pod uses spec.resourceClaims (dynamic resource "
                 "allocation), which needs the DynamicResources plugin to allocate its devices: "
                 "schedhost's does not allocate devices yet. still not schedulable, preemption: "
                 "0/2 nodes are available: 2 Preemption is not helpful for scheduling."},
                {"default/plain", "Scheduled", "node-a"}}));
  // A profile without the plugin: the host itself refuses to place the pod, and says why.
  const std::string without =
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
      "profiles:\n- schedulerName: default-scheduler\n  plugins:\n"
      "    multiPoint: {disabled: [{name: DynamicResources}]}\n";
  EXPECT_EQ(run(node("node-a", "4") + claimed, without),
            (std::vector<Row>{
                {"default/gpu-job", "Unschedulable",
                 "0/1 nodes are available: pod uses spec.resourceClaims (dynamic resource "
                 "allocation), which needs the DynamicResources plugin to allocate its devices: "
                 "schedhost does not provide it yet, and the profile enables no plugin of that "
                 "name. preemption: 0/1 nodes are available: 1 Preemption is not helpful for "
                 "scheduling."}}));
}

}  // namespace schedhost::upstream_v1_35_test
