// VolumeBinding's assume cache across cycles (Reserve, Unreserve, the snapshot moving on), its
// binding-cycle hooks (PreBindPreFlight, PreBind), and its scores under StorageCapacityScoring,
// as kube-scheduler v1.35.4's binder.go, passive_assume_cache.go and scorer.go decide them; the
// score tables are upstream's TestVolumeBinding rows.
#include "volume_binding_fixture.hpp"

namespace schedhost::testing::volume_binding {
namespace {

// The utilization as the score: shape 0 -> 0, 100 -> 10 (x10), so a score names the PV taken.
constexpr const char* kUtilizationShape =
    R"({"shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]})";

class ReserveTest : public VolumeBindingTest {
 protected:
  ReserveTest() {
    host_->set_feature_gate("StorageCapacityScoring", true);
    add(kPV, PV("pv-5").available().capacity("5Gi"));
    add(kPV, PV("pv-10").available().capacity("10Gi"));
    for (const auto& [claim, size] : std::vector<std::pair<std::string, std::string>>{
             {"a", "1Gi"}, {"b", "6Gi"}, {"c", "1Gi"}, {"d", "1Gi"}}) {
      add(kPVC, PVC(claim).request(size));
    }
    plugin(kUtilizationShape);
  }

  std::int64_t score(Cycle& c, const std::string& node) {
    const HookResult r = plugin().score(c.state, c.pod, node);
    EXPECT_TRUE(r.ok()) << r;
    return r.score;
  }
};

TEST_F(ReserveTest, AReservedPVIsTakenForTheNextPodsUntilUnreserved) {
  Cycle a = run(pod_with_claims("pod-a", {"a"}));
  expect_result(a.filter.at("node-a"), ok(), "a");
  EXPECT_EQ(score(a, "node-a"), 20);  // 1Gi of pv-5: the smallest PV that holds it
  expect_result(plugin().reserve(a.state, a.pod, "node-a"), ok(), "Reserve a");
  expect_result(plugin().pre_bind_pre_flight(a.state, a.pod, "node-a"), ok(), "PreFlight a");
  // No API server (the fake host without answer_api, as run): the binding is taken as made.
  expect_result(plugin().pre_bind(a.state, a.pod, "node-a"), ok(), "PreBind a");

  Cycle b = run(pod_with_claims("pod-b", {"b"}));  // 6Gi: only pv-10 ever held it
  expect_result(b.filter.at("node-b"), ok(), "b");
  EXPECT_EQ(score(b, "node-b"), 60);

  Cycle c = run(pod_with_claims("pod-c", {"c"}));  // pv-5 is taken: pv-10
  expect_result(c.filter.at("node-a"), ok(), "c");
  EXPECT_EQ(score(c, "node-a"), 10);
  expect_result(plugin().reserve(c.state, c.pod, "node-c"), ok(), "Reserve c");

  Cycle d = run(pod_with_claims("pod-d", {"d"}));
  for (const char* n : {"node-a", "node-b", "node-c"})
    expect_result(d.filter.at(n), unresolvable({kBindConflict}), std::string("d on ") + n);

  // Unreserve gives pv-5 back; a second Unreserve changes nothing.
  expect_result(plugin().unreserve(a.state, a.pod, "node-a"), ok(), "Unreserve a");
  expect_result(plugin().unreserve(a.state, a.pod, "node-a"), ok(), "Unreserve a again");
  Cycle d2 = run(pod_with_claims("pod-d", {"d"}));
  expect_result(d2.filter.at("node-b"), ok(), "d after a's Unreserve");
  EXPECT_EQ(score(d2, "node-b"), 20);

  // Restore goes by name and resourceVersion, not by pod or node (upstream's passive cache):
  // an Unreserve of c for node-b, where Filter found pv-10 too, gives pv-10 back.
  Cycle b2 = run(pod_with_claims("pod-b", {"b"}));
  expect_result(b2.filter.at("node-a"), unresolvable({kBindConflict}), "b while c holds pv-10");
  expect_result(plugin().unreserve(c.state, c.pod, "node-b"), ok(), "Unreserve c for node-b");
  Cycle b3 = run(pod_with_claims("pod-b", {"b"}));
  expect_result(b3.filter.at("node-a"), ok(), "b after c's Unreserve");
}

TEST_F(ReserveTest, AnAssumptionHoldsWhileTheSnapshotKeepsItsResourceVersion) {
  Cycle a = run(pod_with_claims("pod-a", {"a"}));
  expect_result(plugin().reserve(a.state, a.pod, "node-a"), ok(), "Reserve a");
  // The same version again (a resync): still assumed.
  add(kPV, PV("pv-5").available().capacity("5Gi"));
  Cycle c = run(pod_with_claims("pod-c", {"c"}));
  EXPECT_EQ(score(c, "node-a"), 10);
  // The API server's bound PV (a newer version): the snapshot wins, the assumption is dropped.
  add(kPV,
      PV("pv-5").capacity("5Gi").phase("Bound").claim_ref("default", "a", "uid-a").version("2"));
  Cycle c2 = run(pod_with_claims("pod-c", {"c"}));
  EXPECT_EQ(score(c2, "node-a"), 10);
  // Back to an Available version "1" (as the lead's file would have it): the assumption was
  // dropped with version 2, so pv-5 is free again.
  add(kPV, PV("pv-5").available().capacity("5Gi"));
  Cycle c3 = run(pod_with_claims("pod-c", {"c"}));
  EXPECT_EQ(score(c3, "node-a"), 20);
}

TEST_F(ReserveTest, ReserveFailsWhenThePVChangedSinceFilter) {
  Cycle a = run(pod_with_claims("pod-a", {"a"}));
  expect_result(a.filter.at("node-a"), ok(), "a");
  add(kPV, PV("pv-5").available().capacity("5Gi").version("7"));
  expect_result(plugin().reserve(a.state, a.pod, "node-a"),
                error("\"pv-5\" is out of sync (stored: 7, assume: 1)"), "Reserve a");
  expect_result(plugin().unreserve(a.state, a.pod, "node-a"), ok(), "Unreserve a");
  Cycle c = run(pod_with_claims("pod-c", {"c"}));
  EXPECT_EQ(score(c, "node-a"), 20);  // nothing was assumed
}

TEST_F(ReserveTest, AProvisionedClaimIsAssumedWithTheSelectedNode) {
  add(kSC, storage_class("fast", "WaitForFirstConsumer", "example.com/disk"));
  add(kPVC, PVC("shared", "fast"));
  Cycle p = run(pod_with_claims("pod-p", {"shared"}));
  for (const char* n : {"node-a", "node-b", "node-c"})
    expect_result(p.filter.at(n), ok(), std::string("p on ") + n);
  expect_result(plugin().reserve(p.state, p.pod, "node-b"), ok(), "Reserve p");
  expect_result(plugin().pre_bind(p.state, p.pod, "node-b"), ok(), "PreBind p");
  // A second pod of the same claim now follows the selected node.
  Cycle q = run(pod_with_claims("pod-q", {"shared"}));
  expect_result(q.filter.at("node-a"), unresolvable({kBindConflict}), "q on node-a");
  expect_result(q.filter.at("node-b"), ok(), "q on node-b");
  plugin().unreserve(p.state, p.pod, "node-b");
  Cycle q2 = run(pod_with_claims("pod-q", {"shared"}));
  expect_result(q2.filter.at("node-a"), ok(), "q on node-a after Unreserve");
  // Assumed again, then the claim changes in the snapshot: the assumption goes.
  expect_result(plugin().reserve(q2.state, q2.pod, "node-c"), ok(), "Reserve q");
  add(kPVC, PVC("shared", "fast").version("2"));
  Cycle r = run(pod_with_claims("pod-r", {"shared"}));
  expect_result(r.filter.at("node-a"), ok(), "r on node-a");
}

TEST_F(ReserveTest, BindingCycleHooks) {
  add(kPVC, PVC("bound").bound("pv-bound"));
  add(kPV, PV("pv-bound").capacity("1Gi"));
  add(kSC, storage_class("fast", "WaitForFirstConsumer", "example.com/disk"));
  add(kPVC, PVC("dyn", "fast").request("1Gi"));

  // Every claim bound: nothing to do at PreBind.
  Cycle b = run(pod_with_claims("pod-bound", {"bound"}));
  expect_result(b.filter.at("node-a"), ok(), "bound");
  expect_result(plugin().reserve(b.state, b.pod, "node-a"), ok(), "Reserve bound");
  EXPECT_EQ(plugin().pre_bind_pre_flight(b.state, b.pod, "node-a").code, Code::Skip);
  expect_result(plugin().pre_bind(b.state, b.pod, "node-a"), ok(), "PreBind bound");

  // One static binding and one provisioning: two claims to bind.
  Cycle two = run(pod_with_claims("pod-two", {"bound", "a", "dyn"}));
  expect_result(two.filter.at("node-a"), ok(), "two");
  expect_result(plugin().reserve(two.state, two.pod, "node-a"), ok(), "Reserve two");
  expect_result(plugin().pre_bind_pre_flight(two.state, two.pod, "node-a"), ok(), "PreFlight");
  expect_result(plugin().pre_bind(two.state, two.pod, "node-a"), ok(), "PreBind two");
  // A node Filter never saw: upstream's errNoPodVolumeForNode.
  expect_result(plugin().pre_bind_pre_flight(two.state, two.pod, "node-x"),
                error("no pod volume found for node \"node-x\""), "PreFlight node-x");
  expect_result(plugin().pre_bind(two.state, two.pod, "node-x"),
                error("no pod volume found for node \"node-x\""), "PreBind node-x");

  // Reserve on a node without Filter's volumes takes the pod as bound (upstream).
  Cycle odd = run(pod_with_claims("pod-odd", {"c"}));
  expect_result(plugin().reserve(odd.state, odd.pod, "node-x"), ok(), "Reserve node-x");
  EXPECT_EQ(plugin().pre_bind_pre_flight(odd.state, odd.pod, "node-x").code, Code::Skip);

  // Without PreFilter's state: upstream's "not found".
  FakeCycleState empty;
  const FakePod lone = pod_with_claims("lone", {"c"});
  expect_result(plugin().reserve(empty, lone, "node-a"), error("not found"), "Reserve");
  expect_result(plugin().pre_bind_pre_flight(empty, lone, "node-a"), error("not found"), "PF");
  expect_result(plugin().pre_bind(empty, lone, "node-a"), error("not found"), "PreBind");
  expect_result(plugin().filter(empty, lone, "node-a"), error("not found"), "Filter");
  expect_result(plugin().unreserve(empty, lone, "node-a"), ok(), "Unreserve");
}

// Upstream TestVolumeBinding's scoring rows (the tests' shape is 0 -> 0, 100 -> 10).
class ScoreTest : public VolumeBindingTest {
 protected:
  std::vector<std::int64_t> scores(Cycle& c) {
    std::vector<std::int64_t> out;
    for (const std::string& n : host_->node_names())
      out.push_back(plugin().score(c.state, c.pod, n).score);
    return out;
  }
  void capacities() {
    add(kCapacity, capacity("node-a", "wait-sc-with-storage-capacity", on_node("node-a"), "100Gi"));
    add(kCapacity, capacity("node-b", "wait-sc-with-storage-capacity", on_node("node-b"), "50Gi"));
    add(kCapacity, capacity("node-c", "wait-sc-with-storage-capacity", on_node("node-c"), "10Gi"));
  }
};

TEST_F(ScoreTest, WithoutTheGatePreScoreSkips) {
  add(kPVC, PVC("pvc-a").request("50Gi"));
  add(kPV, PV("pv-a").available().capacity("100Gi"));
  Cycle c = run(pod_with_claims("pod-a", {"pvc-a"}));
  expect_result(c.filter.at("node-a"), ok(), "Filter");
  EXPECT_EQ(plugin().pre_score(c.state, c.pod).code, Code::Skip);
  EXPECT_EQ(plugin().score(c.state, c.pod, "node-a").score, 0);
}

TEST_F(ScoreTest, LocalVolumesWithCloseCapacityArePreferred) {
  host_->set_feature_gate("StorageCapacityScoring", true);
  add(kPVC, PVC("pvc-a").request("50Gi"));
  add(kPV, PV("pv-a-0").available().capacity("200Gi").affinity({{kHostname, {"node-a"}}}));
  add(kPV, PV("pv-a-1").available().capacity("200Gi").affinity({{kHostname, {"node-a"}}}));
  add(kPV, PV("pv-b-0").available().capacity("100Gi").affinity({{kHostname, {"node-b"}}}));
  add(kPV, PV("pv-b-1").available().capacity("100Gi").affinity({{kHostname, {"node-b"}}}));
  plugin(kUtilizationShape);
  Cycle c = run(pod_with_claims("pod-a", {"pvc-a"}));
  expect_result(c.filter.at("node-c"), unresolvable({kBindConflict}), "node-c");
  EXPECT_EQ(plugin().pre_score(c.state, c.pod).code, Code::Success);
  EXPECT_EQ(scores(c), (std::vector<std::int64_t>{25, 50, 0}));
}

TEST_F(ScoreTest, StorageCapacityScore) {
  host_->set_feature_gate("StorageCapacityScoring", true);
  capacities();
  add(kPVC, PVC("pvc-dynamic", "wait-sc-with-storage-capacity").request("10Gi"));
  plugin(kUtilizationShape);
  Cycle c = run(pod_with_claims("pod-a", {"pvc-dynamic"}));
  EXPECT_EQ(plugin().pre_score(c.state, c.pod).code, Code::Success);
  EXPECT_EQ(scores(c), (std::vector<std::int64_t>{10, 20, 100}));
}

TEST_F(ScoreTest, StorageCapacityScoreWithTheDefaultShape) {
  host_->set_feature_gate("StorageCapacityScoring", true);
  capacities();
  add(kPVC, PVC("pvc-dynamic", "wait-sc-with-storage-capacity").request("10Gi"));
  Cycle c = run(pod_with_claims("pod-a", {"pvc-dynamic"}));  // default shape: 0 -> 10, 100 -> 0
  EXPECT_EQ(scores(c), (std::vector<std::int64_t>{90, 80, 0}));
}

TEST_F(ScoreTest, StaticBindsWinOverProvisioning) {
  host_->set_feature_gate("StorageCapacityScoring", true);
  capacities();
  add(kPVC, PVC("pvc-dynamic", "wait-sc-with-storage-capacity").request("10Gi"));
  add(kPVC, PVC("pvc-static").request("50Gi"));
  for (const char* n : {"a", "b", "c"}) {
    add(kPV, PV(std::string("pv-static-") + n)
                 .available()
                 .capacity("100Gi")
                 .affinity({{kHostname, {std::string("node-") + n}}}));
  }
  plugin(kUtilizationShape);
  Cycle c = run(pod_with_claims("pod-a", {"pvc-dynamic", "pvc-static"}));
  EXPECT_EQ(scores(c), (std::vector<std::int64_t>{50, 50, 50}));
}

TEST_F(ScoreTest, TwoClaimsOfOneClassShareItsCapacity) {
  host_->set_feature_gate("StorageCapacityScoring", true);
  add(kCapacity, capacity("node-a", "wait-sc-with-storage-capacity", on_node("node-a"), "100Gi"));
  add(kPVC, PVC("pvc-dynamic-0", "wait-sc-with-storage-capacity").request("50Gi"));
  add(kPVC, PVC("pvc-dynamic-1", "wait-sc-with-storage-capacity").request("50Gi"));
  plugin(kUtilizationShape);
  Cycle c = run(pod_with_claims("pod-a", {"pvc-dynamic-0", "pvc-dynamic-1"}));
  expect_result(c.filter.at("node-a"), ok(), "node-a");
  EXPECT_EQ(plugin().score(c.state, c.pod, "node-a").score, 100);
}

TEST_F(ScoreTest, PreferNodeWithMaximumAllocatable) {
  host_->set_feature_gate("StorageCapacityScoring", true);
  add(kCapacity, capacity("node-a", "wait-sc-with-storage-capacity", on_node("node-a"), "100Gi"));
  add(kCapacity, capacity("node-b", "wait-sc-with-storage-capacity", on_node("node-b"), "20Gi"));
  add(kCapacity, capacity("node-c", "wait-sc-with-storage-capacity", on_node("node-c"), "10Gi"));
  add(kPVC, PVC("pvc-dynamic", "wait-sc-with-storage-capacity").request("10Gi"));
  plugin(R"({"bindTimeoutSeconds": 300,
             "shape": [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]})");
  Cycle c = run(pod_with_claims("pod-a", {"pvc-dynamic"}));
  EXPECT_EQ(scores(c), (std::vector<std::int64_t>{90, 50, 0}));
}

// serve: PreBind PUTs the assumed PV through api_request, then polls the claim (once a second)
// until the PV controller has bound it.
TEST_F(ReserveTest, PreBindWritesTheBindingThenWaitsForThePVController) {
  Cycle a = run(pod_with_claims("pod-a", {"a"}));
  expect_result(plugin().reserve(a.state, a.pod, "node-a"), ok(), "Reserve a");
  int gets = 0;
  host_->answer_api([&gets](const testing::detail::ApiRequest& r) -> testing::detail::ApiReply {
    if (r.verb == "PUT") return {200, r.body};
    if (r.path == "/api/v1/namespaces/default/pods/pod-a") return {200, "{}"};
    // The PV controller binds the claim between the first and the second look.
    nlohmann::json claim = {{"metadata", {{"name", "a"}, {"namespace", "default"}}},
                            {"spec", nlohmann::json::object()}};
    if (++gets > 1) {
      claim["spec"]["volumeName"] = "pv-5";
      claim["metadata"]["annotations"] = {{"pv.kubernetes.io/bind-completed", "yes"}};
    }
    return {200, claim.dump()};
  });
  expect_result(plugin().pre_bind(a.state, a.pod, "node-a"), ok(), "PreBind a");
  const auto& sent = host_->api_requests();
  ASSERT_EQ(sent.size(), 5u);
  EXPECT_EQ(sent[0].verb, "PUT");
  EXPECT_EQ(sent[0].path, "/api/v1/persistentvolumes/pv-5");
  const nlohmann::json pv = nlohmann::json::parse(sent[0].body);
  EXPECT_EQ(pv["spec"]["claimRef"]["name"], "a");
  EXPECT_EQ(pv["spec"]["claimRef"]["namespace"], "default");
  for (std::size_t look : {1u, 3u}) {  // each look: the pod, then the claim
    EXPECT_EQ(sent[look].verb, "GET");
    EXPECT_EQ(sent[look].path, "/api/v1/namespaces/default/pods/pod-a");
    EXPECT_EQ(sent[look + 1].verb, "GET");
    EXPECT_EQ(sent[look + 1].path, "/api/v1/namespaces/default/persistentvolumeclaims/a");
  }
}

// The pod is deleted while its volumes are being bound: the wait ends at once with upstream's
// error, instead of holding a binding worker until bindTimeoutSeconds.
TEST_F(ReserveTest, APodDeletedDuringTheWaitEndsIt) {
  Cycle a = run(pod_with_claims("pod-a", {"a"}));
  expect_result(plugin().reserve(a.state, a.pod, "node-a"), ok(), "Reserve a");
  host_->answer_api([](const testing::detail::ApiRequest& r) -> testing::detail::ApiReply {
    if (r.verb == "PUT") return {200, r.body};
    return {404, R"({"kind":"Status","code":404})"};
  });
  expect_result(plugin().pre_bind(a.state, a.pod, "node-a"),
                error("binding volumes: pod does not exist any more: pod \"pod-a\" not found"),
                "PreBind a");
  EXPECT_EQ(host_->api_requests().size(), 2u);  // the write, one look
}

// The server refuses the write (a stale resourceVersion): the pod fails with its message.
TEST_F(ReserveTest, ARefusedWriteFailsThePreBindWithTheServersMessage) {
  Cycle a = run(pod_with_claims("pod-a", {"a"}));
  expect_result(plugin().reserve(a.state, a.pod, "node-a"), ok(), "Reserve a");
  host_->answer_api([](const testing::detail::ApiRequest&) -> testing::detail::ApiReply {
    return {409, R"({"kind":"Status","code":409,"message":"the object has been modified"})"};
  });
  expect_result(plugin().pre_bind(a.state, a.pod, "node-a"),
                error("binding volumes: PUT /api/v1/persistentvolumes/pv-5: the object has been "
                      "modified"),
                "PreBind a");
}

// A provisioner that gives up removes the selected-node annotation: upstream's error.
TEST_F(ReserveTest, AProvisionerThatGaveUpFailsThePreBind) {
  add(kSC, storage_class("fast", "WaitForFirstConsumer", "example.com/disk"));
  add(kPVC, PVC("shared", "fast"));
  Cycle p = run(pod_with_claims("pod-p", {"shared"}));
  expect_result(plugin().reserve(p.state, p.pod, "node-b"), ok(), "Reserve p");
  host_->answer_api([](const testing::detail::ApiRequest& r) -> testing::detail::ApiReply {
    if (r.verb == "PUT") {
      const nlohmann::json claim = nlohmann::json::parse(r.body);
      EXPECT_EQ(claim["metadata"]["annotations"]["volume.kubernetes.io/selected-node"], "node-b");
      return {200, r.body};
    }
    if (r.path == "/api/v1/namespaces/default/pods/pod-p") return {200, "{}"};
    return {200, R"({"metadata":{"name":"shared","namespace":"default"},"spec":{}})"};
  });
  expect_result(plugin().pre_bind(p.state, p.pod, "node-b"),
                error("binding volumes: provisioning failed for PVC \"shared\""), "PreBind p");
  EXPECT_EQ(host_->api_requests().front().path,
            "/api/v1/namespaces/default/persistentvolumeclaims/shared");
}

}  // namespace
}  // namespace schedhost::testing::volume_binding
