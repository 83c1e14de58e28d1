// What the serve tests share: a cluster file applied to the real API server (as kubectl would
// create its objects), `schedhost serve` as a child process, and waiting for its decisions.
#pragma once

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cluster/cluster_file.hpp"
#include "kube/api_client.hpp"
#include "live/control_plane.hpp"
#include "support/process.hpp"

namespace schedhost::testing {

using nlohmann::json;

inline std::string ns_path(const std::string& ns) {
  return "/api/v1/namespaces/" + kube::url_escape(ns);
}

// The object as a client creates it: no uid, resourceVersion or status (the server's own).
inline json creatable(json object) {
  json& m = object["metadata"];
  for (const char* field :
       {"uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "selfLink"}) {
    m.erase(field);
  }
  object.erase("status");
  return object;
}

inline void create_node(kube::ApiClient& client, const json& node) {
  client.create("/api/v1/nodes", creatable(node));
  if (node.contains("status")) {
    json status = node["status"];
    status["conditions"] = json::array({{{"type", "Ready"}, {"status", "True"}}});
    client.patch("/api/v1/nodes/" + kube::url_escape(node["metadata"]["name"].get<std::string>()) +
                     "/status",
                 {{"status", status}}, kube::PatchType::Merge);
  }
}

// A node with `cpu` cores, 4Gi and 110 pods allocatable, labelled with its hostname.
inline json test_node(const std::string& name, const std::string& cpu) {
  const json resources = {{"cpu", cpu}, {"memory", "4Gi"}, {"pods", "110"}};
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", {{"kubernetes.io/hostname", name}}}}},
          {"status", {{"allocatable", resources}, {"capacity", resources}}}};
}

// A pending pod in default: one pause container requesting `cpu`.
inline json test_pod(const std::string& name, const std::string& cpu) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec",
           {{"containers", json::array({{{"name", "c"},
                                         {"image", "registry.k8s.io/pause:3.10"},
                                         {"resources", {{"requests", {{"cpu", cpu}}}}}}})}}}};
}

inline void ensure_namespace(kube::ApiClient& client, const std::string& ns,
                             std::map<std::string, bool>& made) {
  if (ns == "default" || made[ns]) return;
  try {
    client.create("/api/v1/namespaces",
                  {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
  } catch (const kube::ApiError& e) {
    if (e.code() != 409) throw;
  }
  made[ns] = true;
}

// Creates every object of the cluster file: namespaces, nodes (made Ready), PDBs, the running
// pods (bound as created), then the pending pods in file order, pending_gap apart so that their
// creation times keep the file's order as the queue sees it.
inline void apply_cluster(kube::ApiClient& client, const std::string& file,
                          std::chrono::milliseconds pending_gap) {
  const cluster::Cluster c = cluster::load_cluster(file);
  std::map<std::string, bool> made;
  for (const auto& n : c.namespaces) {
    client.create("/api/v1/namespaces", creatable(n->json()));
    made[n->name()] = true;
  }
  for (const auto& node : c.nodes)
    create_node(client, node->json());
  for (const auto& pdb : c.pod_disruption_budgets) {
    ensure_namespace(client, pdb->json()["metadata"].value("namespace", "default"), made);
    client.create("/apis/policy/v1/namespaces/" +
                      pdb->json()["metadata"].value("namespace", std::string("default")) +
                      "/poddisruptionbudgets",
                  creatable(pdb->json()));
  }
  // Custom resources (a PodGroup...): kinds this process does not model, created at their
  // plural spelt as CRDs spell it (lowercase kind + "s"); their CRD must be installed first.
  for (const auto& other : c.ignored) {
    const std::string api_version = other.object.value("apiVersion", "");
    if (api_version.find('/') == std::string::npos) continue;
    std::string plural = other.kind;
    for (char& ch : plural)
      ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    const std::string ns = other.object["metadata"].value("namespace", "default");
    ensure_namespace(client, ns, made);
    client.create("/apis/" + api_version + "/namespaces/" + ns + "/" + plural + "s",
                  creatable(other.object));
  }
  for (const auto& pod : c.running_pods) {
    ensure_namespace(client, pod->namespace_name(), made);
    client.create(ns_path(pod->namespace_name()) + "/pods", creatable(pod->json()));
  }
  for (const auto& pod : c.pending_pods) {
    ensure_namespace(client, pod->namespace_name(), made);
    client.create(ns_path(pod->namespace_name()) + "/pods", creatable(pod->json()));
    std::this_thread::sleep_for(pending_gap);
  }
}

// Installs scheduler-plugins' PodGroup CRD (deploy/podgroups/crd.yaml, as a user would) and waits
// until the API server serves podgroups.
inline void install_podgroup_crd(kube::ApiClient& client) {
  const cluster::Cluster file =
      cluster::load_cluster(std::string(SCHEDHOST_SOURCE_DIR) + "/deploy/podgroups/crd.yaml");
  client.create("/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                file.ignored.at(0).object);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    try {
      const json served = client.get("/apis/scheduling.x-k8s.io/v1alpha1");
      for (const json& r : served.value("resources", json::array())) {
        if (r.value("name", "") == "podgroups") return;
      }
    } catch (const kube::ApiError&) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  throw std::runtime_error("the PodGroup CRD was not served within 30 s");
}

// `schedhost run -o json` on the same files: pod -> {result, node, message}.
struct Decision {
  std::string result;
  std::string node;
  std::string message;
  bool operator==(const Decision&) const = default;
};
inline std::ostream& operator<<(std::ostream& os, const Decision& d) {
  return os << "{" << d.result << ", " << d.node << ", " << d.message << "}";
}

inline std::map<std::string, Decision> run_decisions(const std::string& config,
                                                     const std::string& cluster_file,
                                                     const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args{"run", "--config", config, "--cluster", cluster_file, "-o", "json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const ProcessResult r = run_schedhost(args);
  if (r.exit_code != 0) throw std::runtime_error("schedhost run failed: " + r.err);
  std::map<std::string, Decision> out;
  const json result = json::parse(r.out);
  for (const json& p : result["pods"]) {
    out[p["pod"]] = {p["result"], p.value("node", ""), p.value("message", "")};
  }
  return out;
}

// A profile with leader election on short durations (lease 4 s, renew 3 s, retry 500 ms), so
// that the tests that hand the Lease over are quick.
inline const std::string kShortLeaseProfile = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaseDuration: 4s
  renewDeadline: 3s
  retryPeriod: 500ms
profiles:
- schedulerName: default-scheduler
)";

// What the API server shows for each pod: Scheduled on its node, or Unschedulable with the
// PodScheduled condition's message, or "Pending" (no decision written yet).
inline std::map<std::string, Decision> live_decisions(kube::ApiClient& client) {
  std::map<std::string, Decision> out;
  const json pods = client.get("/api/v1/pods");
  for (const json& p : pods["items"]) {
    const std::string key = p["metadata"]["namespace"].get<std::string>() + "/" +
                            p["metadata"]["name"].get<std::string>();
    const std::string node = p["spec"].value("nodeName", "");
    Decision d{"Pending", "", ""};
    if (!node.empty()) d = {"Scheduled", node, ""};
    for (const json& c : p["status"].value("conditions", json::array())) {
      if (c["type"] == "PodScheduled" && c["status"] == "False") {
        d = {c.value("reason", ""), "", c.value("message", "")};
      }
    }
    out[key] = d;
  }
  return out;
}

// Whether every pod default/<name> of names is bound to a node.
inline bool all_bound(kube::ApiClient& client, const std::set<std::string>& names) {
  const auto live = live_decisions(client);
  for (const std::string& n : names) {
    auto it = live.find("default/" + n);
    if (it == live.end() || it->second.node.empty()) return false;
  }
  return true;
}

// The events.k8s.io/v1 events about pod ns/name with this reason, oldest first (by eventTime):
// the first FailedScheduling note is the first attempt's message.
inline std::vector<json> events_about(kube::ApiClient& client, const std::string& ns,
                                      const std::string& name, const std::string& reason) {
  std::vector<json> out;
  const json events =
      client.get("/apis/events.k8s.io/v1/namespaces/" + kube::url_escape(ns) + "/events");
  for (const json& e : events["items"]) {
    if (e["regarding"].value("name", "") == name && e.value("reason", "") == reason) {
      out.push_back(e);
    }
  }
  std::sort(out.begin(), out.end(), [](const json& a, const json& b) {
    return a.value("eventTime", "") < b.value("eventTime", "");
  });
  return out;
}

// The message of the first failed attempt of pod ns/name, "" when none has failed yet.
inline std::string first_failure_message(kube::ApiClient& client, const std::string& ns,
                                         const std::string& name) {
  const std::vector<json> failed = events_about(client, ns, name, "FailedScheduling");
  return failed.empty() ? "" : failed.front().value("note", "");
}

// `schedhost serve` against the test control plane; stopped by PID (SIGTERM) when it dies.
class ServeProcess {
 public:
  // kubeconfig: the plane's admin one unless given (a proxy's, a rotating token's).
  ServeProcess(const ControlPlane& plane, const std::string& config,
               std::vector<std::string> extra = {}, const std::string& kubeconfig = {})
      : log_(plane.dir() + "/serve-" + std::to_string(++count_) + ".log"),
        child_(args(kubeconfig.empty() ? plane.kubeconfig() : kubeconfig, config, std::move(extra)),
               log_) {}
  ChildProcess& process() { return child_; }
  std::string log() const { return read_file(log_); }

 private:
  // The secure port on a free loopback port unless the test chose one (tests run side by side).
  static std::vector<std::string> args(const std::string& kubeconfig, const std::string& config,
                                       std::vector<std::string> extra) {
    std::vector<std::string> a{schedhost_binary(), "serve",   "--config", config,
                               "--kubeconfig",     kubeconfig};
    if (std::find(extra.begin(), extra.end(), "--secure-port") == extra.end()) {
      a.insert(a.end(), {"--bind-address", "127.0.0.1", "--secure-port",
                         std::to_string(free_loopback_port())});
    }
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  static inline int count_ = 0;
  std::string log_;
  ChildProcess child_;
};

// What a node's kubelet does when a pod on it is deleted: once its containers stop it deletes
// the pod for good. The test control plane has no kubelets, so a bound pod deleted with a grace
// period (a preemption victim) would stay Terminating forever; this finishes such deletions at
// once, polling every 100 ms, until destroyed.
class KubeletStandIn {
 public:
  explicit KubeletStandIn(const kube::ClientConfig& config)
      : client_(config), thread_([this] { loop(); }) {}
  ~KubeletStandIn() {
    stop_.store(true);
    thread_.join();
  }
  int finished() const { return finished_.load(); }

 private:
  void loop() {
    while (!stop_.load()) {
      try {
        const json pods = client_.get("/api/v1/pods");
        for (const json& p : pods["items"]) {
          if (!p["metadata"].contains("deletionTimestamp")) continue;
          client_.remove(
              "/api/v1/namespaces/" + p["metadata"]["namespace"].get<std::string>() + "/pods/" +
                  p["metadata"]["name"].get<std::string>(),
              {{"apiVersion", "v1"}, {"kind", "DeleteOptions"}, {"gracePeriodSeconds", 0}});
          ++finished_;
        }
      } catch (const std::exception&) {
        // gone meanwhile, or the server restarting: the next round sees
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  kube::ApiClient client_;
  std::atomic<bool> stop_{false};
  std::atomic<int> finished_{0};
  std::thread thread_;
};

// Polls until pred() holds or the timeout passes; returns pred().
template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return pred();
}

// first_failure_message once the Event is there ("" after a minute without it). A pod's status
// and its Event are separate writes, and serve sends Events in groups gathered over 20 ms: a
// test that saw the status must wait for the Event.
inline std::string posted_failure_message(kube::ApiClient& client, const std::string& ns,
                                          const std::string& name) {
  std::string note;
  eventually([&] {
    note = first_failure_message(client, ns, name);
    return !note.empty();
  });
  return note;
}

}  // namespace schedhost::testing
