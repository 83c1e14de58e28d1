// What v1.35 changed, seen by serve against the real v1.35 API server: a pod's pod-level
// resources decide where it fits (the API server keeps spec.resources for the scheduler), and a
// pod with spec.resourceClaims is left unschedulable with the message naming the missing
// DynamicResources plugin; and a pod whose PreBind will work shows where it is going
// (nominatedNodeName) while PreBind runs; a preemption (asynchronous, as v1.35's) makes no call
// for a victim whose deletion has already begun.
#include <gtest/gtest.h>

#include "serve/serve_support.hpp"

namespace schedhost::testing::serve_v1_35_test {

using nlohmann::json;

const char* const kDefaultProfile =
    "apiVersion: kubescheduler.config.k8s.io/v1\n"
    "kind: KubeSchedulerConfiguration\n"
    "leaderElection: {leaderElect: false}\n"
    "profiles:\n- schedulerName: default-scheduler\n";

TEST(ServeV135, PodLevelResourcesAndResourceClaimsAreDecidedAsV135Would) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  create_node(client, test_node("n1", "2"));
  create_node(client, test_node("n2", "4"));
  // 3 cpus at pod level, none in the container: only n2 has room.
  json big = test_pod("big", "0");
  big["spec"]["containers"][0].erase("resources");
  big["spec"]["resources"] = {{"requests", {{"cpu", "3"}}}};
  // 5 cpus at pod level: no node has room.
  json huge = big;
  huge["metadata"]["name"] = "huge";
  huge["spec"]["resources"]["requests"]["cpu"] = "5";
  json claimed = test_pod("gpu-job", "100m");
  claimed["spec"]["containers"][0]["resources"]["claims"] = json::array({{{"name", "gpu"}}});
  claimed["spec"]["resourceClaims"] =
      json::array({{{"name", "gpu"}, {"resourceClaimName", "gpu-claim"}}});
  for (const json& p : {big, huge, claimed})
    client.create(ns_path("default") + "/pods", p);
  ScratchDir dir;
  ServeProcess serve(*plane, dir.write("profile.yaml", kDefaultProfile));

  ASSERT_TRUE(eventually([&] { return live_decisions(client)["default/big"].node == "n2"; }))
      << serve.log();
  ASSERT_TRUE(eventually([&] {
    return first_failure_message(client, "default", "huge")
        .starts_with("0/2 nodes are available: 2 Insufficient cpu.");
  })) << first_failure_message(client, "default", "huge")
      << serve.log();
  ASSERT_TRUE(eventually([&] {
    return first_failure_message(client, "default", "gpu-job")
        .starts_with(
            "0/2 nodes are available: pod uses spec.resourceClaims (dynamic resource "
            "allocation), which needs the DynamicResources plugin");
  })) << first_failure_message(client, "default", "gpu-job")
      << serve.log();
  EXPECT_EQ(live_decisions(client)["default/gpu-job"].node, "");
  EXPECT_TRUE(serve.process().running());
}

// The default profile plus SlowPreBind (tests/serve/fixtures), which holds the pods labelled
// schedhost.test/pre-bind-ms in PreBind and skips the others in its PreBindPreFlight.
const char* const kSlowPreBindProfile =
    "apiVersion: kubescheduler.config.k8s.io/v1\n"
    "kind: KubeSchedulerConfiguration\n"
    "leaderElection: {leaderElect: false}\n"
    "profiles:\n- schedulerName: default-scheduler\n"
    "  plugins:\n    preBind:\n      enabled: [{name: SlowPreBind}]\n";

// The pod's status.nominatedNodeName and spec.nodeName as the API server has them.
std::pair<std::string, std::string> nominated_and_bound(kube::ApiClient& client,
                                                        const std::string& name) {
  const json pod = client.get(ns_path("default") + "/pods/" + name);
  return {pod.value("/status/nominatedNodeName"_json_pointer, std::string()),
          pod.value("/spec/nodeName"_json_pointer, std::string())};
}

// Node n1 and pod "held", which SlowPreBind holds for hold_ms in PreBind.
void create_node_and_held_pod(kube::ApiClient& client, const std::string& hold_ms) {
  create_node(client, test_node("n1", "4"));
  json held = test_pod("held", "100m");
  held["metadata"]["labels"]["schedhost.test/pre-bind-ms"] = hold_ms;
  client.create(ns_path("default") + "/pods", held);
}

TEST(ServeV135, APodIsNominatedToItsNodeWhileAPreBindWorksOnIt) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  create_node_and_held_pod(client, "3000");
  ScratchDir dir;
  ServeProcess serve(*plane, dir.write("profile.yaml", kSlowPreBindProfile),
                     {"--plugin-dir", std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/serve"});
  // While SlowPreBind holds it, the pod says where it is going; it is not bound yet.
  ASSERT_TRUE(eventually([&] {
    return nominated_and_bound(client, "held") == std::pair<std::string, std::string>{"n1", ""};
  })) << serve.log();
  // Bound; v1.35's API server (ClearingNominatedNodeNameAfterBinding) clears the nomination.
  ASSERT_TRUE(eventually([&] { return nominated_and_bound(client, "held").second == "n1"; }))
      << serve.log();
  const json version = client.get("/version");
  if (std::stoi(version.value("minor", "0")) >= 35) {
    EXPECT_EQ(nominated_and_bound(client, "held").first, "");
  }
  EXPECT_TRUE(serve.process().running());
}

TEST(ServeV135, WithTheGateOffNoNominationIsWrittenForPreBind) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  create_node_and_held_pod(client, "2000");
  ScratchDir dir;
  ServeProcess serve(*plane, dir.write("profile.yaml", kSlowPreBindProfile),
                     {"--plugin-dir", std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/serve",
                      "--feature-gates", "NominatedNodeNameForExpectation=false"});
  ASSERT_TRUE(eventually([&] {
    return serve.log().find("SlowPreBind: holding default/held on n1") != std::string::npos;
  })) << serve.log();
  EXPECT_EQ(nominated_and_bound(client, "held"), (std::pair<std::string, std::string>{"", ""}));
  ASSERT_TRUE(eventually([&] { return nominated_and_bound(client, "held").second == "n1"; }))
      << serve.log();
  EXPECT_EQ(nominated_and_bound(client, "held").first, "");
}

// A pod bound to node with `cpu`, priority 0 and a finalizer (so that it stays readable once
// deleted).
void create_kept_victim(kube::ApiClient& client, const std::string& name, const std::string& node,
                        const std::string& cpu) {
  json pod = test_pod(name, cpu);
  pod["metadata"]["finalizers"] = json::array({"schedhost.test/keep"});
  pod["spec"]["nodeName"] = node;
  pod["spec"]["priority"] = 0;
  client.create(ns_path("default") + "/pods", pod);
}

// The reason of the pod's DisruptionTarget condition; "" without one.
std::string disruption_reason(const json& pod) {
  for (const json& c : pod.value("/status/conditions"_json_pointer, json::array())) {
    if (c.value("type", "") == "DisruptionTarget") return c.value("reason", "");
  }
  return "";
}

void let_go(kube::ApiClient& client, const std::string& name) {
  client.patch(ns_path("default") + "/pods/" + name, {{"metadata", {{"finalizers", nullptr}}}},
               kube::PatchType::Merge);
  try {
    client.remove(ns_path("default") + "/pods/" + name, {{"gracePeriodSeconds", 0}});
  } catch (const kube::ApiError& e) {
    if (!e.not_found()) throw;
  }
}

// Two victims on n1: "going" is already being deleted (someone else's DELETE, held by its
// finalizer), "stays" is not. v1.35 sends no call for the first: no DisruptionTarget, no
// Preempted event; the second gets both, from serve's preemption workers, while the preemptor
// waits nominated; it is bound once both are gone.
TEST(ServeV135, APreemptionMakesNoCallForAVictimAlreadyBeingDeleted) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  create_node(client, test_node("n1", "2"));
  create_kept_victim(client, "going", "n1", "1");
  create_kept_victim(client, "stays", "n1", "1");
  client.remove(ns_path("default") + "/pods/going", {{"gracePeriodSeconds", 0}});
  ASSERT_TRUE(
      client.get(ns_path("default") + "/pods/going")["metadata"].contains("deletionTimestamp"));
  ScratchDir dir;
  ServeProcess serve(*plane, dir.write("profile.yaml", kDefaultProfile));
  json high = test_pod("high", "2");
  high["spec"]["priority"] = 1000;
  client.create(ns_path("default") + "/pods", high);

  const auto victim = [&](const std::string& name) {
    return client.get(ns_path("default") + "/pods/" + name);
  };
  ASSERT_TRUE(eventually([&] {
    return victim("stays")["metadata"].contains("deletionTimestamp") &&
           nominated_and_bound(client, "high").first == "n1";
  })) << serve.log();
  ASSERT_TRUE(eventually([&] {
    return events_about(client, "default", "stays", "Preempted").size() == 1;
  })) << serve.log();
  EXPECT_EQ(disruption_reason(victim("stays")), "PreemptionByScheduler");
  EXPECT_EQ(disruption_reason(victim("going")), "");
  EXPECT_TRUE(events_about(client, "default", "going", "Preempted").empty());

  let_go(client, "going");
  let_go(client, "stays");
  ASSERT_TRUE(eventually([&] { return nominated_and_bound(client, "high").second == "n1"; }))
      << serve.log();
  EXPECT_TRUE(serve.process().running());
}

}  // namespace schedhost::testing::serve_v1_35_test
