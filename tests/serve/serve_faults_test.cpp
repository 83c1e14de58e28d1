// Faults through `schedhost serve`, against the real API server: the server restarted, history
// compacted away (410 Gone), watch connections cut, a pod deleted or bound by someone else while
// its binding is in flight, its node deleted before the bind, the token file rotated, and SIGTERM
// during a binding. Each ends with every pod bound exactly once or carrying its condition, no node
// over its allocatable cpu, and nothing lost.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <csignal>
#include <set>
#include <thread>

#include "live/tcp_proxy.hpp"
#include "serve/serve_support.hpp"

namespace schedhost::testing {
namespace {

const std::string kFixtures = std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/serve";

// Upstream's default profile, plus SlowPreBind (tests/serve/fixtures), which holds the pods
// labelled schedhost.test/pre-bind-ms in PreBind.
// Leader election is off here: with it, an API server out of reach for longer than renewDeadline
// ends the leader (exit 1, as kube-scheduler), which is the leader tests' business, not these.
std::string faults_profile(const ScratchDir& dir) {
  return dir.write("profile.yaml",
                   "apiVersion: kubescheduler.config.k8s.io/v1\n"
                   "kind: KubeSchedulerConfiguration\n"
                   "leaderElection:\n"
                   "  leaderElect: false\n"
                   "profiles:\n"
                   "  - schedulerName: default-scheduler\n"
                   "    plugins:\n"
                   "      preBind:\n"
                   "        enabled:\n"
                   "          - name: SlowPreBind\n");
}

json node(const std::string& name, int cpu) {
  const json resources = {{"cpu", std::to_string(cpu)}, {"memory", "32Gi"}, {"pods", "110"}};
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", {{"kubernetes.io/hostname", name}}}}},
          {"status", {{"allocatable", resources}, {"capacity", resources}}}};
}

json pod(const std::string& name, int cpu, int pre_bind_ms = 0) {
  json p = {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", name}, {"namespace", "default"}}},
            {"spec",
             {{"containers",
               json::array({{{"name", "c"},
                             {"image", "registry.k8s.io/pause:3.10"},
                             {"resources", {{"requests", {{"cpu", std::to_string(cpu)}}}}}}})}}}};
  if (pre_bind_ms > 0) {
    p["metadata"]["labels"]["schedhost.test/pre-bind-ms"] = std::to_string(pre_bind_ms);
  }
  return p;
}

// Deletes a pod for good at once, as its kubelet finishes a deletion once the containers stop
// (the test control plane has no kubelets: a bound pod deleted with a grace period would stay
// Terminating, and counted, for ever).
void delete_pod_now(kube::ApiClient& client, const std::string& name) {
  client.remove("/api/v1/namespaces/default/pods/" + name,
                {{"apiVersion", "v1"}, {"kind", "DeleteOptions"}, {"gracePeriodSeconds", 0}});
}

void create_pod(kube::ApiClient& client, const json& p) {
  client.create("/api/v1/namespaces/default/pods", p);
}

void bind_pod(kube::ApiClient& client, const std::string& name, const std::string& node_name) {
  client.create("/api/v1/namespaces/default/pods/" + name + "/binding",
                {{"apiVersion", "v1"},
                 {"kind", "Binding"},
                 {"metadata", {{"name", name}}},
                 {"target", {{"kind", "Node"}, {"name", node_name}}}});
}

int cpu_of(const json& p) {
  int total = 0;
  for (const json& c : p["spec"]["containers"]) {
    total += std::stoi(c["resources"]["requests"]["cpu"].get<std::string>());
  }
  return total;
}

// The pods expect_consistent still waits for, with what the API server says of them and of the
// nodes, for a failure's message.
std::string undecided(kube::ApiClient& client, const std::set<std::string>& names,
                      const std::set<std::string>& must_bind) {
  const auto live = live_decisions(client);
  std::string out = "still waiting for:";
  for (const std::string& n : names) {
    auto it = live.find("default/" + n);
    const std::string result = it == live.end() ? "missing" : it->second.result;
    if (result == "Scheduled" || (result != "Pending" && must_bind.count(n) == 0)) continue;
    out += " " + n + " (" + result + (it == live.end() ? "" : ": " + it->second.message) + ")";
  }
  out += "\nnodes:";
  for (const json& node : client.get("/api/v1/nodes")["items"]) {
    out += " " + node["metadata"].value("name", "") + " " +
           node.value("/status/allocatable"_json_pointer, json::object()).dump() +
           (node.contains("/spec/taints"_json_pointer) ? " tainted" : "");
  }
  return out + "\n";
}

// Waits until every pod named is decided (bound, or PodScheduled=False) and those of
// must_bind are bound (a pod may fail first and fit after a retry), then checks what every fault
// test ends with: nothing lost, no node over its allocatable cpu, and every pod serve bound bound
// once (one Scheduled event, never repeated).
void expect_consistent(kube::ApiClient& client, const std::set<std::string>& names,
                       ServeProcess& serve, const std::set<std::string>& must_bind = {}) {
  ASSERT_TRUE(eventually(
      [&] {
        const auto live = live_decisions(client);
        for (const std::string& n : names) {
          auto it = live.find("default/" + n);
          if (it == live.end() || it->second.result == "Pending") return false;
          if (must_bind.count(n) != 0 && it->second.result != "Scheduled") return false;
        }
        return true;
      },
      std::chrono::seconds(90)))
      << undecided(client, names, must_bind) << serve.log();
  std::map<std::string, int> used;
  std::set<std::string> seen;
  const json pods = client.get("/api/v1/namespaces/default/pods");
  for (const json& p : pods["items"]) {
    const std::string name = p["metadata"]["name"];
    seen.insert(name);
    const std::string node_name = p["spec"].value("nodeName", "");
    if (node_name.empty()) continue;
    used[node_name] += cpu_of(p);
    const std::vector<json> scheduled = events_about(client, "default", name, "Scheduled");
    EXPECT_LE(scheduled.size(), 1u) << name;
    for (const json& e : scheduled) {
      EXPECT_EQ(e.value("note", ""), "Successfully assigned default/" + name + " to " + node_name);
      EXPECT_FALSE(e.contains("series") && !e["series"].is_null()) << name << " " << e.dump();
    }
  }
  for (const std::string& n : names)
    EXPECT_EQ(seen.count(n), 1u) << n << " is gone";
  const json nodes = client.get("/api/v1/nodes");
  for (const json& n : nodes["items"]) {
    const std::string name = n["metadata"]["name"];
    const int allocatable = std::stoi(n["status"]["allocatable"]["cpu"].get<std::string>());
    EXPECT_LE(used[name], allocatable) << name;
  }
}

std::set<std::string> create_pods(kube::ApiClient& client, const std::string& prefix, int count,
                                  int cpu) {
  std::set<std::string> names;
  for (int i = 0; i < count; ++i) {
    const std::string name = prefix + "-" + std::to_string(i);
    create_pod(client, pod(name, cpu));
    names.insert(name);
  }
  return names;
}

std::set<std::string> joined(std::set<std::string> a, const std::set<std::string>& b) {
  a.insert(b.begin(), b.end());
  return a;
}

// Waits until SlowPreBind announces it holds ns/name, and returns the node it was placed on.
std::string wait_until_binding(ServeProcess& serve, const std::string& name) {
  const std::string mark = "SlowPreBind: holding default/" + name + " on ";
  std::string node_name;
  EXPECT_TRUE(eventually([&] {
    const std::string log = serve.log();
    const auto at = log.find(mark);
    if (at == std::string::npos) return false;
    node_name = log.substr(at + mark.size(), log.find('\n', at) - at - mark.size());
    return true;
  })) << serve.log();
  return node_name;
}

// Waits until serve has passed its start (the connection checks, the informers' lists) and
// schedules: a connection lost before that is an error at start, by design.
void wait_until_scheduling(ServeProcess& serve) {
  ASSERT_TRUE(eventually([&] { return serve.log().find("caches synced") != std::string::npos; }))
      << serve.log();
}

void stop(ServeProcess& serve) {
  kill(serve.process().pid(), SIGTERM);
  const int status = serve.process().stop(20'000);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << serve.log();
}

// The API server's port, for a TcpProxy in front of it.
int api_port(const ControlPlane& plane) {
  return std::stoi(plane.server().substr(plane.server().rfind(':') + 1));
}

// A kubeconfig that reaches plane's API server through proxy.
std::string through(const ControlPlane& plane, const TcpProxy& proxy) {
  return plane.write_kubeconfig("proxy.kubeconfig", proxy.server());
}

TEST(ServeFaults, TheApiServerRestartedMidRun) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  ScratchDir dir;
  for (int i = 0; i < 4; ++i)
    create_node(client, node("node-" + std::to_string(i), 4));
  ServeProcess serve(*plane, faults_profile(dir), {"--plugin-dir", kFixtures});
  const std::set<std::string> first = create_pods(client, "first", 8, 1);
  expect_consistent(client, first, serve, first);

  // The server goes away while the second wave is being scheduled and bound: bindings fail,
  // watches drop, serve retries until it is back.
  const std::set<std::string> second = create_pods(client, "second", 8, 1);
  plane->stop_apiserver();
  std::this_thread::sleep_for(std::chrono::seconds(3));
  plane->start_apiserver();
  create_node(client, node("node-4", 4));
  const std::set<std::string> third = create_pods(client, "third", 4, 1);
  const std::set<std::string> all = joined(joined(first, second), third);
  // 20 cpu for 20 pods of 1: every one is bound in the end.
  expect_consistent(client, all, serve, all);
  stop(serve);
}

// Cut off while pods are deleted and others created, then the history compacted away: serve's
// watches from their old resourceVersions get 410 Gone, it lists again, and the pods deleted
// meanwhile (whose deletions it never saw) are dropped from the cache, so their room is used.
TEST(ServeFaults, ACompactionThatForces410GoneRelistsAndSeesTheDeletionsItMissed) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  ScratchDir dir;
  TcpProxy proxy(api_port(*plane));
  create_node(client, node("node-a", 4));
  create_node(client, node("node-b", 4));
  ServeProcess serve(*plane, faults_profile(dir), {"--plugin-dir", kFixtures},
                     through(*plane, proxy));
  const std::set<std::string> first = create_pods(client, "first", 8, 1);
  expect_consistent(client, first, serve, first);

  proxy.set_blocked(true);
  for (int i = 0; i < 4; ++i)
    delete_pod_now(client, "first-" + std::to_string(i));
  const std::set<std::string> second = create_pods(client, "second", 4, 1);
  plane->stop_apiserver();
  plane->compact_etcd();
  plane->start_apiserver();
  proxy.set_blocked(false);

  // Only the room of the deleted pods fits the second wave: a cache that kept them would leave
  // all four unschedulable.
  std::set<std::string> kept;
  for (int i = 4; i < 8; ++i)
    kept.insert("first-" + std::to_string(i));
  expect_consistent(client, joined(kept, second), serve, second);
  stop(serve);
}

TEST(ServeFaults, WatchConnectionsCutAgainAndAgain) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  ScratchDir dir;
  TcpProxy proxy(api_port(*plane));
  create_node(client, node("node-a", 4));
  ServeProcess serve(*plane, faults_profile(dir), {"--plugin-dir", kFixtures},
                     through(*plane, proxy));
  wait_until_scheduling(serve);
  std::set<std::string> all;
  for (int wave = 0; wave < 4; ++wave) {
    proxy.cut();
    if (wave == 2) delete_pod_now(client, "wave0-0");
    if (wave == 2) all.erase("wave0-0");
    create_node(client, node("node-" + std::to_string(wave), 1));
    all = joined(all, create_pods(client, "wave" + std::to_string(wave), 2, 1));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  // 8 cpu for 7 pods of 1 (one was deleted): every one is bound, and the relays show the cuts.
  expect_consistent(client, all, serve, all);
  EXPECT_GT(proxy.relayed(), 4);
  stop(serve);
}

// A binding whose answer is lost (the server bound the pod, the connection was cut before the
// answer came back): serve asks the pod, finds it bound where it asked, and finishes the binding
// as a success, instead of writing a SchedulerError over a bound pod.
TEST(ServeFaults, ABindingWhoseAnswerIsLostIsFoundBound) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  ScratchDir dir;
  TcpProxy proxy(api_port(*plane));
  create_node(client, node("node-a", 4));
  ServeProcess serve(*plane, faults_profile(dir), {"--plugin-dir", kFixtures},
                     through(*plane, proxy));
  wait_until_scheduling(serve);
  // A first binding, so that the bindings' connection is open when the answers stop.
  create_pod(client, pod("first", 1));
  ASSERT_TRUE(eventually([&] { return live_decisions(client)["default/first"].node == "node-a"; }))
      << serve.log();
  create_pod(client, pod("lost", 1, 2000));
  EXPECT_EQ(wait_until_binding(serve, "lost"), "node-a");
  proxy.set_answers_dropped(true);  // the POST after the PreBind's 2 s gets no answer
  ASSERT_TRUE(eventually([&] {
    return client.get("/api/v1/namespaces/default/pods/lost")["spec"].value("nodeName", "") ==
           "node-a";
  })) << serve.log();
  proxy.set_answers_dropped(false);
  proxy.cut();
  ASSERT_TRUE(eventually([&] {
    return events_about(client, "default", "lost", "Scheduled").size() == 1;
  })) << serve.log();
  EXPECT_EQ(serve.log().find("serve: default/lost failed"), std::string::npos) << serve.log();
  // Bound, and no PodScheduled=False written over the binding's True.
  EXPECT_EQ(live_decisions(client)["default/lost"].result, "Scheduled") << serve.log();
  stop(serve);
}

// Deleted while its binding is in flight: the write finds no pod (404), the room it was assumed
// on is freed at once, and the pod that did not fit beside it is bound there.
TEST(ServeFaults, APodDeletedWhileItsBindingIsInFlight) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  ScratchDir dir;
  create_node(client, node("node-a", 4));
  ServeProcess serve(*plane, faults_profile(dir), {"--plugin-dir", kFixtures});
  create_pod(client, pod("slow", 3, 4000));
  EXPECT_EQ(wait_until_binding(serve, "slow"), "node-a");
  create_pod(client, pod("after", 3));
  ASSERT_TRUE(eventually([&] {
    return !first_failure_message(client, "default", "after").empty();
  })) << serve.log();
  client.remove("/api/v1/namespaces/default/pods/slow");
  expect_consistent(client, {"after"}, serve, {"after"});
  EXPECT_EQ(live_decisions(client)["default/after"].node, "node-a") << serve.log();
  EXPECT_NE(serve.log().find("serve: default/slow failed"), std::string::npos) << serve.log();
  EXPECT_TRUE(events_about(client, "default", "slow", "Scheduled").empty());
  stop(serve);
}

// Someone else binds the pod while serve's binding is in flight: serve's write gets 409, the pod
// is not retried, and it counts once, on the node the server names.
TEST(ServeFaults, APodBoundBySomeoneElseFirstCountsOnceWhereTheServerSays) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  ScratchDir dir;
  create_node(client, node("node-a", 4));
  create_node(client, node("node-b", 4));
  ServeProcess serve(*plane, faults_profile(dir), {"--plugin-dir", kFixtures});
  create_pod(client, pod("contested", 3, 3000));
  const std::string chosen = wait_until_binding(serve, "contested");
  const std::string other = chosen == "node-a" ? "node-b" : "node-a";
  bind_pod(client, "contested", other);
  // Once serve has given its binding up, the chosen node is whole again and the other has 1 cpu.
  ASSERT_TRUE(eventually([&] {
    return serve.log().find("serve: default/contested failed") != std::string::npos;
  })) << serve.log();
  create_pod(client, pod("four", 4));
  expect_consistent(client, {"four"}, serve, {"four"});
  create_pod(client, pod("two", 2));
  expect_consistent(client, {"contested", "four", "two"}, serve);
  const auto live = live_decisions(client);
  EXPECT_EQ(client.get("/api/v1/namespaces/default/pods/contested")["spec"]["nodeName"], other);
  EXPECT_EQ(live.at("default/four").node, chosen) << serve.log();
  EXPECT_EQ(live.at("default/two").result, "Unschedulable") << serve.log();
  EXPECT_TRUE(events_about(client, "default", "contested", "Scheduled").empty());
  stop(serve);
}

TEST(ServeFaults, ANodeDeletedBetweenTheCycleAndTheBind) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  ScratchDir dir;
  create_node(client, node("node-a", 4));
  ServeProcess serve(*plane, faults_profile(dir), {"--plugin-dir", kFixtures});
  create_pod(client, pod("slow", 3, 3000));
  EXPECT_EQ(wait_until_binding(serve, "slow"), "node-a");
  client.remove("/api/v1/nodes/node-a");
  // The API server accepts a binding to a node it no longer has (it does not look nodes up),
  // as it would for kube-scheduler: the pod is bound there.
  expect_consistent(client, {"slow"}, serve, {"slow"});
  EXPECT_EQ(live_decisions(client)["default/slow"].node, "node-a") << serve.log();
  // The node comes back: the pod bound to it counts there.
  create_node(client, node("node-a", 4));
  create_pod(client, pod("two", 2));
  create_pod(client, pod("one", 1));
  expect_consistent(client, {"slow", "two", "one"}, serve, {"slow", "one"});
  const auto live = live_decisions(client);
  EXPECT_EQ(live.at("default/two").result, "Unschedulable") << serve.log();
  EXPECT_EQ(live.at("default/one").node, "node-a") << serve.log();
  stop(serve);
}

// serve reads its token from a file (tokenFile), as a pod's projected service-account token: the
// token is rotated and the old one revoked mid-run; serve goes on with the new one.
TEST(ServeFaults, ATokenFileRotatedMidRun) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  ScratchDir dir;
  create_node(client, node("node-a", 8));
  plane->create_service_account("schedhost");
  plane->grant_kube_scheduler_role("schedhost");
  // Tokens bound to a Secret: deleting the Secret revokes the token.
  auto token_bound_to = [&](const std::string& secret) {
    return plane->service_account_token("schedhost", secret);
  };
  const std::string token_file = dir.write("token", token_bound_to("first") + "\n");
  const std::string kubeconfig = plane->write_kubeconfig("sa.kubeconfig", plane->server(),
                                                         "    tokenFile: " + token_file + "\n");
  ServeProcess serve(*plane, faults_profile(dir), {"--plugin-dir", kFixtures}, kubeconfig);
  const std::set<std::string> first = create_pods(client, "first", 3, 1);
  expect_consistent(client, first, serve, first);

  dir.write("token", token_bound_to("second") + "\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));   // the file is checked each second
  client.remove("/api/v1/namespaces/kube-system/secrets/first");  // the first token is revoked
  const std::set<std::string> second = create_pods(client, "second", 3, 1);
  expect_consistent(client, joined(first, second), serve, joined(first, second));
  stop(serve);
}

// SIGTERM while a binding is in flight: serve lets it finish (it is quicker than the 10 s grace)
// and exits 0 soon after.
TEST(ServeFaults, SigtermLetsABindingInFlightFinish) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  ScratchDir dir;
  create_node(client, node("node-a", 4));
  ServeProcess serve(*plane, faults_profile(dir), {"--plugin-dir", kFixtures});
  create_pod(client, pod("slow", 1, 2000));
  wait_until_binding(serve, "slow");
  const auto start = std::chrono::steady_clock::now();
  kill(serve.process().pid(), SIGTERM);
  const int status = serve.process().wait();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(8)) << serve.log();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << serve.log();
  EXPECT_EQ(live_decisions(client)["default/slow"].node, "node-a") << serve.log();
}

// SIGTERM while a binding outlasts the grace: serve exits within it plus a little, and the
// binding is never written (the pod stays pending for the next scheduler to take).
TEST(ServeFaults, SigtermAbandonsABindingThatOutlastsTheGrace) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  ScratchDir dir;
  create_node(client, node("node-a", 4));
  ServeProcess serve(*plane, faults_profile(dir), {"--plugin-dir", kFixtures});
  create_pod(client, pod("stuck", 1, 60'000));
  wait_until_binding(serve, "stuck");
  const auto start = std::chrono::steady_clock::now();
  kill(serve.process().pid(), SIGTERM);
  const int status = serve.process().wait();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(14)) << serve.log();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << serve.log();
  EXPECT_NE(serve.log().find("gave up 1 binding in flight"), std::string::npos) << serve.log();
  EXPECT_EQ(live_decisions(client)["default/stuck"].result, "Pending") << serve.log();
  EXPECT_TRUE(events_about(client, "default", "stuck", "Scheduled").empty());
}

// A plugin that crashes in Filter takes serve down (as a panicking plugin takes kube-scheduler
// down), and the last line of serve's log names the plugin, its file, the hook, the pod and the
// node; serve dies by the signal (issue 14).
TEST(ServeFaults, APluginThatCrashesEndsServeWithTheFatalLineLast) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  ScratchDir dir;
  ScratchDir plugins;
  const std::string library = plugins.copy_in(
      std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/plugin_isolation/filter_crash.so", "fatal.so");
  const std::string profile = dir.write("crash.yaml",
                                        "apiVersion: kubescheduler.config.k8s.io/v1\n"
                                        "kind: KubeSchedulerConfiguration\n"
                                        "profiles:\n"
                                        "  - schedulerName: default-scheduler\n"
                                        "    plugins:\n"
                                        "      filter:\n"
                                        "        enabled:\n"
                                        "          - name: Fatal\n");
  create_node(client, node("node-a", 4));
  ServeProcess serve(*plane, profile, {"--plugin-dir", plugins.path()});
  create_pod(client, pod("web-1", 1));
  ASSERT_TRUE(eventually([&] { return !serve.process().running(); })) << serve.log();
  const int status = serve.process().wait();
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) << status << serve.log();
  std::string log = serve.log();
  while (!log.empty() && log.back() == '\n')
    log.pop_back();
  EXPECT_EQ(
      log.substr(log.rfind('\n') + 1),
      "fatal: plugin \"Fatal\" (" + library +
          ", library fatal 1.0.0) crashed with SIGSEGV in Filter for pod default/web-1 on node "
          "node-a")
      << log;
  EXPECT_EQ(live_decisions(client)["default/web-1"].result, "Pending");
}

}  // namespace
}  // namespace schedhost::testing
