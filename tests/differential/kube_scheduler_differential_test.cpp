// The differential test of issue 26: upstream's kube-scheduler v1.35 and `schedhost run` decide
// the same probe pods on the same random cluster, and must agree on every one.
//
// For each seed: a random cluster (random_cluster.hpp: nodes, running pods, volumes, claims,
// CSINodes, Services and ReplicaSets) is created in the real v1.35 API server,
// kube-scheduler (default profile) is started, and the probes are created one at a time; each is
// decided (bound, or left Unschedulable with its PodScheduled message) and deleted before the
// next, so every probe sees the same cluster. Then `schedhost run --explain` decides each probe
// on the objects the API server holds (the probe as the test wrote it: run must merge
// matchLabelKeys itself). They agree when kube-scheduler's node is one of schedhost's
// top-scoring nodes (upstream breaks ties at random) or both leave the pod unschedulable with
// the same message, byte for byte.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "differential/random_cluster.hpp"
#include "serve/serve_support.hpp"

namespace schedhost::testing::differential {
namespace {

using nlohmann::json;

constexpr int kProbesPerSeed = 55;

const char* const kProfile =
    "apiVersion: kubescheduler.config.k8s.io/v1\n"
    "kind: KubeSchedulerConfiguration\n"
    "profiles:\n- schedulerName: default-scheduler\n";

struct Outcome {
  std::string node;     // the node bound to, or "" when unschedulable
  std::string message;  // the PodScheduled=False message when unschedulable
};

std::string pod_path(const json& pod) {
  return ns_path(pod["metadata"]["namespace"]) + "/pods/" +
         kube::url_escape(pod["metadata"]["name"].get<std::string>());
}

// Waits for kube-scheduler's decision on the pod: bound, or its PodScheduled condition False.
std::optional<Outcome> await_decision(kube::ApiClient& client, const json& pod) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    const json live = client.get(pod_path(pod));
    const std::string node = live["spec"].value("nodeName", "");
    if (!node.empty()) return Outcome{node, ""};
    for (const json& c : live["status"].value("conditions", json::array())) {
      if (c.value("type", "") == "PodScheduled" && c.value("status", "") == "False") {
        return Outcome{"", c.value("message", "")};
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return std::nullopt;
}

// schedhost's decision on the probe: its outcome and, when bound, every node with the top total.
struct RunDecision {
  Outcome outcome;
  std::set<std::string> top_nodes;
  std::string explain;                   // the pod's explanation, for failure messages
  std::set<std::string> filter_reasons;  // every node's Filter reasons, from the explanation
};

RunDecision run_probe(const std::string& config, const std::string& cluster_file) {
  const ProcessResult r = run_schedhost(
      {"run", "--config", config, "--cluster", cluster_file, "-o", "json", "--explain"});
  if (r.exit_code != 0) throw std::runtime_error("schedhost run failed: " + r.err);
  const json result = json::parse(r.out);
  const json& pod = result["pods"].at(0);
  RunDecision d;
  d.outcome = {pod.value("node", ""), pod.value("message", "")};
  d.explain = pod.contains("explain") ? pod["explain"].dump() : "{}";
  if (pod.contains("explain") && pod["explain"].contains("nodes")) {
    for (const auto& [name, node] : pod["explain"]["nodes"].items()) {
      for (const json& reason : node["filter"].value("reasons", json::array()))
        d.filter_reasons.insert(reason.get<std::string>());
    }
    // A single feasible node is not scored (nor upstream): it has no total and is the top.
    long long best = std::numeric_limits<long long>::min();
    for (const auto& [name, node] : pod["explain"]["nodes"].items()) {
      if (node["filter"].value("code", "") != "Success") continue;
      const long long total = node.value("total", 0LL);
      if (total > best) {
        best = total;
        d.top_nodes.clear();
      }
      if (total == best) d.top_nodes.insert(name);
    }
  }
  return d;
}

// With SCHEDHOST_DIFFERENTIAL_KEEP=DIR, the cluster file of each probe that disagrees is copied
// there (seed-S-probe-N.json), to replay with `schedhost run --explain`.
void keep_for_debugging(const std::string& cluster_file, std::uint32_t seed,
                        const std::string& probe) {
  const char* keep = std::getenv("SCHEDHOST_DIFFERENTIAL_KEEP");
  if (keep == nullptr || *keep == '\0') return;
  std::filesystem::create_directories(keep);
  std::filesystem::copy_file(
      cluster_file, std::string(keep) + "/seed-" + std::to_string(seed) + "-" + probe + ".json",
      std::filesystem::copy_options::overwrite_existing);
}

// What the volume plugins say when they reject a pod (VolumeRestrictions, NodeVolumeLimits,
// VolumeBinding, VolumeZone), and their PreFilters' claim errors.
const char* const kVolumeReasons[] = {
    "node(s) had no available disk",
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode",
    "node(s) exceed max volume count",
    "node(s) didn't match PersistentVolume's node affinity",
    "node(s) didn't find available persistent volumes to bind",
    "pod has unbound immediate PersistentVolumeClaims",
    "node(s) had no available volume zone",
    "persistentvolumeclaim \"missing-0\" not found",
};

// The kinds run reads from the API server, by list path.
struct Listed {
  const char* path;
  const char* api_version;
  const char* kind;
};
constexpr Listed kListed[] = {
    {"/api/v1/nodes", "v1", "Node"},
    {"/api/v1/pods", "v1", "Pod"},
    {"/api/v1/persistentvolumes", "v1", "PersistentVolume"},
    {"/api/v1/persistentvolumeclaims", "v1", "PersistentVolumeClaim"},
    {"/apis/storage.k8s.io/v1/storageclasses", "storage.k8s.io/v1", "StorageClass"},
    {"/apis/storage.k8s.io/v1/csinodes", "storage.k8s.io/v1", "CSINode"},
    {"/api/v1/services", "v1", "Service"},
    {"/apis/apps/v1/replicasets", "apps/v1", "ReplicaSet"},
};

// Where a client creates an object of this kind (every namespaced one is in default).
std::string collection_of(const json& object) {
  const std::string kind = object["kind"];
  if (kind == "StorageClass") return "/apis/storage.k8s.io/v1/storageclasses";
  if (kind == "CSINode") return "/apis/storage.k8s.io/v1/csinodes";
  if (kind == "PersistentVolume") return "/api/v1/persistentvolumes";
  if (kind == "ReplicaSet") return "/apis/apps/v1/namespaces/default/replicasets";
  if (kind == "PersistentVolumeClaim") return ns_path("default") + "/persistentvolumeclaims";
  return ns_path("default") + "/services";
}

// Creates the cluster's other objects; returns the uid of each ReplicaSet by name.
std::map<std::string, std::string> create_objects(kube::ApiClient& client,
                                                  const std::vector<json>& objects) {
  std::map<std::string, std::string> uids;
  for (const json& object : objects) {
    const json made = client.create(collection_of(object), object);
    if (object["kind"] == "ReplicaSet") uids[object["metadata"]["name"]] = made["metadata"]["uid"];
  }
  return uids;
}

// A pod controlled by a ReplicaSet gets the uid the API server gave it.
void with_owner_uid(json& pod, const std::map<std::string, std::string>& uids) {
  if (!pod["metadata"].contains("ownerReferences")) return;
  for (json& owner : pod["metadata"]["ownerReferences"])
    owner["uid"] = uids.at(owner["name"].get<std::string>());
}

class KubeSchedulerDifferential : public ::testing::TestWithParam<std::uint32_t> {};

TEST_P(KubeSchedulerDifferential, RunAgreesWithKubeSchedulerOnEveryProbe) {
  const std::uint32_t seed = GetParam();
  SCHEDHOST_START_CONTROL_PLANE(plane);
  if (plane->binaries().scheduler.empty()) {
    if (control_plane_required()) FAIL() << "no kube-scheduler beside " << plane->binaries().source;
    GTEST_SKIP() << "no kube-scheduler beside " << plane->binaries().source;
  }
  kube::ApiClient client(plane->admin_config());
  const RandomCluster cluster = make_random_cluster(seed, kProbesPerSeed);
  client.create("/api/v1/namespaces",
                {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "team"}}}});
  for (const json& node : cluster.nodes) {
    create_node(client, node);
    // create_node patches status without spec.unschedulable/taints: those came with the create.
  }
  const std::map<std::string, std::string> owner_uids = create_objects(client, cluster.objects);
  for (RunningPod running : cluster.running) {
    with_owner_uid(running.pod, owner_uids);
    client.create(ns_path(running.pod["metadata"]["namespace"]) + "/pods", running.pod);
    if (!running.status.empty()) {
      client.patch(pod_path(running.pod) + "/status", {{"status", running.status}},
                   kube::PatchType::Merge);
    }
  }
  // The cluster as the API server holds it, for run: every object of the kinds the default
  // profile reads.
  json base = json::array();
  for (const Listed& listed : kListed) {
    const json list = client.get(listed.path);
    for (json item : list["items"]) {
      item["apiVersion"] = listed.api_version;  // a list's items come without them, as from the API
      item["kind"] = listed.kind;
      base.push_back(std::move(item));
    }
  }
  ScratchDir dir;
  const std::string config = dir.write("profile.yaml", kProfile);
  ChildProcess scheduler(
      {"/usr/bin/env", "KUBE_SCHEDULER=" + plane->binaries().scheduler, "/bin/bash",
       std::string(SCHEDHOST_SOURCE_DIR) + "/tests/controlplane/start-kube-scheduler.sh",
       "--kubeconfig", plane->kubeconfig(), "--config", config, "--port",
       std::to_string(free_loopback_port()), "--workdir", plane->dir() + "/kube-scheduler"},
      plane->dir() + "/kube-scheduler.log");

  int bound = 0;
  int unschedulable = 0;
  // Of kVolumeReasons: in kube-scheduler's messages, or in schedhost's Filter verdicts on the
  // nodes of a probe both placed on the same node.
  std::set<std::string> reasons_seen;
  std::vector<std::string> disagreements;
  for (json probe : cluster.probes) {
    with_owner_uid(probe, owner_uids);
    const std::string name = probe["metadata"]["name"];
    client.create(ns_path(probe["metadata"]["namespace"]) + "/pods", probe);
    const std::optional<Outcome> upstream = await_decision(client, probe);
    ASSERT_TRUE(upstream) << "seed " << seed << ": kube-scheduler did not decide " << name
                          << " within 30 s\n"
                          << scheduler.log_tail();
    client.remove(pod_path(probe),
                  {{"apiVersion", "v1"}, {"kind", "DeleteOptions"}, {"gracePeriodSeconds", 0}});
    // kube-scheduler's cache sees the deletion before the next probe's creation (one watch).
    std::this_thread::sleep_for(std::chrono::milliseconds(20));

    json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", base}};
    list["items"].push_back(probe);
    std::ofstream(dir.file("cluster.json")) << list.dump();
    const RunDecision ours = run_probe(config, dir.file("cluster.json"));
    for (const char* reason : kVolumeReasons) {
      const bool in_message = upstream->message.find(reason) != std::string::npos;
      if (in_message || ours.filter_reasons.contains(reason)) reasons_seen.insert(reason);
    }

    upstream->node.empty() ? ++unschedulable : ++bound;
    std::ostringstream why;
    if (upstream->node.empty() != ours.outcome.node.empty()) {
      why << "kube-scheduler: " << (upstream->node.empty() ? upstream->message : upstream->node)
          << "\n  schedhost: "
          << (ours.outcome.node.empty() ? ours.outcome.message : ours.outcome.node);
    } else if (!upstream->node.empty() && !ours.top_nodes.contains(upstream->node)) {
      why << "kube-scheduler bound it to " << upstream->node << ", not one of schedhost's top {";
      for (const std::string& n : ours.top_nodes)
        why << n << " ";
      why << "}";
    } else if (upstream->node.empty() && upstream->message != ours.outcome.message) {
      why << "messages differ\n  kube-scheduler: " << upstream->message
          << "\n  schedhost:      " << ours.outcome.message;
    }
    if (!why.str().empty()) {
      keep_for_debugging(dir.file("cluster.json"), seed, name);
      disagreements.push_back("seed " + std::to_string(seed) + ", " + name + ": " + why.str() +
                              "\n  probe: " + probe.dump() + "\n  explain: " + ours.explain);
    }
  }
  EXPECT_TRUE(scheduler.running()) << scheduler.log_tail();
  scheduler.stop();
  std::string all;
  for (const std::string& d : disagreements)
    all += d + "\n";
  EXPECT_TRUE(disagreements.empty())
      << disagreements.size() << " of " << kProbesPerSeed << " probes disagree:\n"
      << all;
  // A cluster where nearly every probe goes the same way tests little: both outcomes must occur.
  EXPECT_GE(bound, kProbesPerSeed / 5) << "seed " << seed;
  EXPECT_GE(unschedulable, kProbesPerSeed / 10) << "seed " << seed;
  // Nor one where the volume plugins decide nothing.
  EXPECT_GE(reasons_seen.size(), 3u) << "seed " << seed;
  std::cout << "seed " << seed << ": " << bound << " bound, " << unschedulable << " unschedulable ("
            << reasons_seen.size() << " of the volume plugins' reasons), " << disagreements.size()
            << " disagreements\n";
  for (const std::string& reason : reasons_seen)
    std::cout << "  " << reason << "\n";
}

INSTANTIATE_TEST_SUITE_P(Seeds, KubeSchedulerDifferential, ::testing::Values(1u, 2u, 3u, 4u));

}  // namespace
}  // namespace schedhost::testing::differential
