// schedhost serve against the real API server: it binds what `schedhost run` binds on the same
// cluster, writes upstream's condition and event for a pod that fits nowhere and binds it once a
// node that fits arrives, and stops on SIGTERM within a bounded time.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <csignal>
#include <fstream>
#include <set>

#include "serve/serve_support.hpp"

namespace schedhost::testing {
namespace {

const std::string kSource = SCHEDHOST_SOURCE_DIR;

// Every pod `run` decided, as the API server shows it once serve has decided too.
void expect_same_decisions(kube::ApiClient& client, const std::map<std::string, Decision>& want,
                           ServeProcess& serve) {
  auto settled = [&] {
    const auto live = live_decisions(client);
    for (const auto& [pod, d] : want) {
      auto it = live.find(pod);
      if (it == live.end()) return false;
      if (d.result != "Skipped" && d.result != "Gated" && it->second.result == "Pending") {
        return false;
      }
    }
    return true;
  };
  ASSERT_TRUE(eventually(settled, std::chrono::seconds(120))) << serve.log();
  const auto live = live_decisions(client);
  for (const auto& [pod, d] : want) {
    Decision expected = d;
    if (d.result == "Skipped" || d.result == "Gated") expected = {"Pending", "", ""};
    EXPECT_EQ(live.at(pod), expected) << pod;
  }
}

int stop_and_wait(ServeProcess& serve) {
  kill(serve.process().pid(), SIGTERM);
  const auto start = std::chrono::steady_clock::now();
  const int status = serve.process().stop(15'000);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(15)) << serve.log();
  return status;
}

TEST(Serve, BindsWhatRunBindsOnTheConfigsExample) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  const std::string config = kSource + "/configs/scheduler-config.yaml";
  const std::string cluster = kSource + "/configs/cluster.yaml";
  // The example's pending pods have increasing creation times in file order: created a little
  // over a second apart, the API server's times keep that order.
  apply_cluster(client, cluster, std::chrono::milliseconds(1050));
  const std::vector<std::string> examples = {"--plugin-dir", testing::example_plugin_dir()};
  const auto want = run_decisions(config, cluster, examples);
  ASSERT_FALSE(want.empty());

  ServeProcess serve(*plane, config, examples);
  expect_same_decisions(client, want, serve);
  const int status = stop_and_wait(serve);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << "\n" << serve.log();
  EXPECT_NE(serve.log().find("serve: stopped"), std::string::npos) << serve.log();
}

// A cluster of 24 nodes in 3 zones (some tainted) and 60 pending pods: zone spreading, required
// anti-affinity on hostname, tolerations, node affinity, and pods too big for any node. Nodes and
// pods are listed in name order, the order the API server lists them (README: replay and live).
std::string generated_cluster(const ScratchDir& dir) {
  json items = json::array();
  for (int i = 0; i < 24; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "node-%02d", i);
    const std::string zone = std::string("zone-") + static_cast<char>('a' + i % 3);
    json node = {
        {"apiVersion", "v1"},
        {"kind", "Node"},
        {"metadata",
         {{"name", name},
          {"labels",
           {{"kubernetes.io/hostname", name},
            {"topology.kubernetes.io/zone", zone},
            {"disk", i % 4 == 0 ? "ssd" : "hdd"}}}}},
        {"spec", json::object()},
        {"status",
         {{"allocatable", {{"cpu", i % 5 == 0 ? "2" : "4"}, {"memory", "16Gi"}, {"pods", "110"}}},
          {"capacity", {{"cpu", i % 5 == 0 ? "2" : "4"}, {"memory", "16Gi"}, {"pods", "110"}}}}}};
    if (i % 6 == 5) {
      node["spec"]["taints"] =
          json::array({{{"key", "dedicated"}, {"value", "batch"}, {"effect", "NoSchedule"}}});
    }
    items.push_back(node);
  }
  for (int i = 0; i < 60; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "pod-%03d", i);
    const int kind = i % 6;
    const std::string app = kind == 0 ? "spread" : kind == 1 ? "solo" : "web";
    json container = {{"name", "c"},
                      {"image", "registry.k8s.io/pause:3.10"},
                      {"resources",
                       {{"requests",
                         {{"cpu", kind == 5 && i % 4 == 1 ? "8" : (i % 3 == 0 ? "500m" : "1")},
                          {"memory", "1Gi"}}}}}};
    json spec = {{"containers", json::array({container})}};
    if (kind == 0) {
      spec["topologySpreadConstraints"] =
          json::array({{{"maxSkew", 1},
                        {"topologyKey", "topology.kubernetes.io/zone"},
                        {"whenUnsatisfiable", "DoNotSchedule"},
                        {"labelSelector", {{"matchLabels", {{"app", "spread"}}}}}}});
    } else if (kind == 1) {
      spec["affinity"] = {
          {"podAntiAffinity",
           {{"requiredDuringSchedulingIgnoredDuringExecution",
             json::array({{{"topologyKey", "kubernetes.io/hostname"},
                           {"labelSelector", {{"matchLabels", {{"app", "solo"}}}}}}})}}}};
    } else if (kind == 2) {
      spec["tolerations"] = json::array({{{"key", "dedicated"},
                                          {"operator", "Equal"},
                                          {"value", "batch"},
                                          {"effect", "NoSchedule"}}});
    } else if (kind == 3) {
      spec["affinity"] = {
          {"nodeAffinity",
           {{"preferredDuringSchedulingIgnoredDuringExecution",
             json::array({{{"weight", 50},
                           {"preference",
                            {{"matchExpressions", json::array({{{"key", "disk"},
                                                                {"operator", "In"},
                                                                {"values", {"ssd"}}}})}}}}})}}}};
    }
    items.push_back(
        {{"apiVersion", "v1"},
         {"kind", "Pod"},
         {"metadata", {{"name", name}, {"namespace", "default"}, {"labels", {{"app", app}}}}},
         {"spec", spec}});
  }
  return dir.write("generated.json",
                   json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}}.dump());
}

TEST(Serve, BindsWhatRunBindsOnAGeneratedClusterWithSpreadingAffinityAndTaints) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  ScratchDir dir;
  const std::string cluster = generated_cluster(dir);
  const std::string config = kSource + "/configs/default-profile.yaml";
  apply_cluster(client, cluster, std::chrono::milliseconds(0));
  const auto want = run_decisions(config, cluster);
  int scheduled = 0, unschedulable = 0;
  for (const auto& [pod, d] : want) {
    scheduled += d.result == "Scheduled";
    unschedulable += d.result == "Unschedulable";
  }
  // The cluster exercises both outcomes (else this test could not fail on them).
  EXPECT_GE(scheduled, 40);
  EXPECT_GE(unschedulable, 3);

  ServeProcess serve(*plane, config);
  expect_same_decisions(client, want, serve);
  stop_and_wait(serve);
}

// A second cluster, with priorities and preemption: 24 general nodes in 4 zones (some with a
// PreferNoSchedule taint) holding running pods of priority 500, and 6 pool nodes (tainted
// pool=reserved:NoSchedule) each full of running low-priority pods, two of them guarded by a PDB.
// 72 pending pods: preemptors of priority 1000, each pinned to its pool node, that fit only once
// victims go (lowest priority first, the PDB's last), one with preemptionPolicy Never; general
// pods of priority 0..100 with soft zone spreading, required pod affinity and preferred
// anti-affinity to the running ones, required zone affinity, and some too big for any node.
// General pods cannot reach the pool and do not preempt (preemptionPolicy Never: a preemption
// attempt draws from the seeded generator that also breaks score ties, and serve tries a pod that
// fits nowhere again on every cluster change where the replay tries it once), and each preemptor
// has its own node: what happens while a preemptor waits for its victims' deletions cannot change
// another pod's decision, so the replay and the live scheduler must agree.
std::string generated_preemption_cluster(const ScratchDir& dir) {
  json items = json::array();
  auto resources = [](const std::string& cpu) {
    return json{{"cpu", cpu}, {"memory", "16Gi"}, {"pods", "110"}};
  };
  auto make_pod = [](const std::string& name, json labels, json spec) {
    return json{{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"name", name}, {"namespace", "default"}, {"labels", labels}}},
                {"spec", spec}};
  };
  auto container = [](const std::string& cpu) {
    return json::array({{{"name", "c"},
                         {"image", "registry.k8s.io/pause:3.10"},
                         {"resources", {{"requests", {{"cpu", cpu}, {"memory", "1Gi"}}}}}}});
  };
  const json pool_toleration = {
      {"key", "pool"}, {"operator", "Equal"}, {"value", "reserved"}, {"effect", "NoSchedule"}};
  std::vector<json> running;
  for (int i = 0; i < 24; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "gen-%02d", i);
    const std::string zone = std::string("zone-") + static_cast<char>('a' + i % 4);
    json node = {
        {"apiVersion", "v1"},
        {"kind", "Node"},
        {"metadata",
         {{"name", name},
          {"labels", {{"kubernetes.io/hostname", name}, {"topology.kubernetes.io/zone", zone}}}}},
        {"spec", json::object()},
        {"status", {{"allocatable", resources("4")}, {"capacity", resources("4")}}}};
    if (i % 7 == 3) {
      node["spec"]["taints"] =
          json::array({{{"key", "noisy"}, {"value", "yes"}, {"effect", "PreferNoSchedule"}}});
    }
    items.push_back(node);
    if (i % 3 == 0) {
      json spec = {{"nodeName", name}, {"priority", 500}, {"containers", container("1")}};
      running.push_back(make_pod(std::string("web-") + name, {{"app", "web"}}, spec));
    }
  }
  for (int i = 0; i < 6; ++i) {
    const std::string name = "pool-" + std::to_string(i);
    items.push_back(
        {{"apiVersion", "v1"},
         {"kind", "Node"},
         {"metadata",
          {{"name", name},
           {"labels",
            {{"kubernetes.io/hostname", name},
             {"topology.kubernetes.io/zone", std::string("zone-") + static_cast<char>('a' + i % 4)},
             {"pool", "p-" + std::to_string(i)}}}}},
         {"spec",
          {{"taints",
            json::array({{{"key", "pool"}, {"value", "reserved"}, {"effect", "NoSchedule"}}})}}},
         {"status", {{"allocatable", resources("4")}, {"capacity", resources("4")}}}});
    for (int j = 0; j < 4; ++j) {
      // Priorities 10..40 in an order that differs per node; the first two of pool-1 and pool-4
      // are guarded by a PDB that allows no disruption.
      const int priority = 10 * (1 + (i + j * 3) % 4);
      const bool guarded = i % 3 == 1 && j < 2;
      json spec = {{"nodeName", name},
                   {"priority", priority},
                   {"tolerations", json::array({pool_toleration})},
                   {"containers", container("1")}};
      running.push_back(make_pod("batch-" + std::to_string(i) + "-" + std::to_string(j),
                                 {{"app", guarded ? "guarded" : "batch"}}, spec));
    }
  }
  items.push_back(
      {{"apiVersion", "policy/v1"},
       {"kind", "PodDisruptionBudget"},
       {"metadata", {{"name", "guarded"}, {"namespace", "default"}}},
       {"spec", {{"maxUnavailable", 0}, {"selector", {{"matchLabels", {{"app", "guarded"}}}}}}}});
  for (json& p : running)
    items.push_back(std::move(p));
  for (int i = 0; i < 72; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "pend-%03d", i);
    if (i % 12 == 0) {
      // A preemptor for pool node i/12: 2 or 3 cpu, so 2 or 3 victims.
      const int node = i / 12;
      json spec = {{"priority", 1000},
                   {"nodeSelector", {{"pool", "p-" + std::to_string(node)}}},
                   {"tolerations", json::array({pool_toleration})},
                   {"containers", container(node % 2 == 0 ? "2" : "3")}};
      if (node == 5) spec["preemptionPolicy"] = "Never";
      items.push_back(make_pod(name, {{"app", "preemptor"}}, spec));
      continue;
    }
    const int kind = i % 5;
    json spec = {{"priority", (i * 37) % 101},
                 {"preemptionPolicy", "Never"},
                 {"containers", container(i % 11 == 7 ? "6" : (i % 2 == 0 ? "500m" : "1"))}};
    std::string app = "general";
    if (kind == 0) {
      app = "spread";
      spec["topologySpreadConstraints"] =
          json::array({{{"maxSkew", 1},
                        {"topologyKey", "topology.kubernetes.io/zone"},
                        {"whenUnsatisfiable", "ScheduleAnyway"},
                        {"labelSelector", {{"matchLabels", {{"app", "spread"}}}}}}});
    } else if (kind == 1) {
      spec["affinity"] = {
          {"podAffinity",
           {{"requiredDuringSchedulingIgnoredDuringExecution",
             json::array({{{"topologyKey", "topology.kubernetes.io/zone"},
                           {"labelSelector", {{"matchLabels", {{"app", "web"}}}}}}})}}}};
    } else if (kind == 2) {
      app = "loner";
      spec["affinity"] = {
          {"podAntiAffinity",
           {{"preferredDuringSchedulingIgnoredDuringExecution",
             json::array({{{"weight", 80},
                           {"podAffinityTerm",
                            {{"topologyKey", "kubernetes.io/hostname"},
                             {"labelSelector",
                              {{"matchExpressions",
                                json::array({{{"key", "app"},
                                              {"operator", "In"},
                                              {"values", {"web", "loner"}}}})}}}}}}})}}}};
    } else if (kind == 3) {
      spec["affinity"] = {
          {"nodeAffinity",
           {{"requiredDuringSchedulingIgnoredDuringExecution",
             {{"nodeSelectorTerms",
               json::array({{{"matchExpressions",
                              json::array({{{"key", "topology.kubernetes.io/zone"},
                                            {"operator", "In"},
                                            {"values", {"zone-b", "zone-c"}}}})}}})}}}}}};
    }
    items.push_back(make_pod(name, {{"app", app}}, spec));
  }
  return dir.write("generated-preemption.json",
                   json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}}.dump());
}

TEST(Serve, BindsAndPreemptsWhatRunDoesOnAGeneratedClusterWithPrioritiesAndAffinity) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  ScratchDir dir;
  const std::string cluster = generated_preemption_cluster(dir);
  const std::string config = kSource + "/configs/default-profile.yaml";
  apply_cluster(client, cluster, std::chrono::milliseconds(0));
  const ProcessResult ran =
      run_schedhost({"run", "--config", config, "--cluster", cluster, "-o", "json"});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  std::map<std::string, Decision> want;
  std::map<std::string, std::vector<std::string>> victims;  // preemptor -> victims, as run says
  int scheduled = 0, unschedulable = 0;
  const json result = json::parse(ran.out);
  for (const json& p : result["pods"]) {
    if (p["result"] == "Preempted") continue;  // a running victim: checked below
    want[p["pod"]] = {p["result"], p.value("node", ""), p.value("message", "")};
    scheduled += p["result"] == "Scheduled";
    unschedulable += p["result"] == "Unschedulable";
    if (p.contains("preempted")) victims[p["pod"]] = p["preempted"].get<std::vector<std::string>>();
  }
  // The cluster exercises every outcome (else this test could not fail on them): 5 preemptions
  // of 2 or 3 victims, PDB-guarded pods spared, pods bound and pods that fit nowhere.
  ASSERT_EQ(victims.size(), 5u) << ran.out;
  EXPECT_GE(scheduled, 45);
  EXPECT_GE(unschedulable, 5);

  KubeletStandIn kubelet(plane->admin_config());
  ServeProcess serve(*plane, config);
  // A preemptor is Unschedulable (nominated) until its victims are gone: wait for the end state.
  const bool agreed = eventually(
      [&] {
        const auto live = live_decisions(client);
        for (const auto& [pod, d] : want) {
          auto it = live.find(pod);
          if (it == live.end() || !(it->second == d)) return false;
        }
        return true;
      },
      std::chrono::seconds(120));
  const auto live = live_decisions(client);
  for (const auto& [pod, d] : want) {
    ASSERT_EQ(live.count(pod), 1u) << pod;
    EXPECT_EQ(live.at(pod), d) << pod;
  }
  EXPECT_TRUE(agreed) << serve.log();
  // Exactly run's victims are gone, each with its Preempted event; every other running pod stays.
  std::set<std::string> gone;
  for (const auto& [preemptor, list] : victims) {
    for (const std::string& v : list) {
      gone.insert(v);
      const std::string name = v.substr(v.find('/') + 1);
      EXPECT_EQ(live.count(v), 0u) << v;
      EXPECT_EQ(events_about(client, "default", name, "Preempted").size(), 1u) << v;
    }
  }
  const cluster::Cluster c = cluster::load_cluster(cluster);
  for (const auto& p : c.running_pods) {
    if (gone.count(p->key()) == 0) {
      EXPECT_EQ(live.count(p->key()), 1u) << p->key();
    }
  }
  EXPECT_EQ(kubelet.finished(), static_cast<int>(gone.size()));
  stop_and_wait(serve);
}

TEST(Serve, APodThatFitsNowhereGetsItsConditionAndOneEventThenIsBoundWhenANodeArrives) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  ScratchDir dir;
  const json small = {{"apiVersion", "v1"},
                      {"kind", "Node"},
                      {"metadata", {{"name", "small"}}},
                      {"status",
                       {{"allocatable", {{"cpu", "1"}, {"memory", "4Gi"}, {"pods", "110"}}},
                        {"capacity", {{"cpu", "1"}, {"memory", "4Gi"}, {"pods", "110"}}}}}};
  const json big_pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", "big"}, {"namespace", "default"}}},
      {"spec",
       {{"containers", json::array({{{"name", "c"},
                                     {"image", "registry.k8s.io/pause:3.10"},
                                     {"resources", {{"requests", {{"cpu", "2"}}}}}}})}}}};
  const std::string file = dir.write(
      "c.json",
      json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", json::array({small, big_pod})}}
          .dump());
  const std::string config = kSource + "/configs/default-profile.yaml";
  const auto decided = run_decisions(config, file);
  ASSERT_EQ(decided.count("default/big"), 1u) << read_file(file);
  const Decision want = decided.at("default/big");
  ASSERT_EQ(want.result, "Unschedulable");
  apply_cluster(client, file, std::chrono::milliseconds(0));

  ServeProcess serve(*plane, config);
  ASSERT_TRUE(eventually([&] { return live_decisions(client)["default/big"].result != "Pending"; }))
      << serve.log();
  EXPECT_EQ(live_decisions(client)["default/big"], want);

  // One FailedScheduling event, with the message (retries of the same pod do not add more).
  std::this_thread::sleep_for(std::chrono::seconds(2));
  auto events_for = [&](const std::string& reason) {
    std::vector<json> out;
    const json events = client.get("/apis/events.k8s.io/v1/namespaces/default/events");
    for (const json& e : events["items"]) {
      if (e["regarding"]["name"] == "big" && e["reason"] == reason) out.push_back(e);
    }
    return out;
  };
  const std::vector<json> failed = events_for("FailedScheduling");
  ASSERT_EQ(failed.size(), 1u) << serve.log() << json(failed).dump();
  EXPECT_EQ(failed[0]["note"], want.message);
  EXPECT_EQ(failed[0]["type"], "Warning");
  EXPECT_EQ(failed[0]["action"], "Scheduling");
  EXPECT_EQ(failed[0]["reportingController"], "default-scheduler");

  json large = small;
  large["metadata"]["name"] = "large";
  large["status"]["allocatable"]["cpu"] = "4";
  large["status"]["capacity"]["cpu"] = "4";
  create_node(client, large);
  ASSERT_TRUE(eventually([&] { return live_decisions(client)["default/big"].node == "large"; }))
      << serve.log();
  ASSERT_TRUE(eventually([&] { return events_for("Scheduled").size() == 1; })) << serve.log();
  EXPECT_EQ(events_for("Scheduled")[0]["note"], "Successfully assigned default/big to large");
  stop_and_wait(serve);
}

TEST(Serve, AnUnreachableApiServerIsOneLineAndExitCode2) {
  ScratchDir dir;
  const std::string kubeconfig =
      dir.write("k.yaml",
                "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: c\n"
                "  cluster:\n    server: https://127.0.0.1:" +
                    std::to_string(free_loopback_port()) +
                    "\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\n"
                    "users:\n- name: u\n  user: {token: t}\n");
  const ProcessResult r = run_schedhost(
      {"serve", "--config", kSource + "/configs/default-profile.yaml", "--kubeconfig", kubeconfig});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("error: cannot reach the API server at https://127.0.0.1:", 0), 0u)
      << r.err;
}

}  // namespace
}  // namespace schedhost::testing
