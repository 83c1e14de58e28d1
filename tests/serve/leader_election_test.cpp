// Leader election against the real API server (issue 17): two `serve` replicas on one Lease, only
// the leader schedules; the leader killed (no release), the follower takes over once it has seen
// the Lease unchanged for leaseDuration and schedules the rest, each pod bound once; a clean stop
// releases the Lease. Short durations keep the test quick: lease 4 s, renew 3 s, retry 500 ms.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <algorithm>

#include <map>
#include <set>
#include <string>
#include <thread>

#include "serve/serve_support.hpp"

namespace schedhost::testing::leader_election_test {

const std::string kLeasePath =
    "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler";

json node(const std::string& name) {
  const json resources = {{"cpu", "8"}, {"memory", "32Gi"}, {"pods", "110"}};
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", {{"kubernetes.io/hostname", name}}}}},
          {"status", {{"allocatable", resources}, {"capacity", resources}}}};
}

std::set<std::string> create_pods(kube::ApiClient& client, const std::string& prefix, int n) {
  std::set<std::string> names;
  for (int i = 0; i < n; ++i) {
    const std::string name = prefix + "-" + std::to_string(i);
    client.create(
        ns_path("default") + "/pods",
        {{"apiVersion", "v1"},
         {"kind", "Pod"},
         {"metadata", {{"name", name}, {"namespace", "default"}}},
         {"spec",
          {{"containers", json::array({{{"name", "c"},
                                        {"image", "registry.k8s.io/pause:3.10"},
                                        {"resources", {{"requests", {{"cpu", "100m"}}}}}}})}}}});
    names.insert(name);
  }
  return names;
}

// The identity a replica logged when it became a candidate.
std::string identity_of(const ServeProcess& serve) {
  const std::string log = serve.log();
  const std::string mark = "leader election: ";
  const auto at = log.find(mark);
  if (at == std::string::npos) return "";
  const auto begin = at + mark.size();
  return log.substr(begin, log.find(' ', begin) - begin);
}

bool logged(const ServeProcess& serve, const std::string& text) {
  return serve.log().find(text) != std::string::npos;
}

std::string write_profile(const ScratchDir& dir) {
  return dir.write("profile.yaml", kShortLeaseProfile);
}

TEST(ServeLeaderElection, OnlyTheLeaderSchedulesAndTheFollowerTakesOverWhenItDies) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  ScratchDir dir;
  const std::string config = write_profile(dir);
  create_node(client, node("n1"));

  ServeProcess first(*plane, config);
  ASSERT_TRUE(eventually([&] { return logged(first, "became leader"); })) << first.log();
  ServeProcess second(*plane, config);
  ASSERT_TRUE(eventually([&] { return logged(second, "caches synced; waiting to lead"); }))
      << second.log();
  const std::string leader = identity_of(first);
  const std::string follower = identity_of(second);
  ASSERT_FALSE(leader.empty());
  ASSERT_NE(leader, follower);
  json lease = client.get(kLeasePath);
  EXPECT_EQ(lease["spec"]["holderIdentity"], leader);
  EXPECT_EQ(lease["spec"]["leaseDurationSeconds"], 4);
  EXPECT_EQ(lease["spec"]["leaseTransitions"], 0);

  const std::set<std::string> before = create_pods(client, "before", 4);
  ASSERT_TRUE(eventually([&] { return all_bound(client, before); })) << first.log();
  EXPECT_FALSE(logged(second, "scheduling for")) << second.log();  // the follower never started

  // The leader dies without releasing: the follower waits until it has seen the Lease unchanged
  // for 4 s, then takes it (one transition) and schedules what came meanwhile.
  ::kill(first.process().pid(), SIGKILL);
  first.process().wait();
  const auto killed = std::chrono::steady_clock::now();
  const std::set<std::string> after = create_pods(client, "after", 4);
  ASSERT_TRUE(eventually([&] { return all_bound(client, after); }, std::chrono::seconds(30)))
      << second.log();
  EXPECT_LT(std::chrono::steady_clock::now() - killed, std::chrono::seconds(15));
  EXPECT_TRUE(logged(second, follower + " became leader")) << second.log();
  lease = client.get(kLeasePath);
  EXPECT_EQ(lease["spec"]["holderIdentity"], follower);
  EXPECT_EQ(lease["spec"]["leaseTransitions"], 1);
  // Each pod bound once: the follower never met a pod the dead leader had bound (a second
  // binding would be refused with 409), and the pods it bound have one Scheduled event each (the
  // leader's events died with it, unflushed, as kube-scheduler's would).
  EXPECT_FALSE(logged(second, "already")) << second.log();
  for (const std::string& name : after) {
    EXPECT_TRUE(eventually([&] {
      return events_about(client, "default", name, "Scheduled").size() == 1u;
    })) << name;
  }
  // The two "became leader" events on the Lease, as client-go records them.
  int became = 0;
  const json events = client.get("/api/v1/namespaces/kube-system/events");
  for (const json& e : events["items"]) {
    if (e["reason"] == "LeaderElection" && e["involvedObject"]["kind"] == "Lease" &&
        e["message"].get<std::string>().find(" became leader") != std::string::npos) {
      ++became;
    }
  }
  EXPECT_EQ(became, 2) << events.dump() << second.log();

  // A clean stop releases the Lease: nobody holds it, for 1 s.
  ::kill(second.process().pid(), SIGTERM);
  const int status = second.process().stop(20'000);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << second.log();
  lease = client.get(kLeasePath);
  EXPECT_EQ(lease["spec"]["holderIdentity"], "");
  EXPECT_EQ(lease["spec"]["leaseDurationSeconds"], 1);
  EXPECT_EQ(lease["spec"]["leaseTransitions"], 1);
}

TEST(ServeLeaderElection, ALeaderThatCannotRenewStopsAndExitsOne) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  ScratchDir dir;
  ServeProcess serve(*plane, write_profile(dir));
  ASSERT_TRUE(eventually([&] { return logged(serve, "became leader"); })) << serve.log();
  // Someone else takes the Lease (as a replica that judged it expired would): the leader's
  // renewals fail from now on, and after renewDeadline it stops at once with exit code 1.
  json lease = client.get(kLeasePath);
  lease["spec"]["holderIdentity"] = "intruder";
  client.replace(kLeasePath, lease);
  const int status = serve.process().wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << status << serve.log();
  EXPECT_TRUE(logged(serve, "serve: leader election lost; exiting")) << serve.log();
}

TEST(ServeLeaderElection, ABadLeaderElectionBlockIsOneLineAndExitCode2) {
  ScratchDir dir;
  const std::string config = dir.write("profile.yaml", R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  resourceLock: endpoints
profiles:
- schedulerName: default-scheduler
)");
  const ProcessResult r =
      run_schedhost({"serve", "--config", config, "--kubeconfig", dir.file("none")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + config +
                       ":4:3: leaderElection: resourceLock \"endpoints\" is not supported: "
                       "kube-scheduler elects its leader on a Lease, write \"leases\"\n");
  // The flag turns election off: the block is not checked, serve goes on (to a missing
  // kubeconfig here).
  const ProcessResult off = run_schedhost(
      {"serve", "--config", config, "--kubeconfig", dir.file("none"), "--leader-elect=false"});
  EXPECT_EQ(off.exit_code, 2);
  EXPECT_EQ(off.err.find("leaderElection"), std::string::npos) << off.err;
  EXPECT_NE(off.err.find(dir.file("none")), std::string::npos) << off.err;
  const ProcessResult flagged = run_schedhost({"serve", "--config", config, "--kubeconfig",
                                               dir.file("none"), "--leader-elect-resource-lock",
                                               "leases", "--leader-elect-retry-period", "9s"});
  EXPECT_EQ(flagged.err, "error: " + config +
                             ":4:3: leaderElection (with the --leader-elect flags): renewDeadline "
                             "must be greater than 1.2 x retryPeriod\n");
}

// SIGTERM in the middle of a burst (pods still arriving): serve stops popping, lets the bindings
// in flight finish within its grace (10 s), releases the Lease and exits 0. Nothing is half
// done: every pod is bound with its Scheduled event, or untouched (no node, no condition, no
// event); a second replica then binds the rest, each pod with exactly one Scheduled event.
TEST(ServeLeaderElection, SigtermDuringABurstExitsCleanlyAndLeavesNothingHalfDone) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  ScratchDir dir;
  const std::string config = write_profile(dir);
  for (const char* n : {"n1", "n2", "n3", "n4"})
    create_node(client, node(n));  // 80 pods of 100m each

  ServeProcess first(*plane, config);
  ASSERT_TRUE(eventually([&] { return logged(first, "became leader"); })) << first.log();
  std::set<std::string> pods;
  std::thread creator([&] {
    kube::ApiClient own(plane->admin_config());
    pods = create_pods(own, "burst", 300);
  });
  const auto bound_count = [&] {
    int bound = 0;
    for (const auto& [key, d] : live_decisions(client))
      bound += d.node.empty() ? 0 : 1;
    return bound;
  };
  const bool started = eventually([&] { return bound_count() >= 40; });
  const auto start = std::chrono::steady_clock::now();
  ::kill(first.process().pid(), SIGTERM);
  const int status = first.process().wait();
  const auto took = std::chrono::steady_clock::now() - start;
  creator.join();
  ASSERT_TRUE(started) << first.log();
  EXPECT_LT(took, std::chrono::seconds(11));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << first.log();
  EXPECT_TRUE(logged(first, "serve: stopped:")) << first.log();
  const json lease = client.get(kLeasePath);
  EXPECT_EQ(lease["spec"]["holderIdentity"], "");

  // Scheduled events per pod name.
  const auto scheduled_events = [&] {
    std::map<std::string, int> count;
    const json events = client.get("/apis/events.k8s.io/v1/namespaces/default/events");
    for (const json& e : events["items"]) {
      if (e.value("reason", "") == "Scheduled") {
        count[e["regarding"].value("name", "")] += e.value("deprecatedCount", 1);
      }
    }
    return count;
  };
  const json listed = client.get(ns_path("default") + "/pods");
  std::map<std::string, int> events = scheduled_events();
  int bound = 0;
  for (const json& p : listed["items"]) {
    const std::string name = p["metadata"]["name"];
    const bool has_node = !p["spec"].value("nodeName", "").empty();
    bound += has_node ? 1 : 0;
    EXPECT_EQ(events[name], has_node ? 1 : 0) << name;
    if (!has_node) {
      EXPECT_FALSE(p.contains("status") && p["status"].contains("conditions")) << p.dump();
    }
  }
  EXPECT_GE(bound, 40);
  EXPECT_LT(bound, 300) << "the burst ended before SIGTERM: nothing was left to test";

  // The next replica takes the released Lease at once and binds the rest.
  ServeProcess second(*plane, config);
  ASSERT_TRUE(eventually([&] { return all_bound(client, pods); })) << second.log();
  // Events are written after the bindings, in batches: wait until each pod has its event, then
  // check that none has two.
  EXPECT_TRUE(eventually([&] {
    events = scheduled_events();
    return std::all_of(pods.begin(), pods.end(),
                       [&](const std::string& name) { return events[name] >= 1; });
  })) << second.log();
  for (const std::string& name : pods)
    EXPECT_EQ(events[name], 1) << name;
}

}  // namespace schedhost::testing::leader_election_test
