// Nominated pods in `schedhost run` (upstream's RunFilterPluginsWithNominatedPods): a pending pod
// nominated to a node (status.nominatedNodeName) counts there for the pods of equal or lower
// priority, and the node must pass Filter both with and without it. "reserved" cannot run
// anywhere itself (its nodeSelector matches no node) and never preempts, so its nomination stays
// for the whole run.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>

#include "support/fixtures.hpp"
#include "support/process.hpp"

namespace schedhost::testing::nominated_pods_test {

const std::string kSource = SCHEDHOST_SOURCE_DIR;

std::string node(const std::string& name) {
  return "apiVersion: v1\nkind: Node\nmetadata: {name: " + name +
         ", labels: {kubernetes.io/hostname: " + name +
         "}}\nstatus: {allocatable: {cpu: '2', memory: 4Gi, pods: '110'}}\n---\n";
}

// A pending pod; `extra` is more of its spec (flow style, after the containers).
std::string pod(const std::string& name, int priority, const std::string& cpu,
                const std::string& labels, const std::string& extra,
                const std::string& nominated = "") {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
         ", namespace: default, uid: " + name + "-uid, labels: {" + labels +
         "}}\nspec: {priority: " + std::to_string(priority) +
         ", containers: [{name: c, image: i, resources: {requests: {cpu: '" + cpu + "'}}}]" +
         extra + "}\n" +
         (nominated.empty() ? "" : "status: {nominatedNodeName: " + nominated + "}\n") + "---\n";
}

const std::string kReservedSpec = ", nodeSelector: {disk: ssd}, preemptionPolicy: Never";

nlohmann::json run(const std::string& cluster) {
  ScratchDir dir;
  const auto r = run_schedhost({"run", "--config", kSource + "/configs/default-profile.yaml",
                                "--cluster", dir.write("cluster.yaml", cluster), "-o", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  return nlohmann::json::parse(r.out);
}

nlohmann::json decision(const nlohmann::json& result, const std::string& pod) {
  for (const auto& p : result["pods"]) {
    if (p["pod"] == "default/" + pod) return p;
  }
  return nullptr;
}

TEST(NominatedPods, AHigherPriorityNomineeKeepsItsRoomFromLowerPods) {
  const nlohmann::json r =
      run(node("n1") + pod("reserved", 1000, "2", "app: db", kReservedSpec, "n1") +
          pod("filler", 0, "1500m", "app: web", ""));
  EXPECT_EQ(decision(r, "filler"),
            nlohmann::json::parse(R"({"pod": "default/filler", "profile": "default-scheduler",
      "result": "Unschedulable", "node": "",
      "message": "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."})"));
  EXPECT_EQ(decision(r, "reserved")["result"], "Unschedulable");
}

TEST(NominatedPods, ALowerPriorityNomineeDoesNotCount) {
  const nlohmann::json r =
      run(node("n1") + pod("reserved", 0, "2", "app: db", kReservedSpec, "n1") +
          pod("filler", 10, "1500m", "app: web", ""));
  EXPECT_EQ(decision(r, "filler")["result"], "Scheduled");
  EXPECT_EQ(decision(r, "filler")["node"], "n1");
}

TEST(NominatedPods, TheOtherNodeIsChosenWhileTheNomineeHoldsOne) {
  // Without the nomination both nodes fit filler; with it only n2 does.
  const nlohmann::json r =
      run(node("n1") + node("n2") + pod("reserved", 1000, "2", "app: db", kReservedSpec, "n1") +
          pod("filler", 0, "1500m", "app: web", ""));
  EXPECT_EQ(decision(r, "filler")["result"], "Scheduled");
  EXPECT_EQ(decision(r, "filler")["node"], "n2");
}

TEST(NominatedPods, ANodeMustFitWithoutTheNomineeToo) {
  // follower needs a pod labelled app=db on its node: the nominee would satisfy it, but it may
  // never arrive, so the node fails on the pass without it.
  const std::string affinity =
      ", affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
      "[{labelSelector: {matchLabels: {app: db}}, topologyKey: kubernetes.io/hostname}]}}";
  const nlohmann::json r =
      run(node("n1") + pod("reserved", 1000, "100m", "app: db", kReservedSpec, "n1") +
          pod("follower", 0, "100m", "app: web", affinity));
  EXPECT_EQ(decision(r, "follower"),
            nlohmann::json::parse(R"({"pod": "default/follower", "profile": "default-scheduler",
      "result": "Unschedulable", "node": "",
      "message": "0/1 nodes are available: 1 node(s) didn't match pod affinity rules. no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."})"));
}

}  // namespace schedhost::testing::nominated_pods_test
