// VolumeBinding (plugins/volume_binding) PreFilter and Filter as kube-scheduler v1.35.4 decides
// them: upstream's TestVolumeBinding table (volume_binding_test.go) and the reasons of
// binder.go's FindPodVolumes, static matching (volume.FindMatchingVolume), dynamic provisioning
// with and without storage capacity, ephemeral volumes, and CSI migration of bound in-tree PVs.
#include "volume_binding_fixture.hpp"

namespace schedhost::testing::volume_binding {
namespace {

struct FilterCase {
  const char* name;
  FakePod pod;
  std::vector<Json> pvcs;
  std::vector<Json> pvs;
  Expect pre_filter;
  std::map<std::string, Expect> filter;  // node -> Filter (only when PreFilter succeeds)
};

class FilterTable : public VolumeBindingTest {
 protected:
  void check(const FilterCase& c) {
    SCOPED_TRACE(c.name);
    for (const Json& o : c.pvcs)
      add(kPVC, o);
    for (const Json& o : c.pvs)
      add(kPV, o);
    Cycle cycle = run(c.pod);
    expect_result(cycle.pre_filter, c.pre_filter, "PreFilter");
    if (!cycle.pre_filter.ok()) {
      EXPECT_TRUE(cycle.filter.empty());
      return;
    }
    for (const auto& [node, want] : c.filter)
      expect_result(cycle.filter.at(node), want, "Filter on " + node);
  }
};

TEST_F(FilterTable, PodWithoutClaimsIsSkipped) {
  Cycle c =
      run(pod_with("pod-a", Json::array({{{"name", "scratch"}, {"emptyDir", Json::object()}},
                                         {{"name", "cfg"}, {"configMap", {{"name", "c"}}}}})));
  EXPECT_EQ(c.pre_filter.code, Code::Skip) << c.pre_filter;
  EXPECT_TRUE(c.pre_filter.reasons.empty());
  EXPECT_FALSE(c.pre_filter.node_names.has_value());
  // Reserve, PreBindPreFlight and PreBind still find the state PreFilter wrote.
  EXPECT_EQ(plugin().reserve(c.state, c.pod, "node-a").code, Code::Success);
  EXPECT_EQ(plugin().pre_bind_pre_flight(c.state, c.pod, "node-a").code, Code::Skip);
  EXPECT_EQ(plugin().pre_bind(c.state, c.pod, "node-a").code, Code::Success);
}

TEST_F(FilterTable, UpstreamTable) {
  const std::vector<FilterCase> cases = {
      {"all bound",
       pod_with_claims("pod-a", {"pvc-a"}),
       {PVC("pvc-a").bound("pv-a")},
       {PV("pv-a").available()},
       ok(),
       {{"node-a", ok()}, {"node-b", ok()}}},
      {"PVC does not exist",
       pod_with_claims("pod-a", {"pvc-a"}),
       {},
       {},
       unresolvable({"persistentvolumeclaim \"pvc-a\" not found"}),
       {}},
      {"Part of PVCs do not exist",
       pod_with_claims("pod-a", {"pvc-a", "pvc-b"}),
       {PVC("pvc-a").bound("pv-a")},
       {},
       unresolvable({"persistentvolumeclaim \"pvc-b\" not found"}),
       {}},
      {"immediate claims not bound",
       pod_with_claims("pod-a", {"pvc-a"}),
       {PVC("pvc-a", "immediate-sc")},
       {},
       unresolvable({"pod has unbound immediate PersistentVolumeClaims"}),
       {}},
      {"unbound claims no matches",
       pod_with_claims("pod-a", {"pvc-a"}),
       {PVC("pvc-a")},
       {},
       ok(),
       {{"node-a", unresolvable({kBindConflict})}}},
      {"bound and unbound unsatisfied",
       pod_with_claims("pod-a", {"pvc-a", "pvc-b"}),
       {PVC("pvc-a").bound("pv-a"), PVC("pvc-b")},
       {PV("pv-a").available().affinity({{"foo", {"bar"}}})},
       ok(),
       {{"node-a", unresolvable({kNodeConflict, kBindConflict})}}},
      {"pv not found",
       pod_with_claims("pod-a", {"pvc-a"}),
       {PVC("pvc-a").bound("pv-a")},
       {},
       ok(),
       {{"node-a", unresolvable({kPVNotExist})}}},
      {"pv not found claim lost",
       pod_with_claims("pod-a", {"pvc-a"}),
       {PVC("pvc-a").bound("pv-a").phase("Lost")},
       {},
       unresolvable(
           {"persistentvolumeclaim \"pvc-a\" bound to non-existent persistentvolume \"pv-a\""}),
       {}},
      {"local volumes with close capacity: node-c has none",
       pod_with_claims("pod-a", {"pvc-a"}),
       {PVC("pvc-a").request("50Gi")},
       {PV("pv-a-0").available().capacity("200Gi").affinity({{kHostname, {"node-a"}}}),
        PV("pv-b-0").available().capacity("100Gi").affinity({{kHostname, {"node-b"}}})},
       ok(),
       {{"node-a", ok()}, {"node-b", ok()}, {"node-c", unresolvable({kBindConflict})}}},
  };
  for (const FilterCase& c : cases) {
    plugin_.reset();
    host_ = std::make_unique<FakeHost>(
        FakeHost::open_library(builtin_plugin_dir() + "/volume_binding.so"));
    // Rebuild the fixture's objects on the new host.
    add(kSC, storage_class("immediate-sc", "Immediate"));
    add(kSC, storage_class("wait-sc", "WaitForFirstConsumer"));
    for (const char* n : {"node-a", "node-b", "node-c"})
      host_->add_node(FakeNode(n).label(kHostname, n));
    check(c);
    plugin_.reset();
  }
}

TEST_F(FilterTable, PreFilterFailures) {
  add(kSC, storage_class("no-mode", nullptr));
  add(kPVC, PVC("deleting").set("/metadata/deletionTimestamp", "2026-01-01T00:00:00Z"));
  add(kPVC, PVC("no-mode-claim", "no-mode"));
  add(kPVC, PVC("unknown-class", "gold"));
  add(kPVC, PVC("no-class", std::nullopt));
  add(kPVC, PVC("empty-class", ""));
  add(kPVC, PVC("pre-bound").volume_name("pv-x"));  // volumeName without bind-completed
  add(kPVC, PVC("bound").bound("pv-a"));
  add(kPVC, PVC("lost").phase("Lost"));
  add(kPV, PV("pv-a").available());
  struct Row {
    const char* name;
    std::vector<std::string> claims;
    Expect want;
  };
  const std::vector<Row> rows = {
      {"being deleted",
       {"deleting"},
       unresolvable({"persistentvolumeclaim \"deleting\" is being deleted"})},
      {"class without volumeBindingMode",
       {"no-mode-claim"},
       error("VolumeBindingMode not set for StorageClass \"no-mode\"")},
      // IsDelayBindingMode is false for a missing class and for no class: immediate.
      {"unknown class",
       {"unknown-class"},
       unresolvable({"pod has unbound immediate PersistentVolumeClaims"})},
      {"no class",
       {"no-class"},
       unresolvable({"pod has unbound immediate PersistentVolumeClaims"})},
      {"empty class",
       {"empty-class"},
       unresolvable({"pod has unbound immediate PersistentVolumeClaims"})},
      {"pre-bound claim of a WaitForFirstConsumer class",
       {"pre-bound"},
       unresolvable({"pod has unbound immediate PersistentVolumeClaims"})},
      // The first failing claim in volume order wins; lookups come before classification.
      {"missing after lost",
       {"lost", "nope"},
       unresolvable(
           {"persistentvolumeclaim \"lost\" bound to non-existent persistentvolume \"\""})},
      {"missing before immediate",
       {"bound", "unknown-class", "nope"},
       unresolvable({"persistentvolumeclaim \"nope\" not found"})},
      {"no mode before immediate",
       {"unknown-class", "no-mode-claim"},
       error("VolumeBindingMode not set for StorageClass \"no-mode\"")},
      {"bound claim", {"bound"}, ok()},
  };
  for (const Row& r : rows) {
    FakeCycleState state;
    expect_result(plugin().pre_filter(state, pod_with_claims("pod", r.claims)), r.want, r.name);
  }
  // Claims are looked up in the pod's own namespace.
  FakeCycleState state;
  expect_result(
      plugin().pre_filter(
          state,
          FakePod("pod", "other").json("/spec/volumes", Json::array({claim_volume("bound")}))),
      unresolvable({"persistentvolumeclaim \"bound\" not found"}), "other namespace");
}

TEST_F(FilterTable, EphemeralVolumes) {
  // The claim of ephemeral volume "data" of pod "web" is "web-data", controlled by the pod.
  add(kPVC, PVC("web-data").owner("default/web"));
  add(kPVC, PVC("foreign-data").owner("someone-else"));
  add(kPVC, PVC("loose-data").owner("default/loose", false));
  struct Row {
    const char* pod;
    Expect pre_filter;
  };
  for (const Row& r : std::vector<Row>{
           {"web", ok()},
           {"foreign",
            unresolvable({"PVC default/foreign-data was not created for pod default/foreign (pod "
                          "is not owner)"})},
           {"loose", unresolvable({"PVC default/loose-data was not created for pod default/loose "
                                   "(pod is not owner)"})},
           {"fresh", unresolvable({"waiting for ephemeral volume controller to create the "
                                   "persistentvolumeclaim \"fresh-data\""})},
       }) {
    FakeCycleState state;
    expect_result(
        plugin().pre_filter(state, pod_with(r.pod, Json::array({ephemeral_volume("data")}))),
        r.pre_filter, r.pod);
  }
  // web-data is a delayed claim of wait-sc: no PV, no provisioner.
  Cycle c = run(pod_with("web", Json::array({ephemeral_volume("data")})));
  expect_result(c.filter.at("node-a"), unresolvable({kBindConflict}), "web on node-a");
}

// Every reason at once, in upstream's order, and the selected-node fast path.
TEST_F(FilterTable, ReasonsAreAppendedInUpstreamOrder) {
  add(kPV, PV("pv-a").available().affinity({{kHostname, {"node-b"}}}));
  add(kPVC, PVC("bound-a").bound("pv-a"));
  add(kPVC, PVC("bound-gone").bound("pv-gone"));
  add(kPVC, PVC("unbound").request("1Gi"));
  add(kPVC, PVC("elsewhere", "wait-sc-with-storage-capacity").selected_node("node-b"));
  // node affinity conflict, then bind conflict
  Cycle c1 = run(pod_with_claims("p1", {"bound-a", "unbound"}));
  expect_result(c1.filter.at("node-a"), unresolvable({kNodeConflict, kBindConflict}), "p1 node-a");
  expect_result(c1.filter.at("node-b"), unresolvable({kBindConflict}), "p1 node-b");
  // checkBoundClaims stops at the first missing PV: its affinity is not read after it.
  Cycle c2 = run(pod_with_claims("p2", {"bound-gone", "bound-a", "unbound"}));
  expect_result(c2.filter.at("node-a"), unresolvable({kBindConflict, kPVNotExist}), "p2 node-a");
  Cycle c3 = run(pod_with_claims("p3", {"bound-a", "bound-gone"}));
  expect_result(c3.filter.at("node-a"), unresolvable({kNodeConflict}), "p3 node-a");
  expect_result(c3.filter.at("node-b"), unresolvable({kPVNotExist}), "p3 node-b");
  // A claim already provisioned for node-b: every other node is a bind conflict, at once.
  Cycle c4 = run(pod_with_claims("p4", {"bound-a", "elsewhere"}));
  expect_result(c4.filter.at("node-a"), unresolvable({kNodeConflict, kBindConflict}), "p4 node-a");
  expect_result(c4.filter.at("node-b"), ok(), "p4 node-b");
  expect_result(c4.filter.at("node-c"), unresolvable({kNodeConflict, kBindConflict}), "p4 node-c");
}

// volume.FindMatchingVolume: which PV a delayed claim can take on node-a.
TEST_F(VolumeBindingTest, StaticMatchingCandidates) {
  struct Row {
    const char* name;
    Json claim;
    std::vector<Json> pvs;
    bool fits;  // on node-a, with wait-sc (no provisioner)
  };
  const std::vector<Row> rows = {
      {"capacity too small",
       PVC("c").request("2Gi"),
       {PV("pv").available().capacity("1Gi")},
       false},
      {"capacity equal", PVC("c").request("2Gi"), {PV("pv").available().capacity("2Gi")}, true},
      {"binary and decimal units",
       PVC("c").request("1G"),
       {PV("pv").available().capacity("953Mi")},
       false},
      {"no request takes any size", PVC("c"), {PV("pv").available()}, true},
      {"not Available", PVC("c"), {PV("pv").phase("Released")}, false},
      {"other class", PVC("c"), {PV("pv", "wait-hdd-sc").available()}, false},
      {"beta class annotation on the PV wins",
       PVC("c"),
       {PV("pv", "wait-hdd-sc")
            .annotation("volume.beta.kubernetes.io/storage-class", "wait-sc")
            .available()},
       true},
      {"beta class annotation on the claim wins",
       PVC("c", "wait-hdd-sc").annotation("volume.beta.kubernetes.io/storage-class", "wait-sc"),
       {PV("pv").available()},
       true},
      {"access modes all present",
       PVC("c").modes({"ReadWriteOnce", "ReadOnlyMany"}),
       {PV("pv").available().modes({"ReadOnlyMany", "ReadWriteOnce", "ReadWriteMany"})},
       true},
      {"an access mode missing",
       PVC("c").modes({"ReadWriteOnce", "ReadOnlyMany"}),
       {PV("pv").available().modes({"ReadWriteOnce"})},
       false},
      {"volume mode Block vs default",
       PVC("c").set("/spec/volumeMode", "Block"),
       {PV("pv").available()},
       false},
      {"volume mode Block",
       PVC("c").set("/spec/volumeMode", "Block"),
       {PV("pv").available().set("/spec/volumeMode", "Block")},
       true},
      {"explicit Filesystem vs default",
       PVC("c").set("/spec/volumeMode", "Filesystem"),
       {PV("pv").available()},
       true},
      {"selector matches",
       PVC("c").set("/spec/selector", {{"matchLabels", {{"tier", "gold"}}}}),
       {PV("pv").available().label("tier", "gold")},
       true},
      {"selector does not match",
       PVC("c").set(
           "/spec/selector",
           {{"matchExpressions", {{{"key", "tier"}, {"operator", "In"}, {"values", {"gold"}}}}}}),
       {PV("pv").available().label("tier", "silver")},
       false},
      {"node affinity of another node",
       PVC("c"),
       {PV("pv").available().affinity({{kHostname, {"node-b"}}})},
       false},
      {"node affinity of this node",
       PVC("c"),
       {PV("pv").available().affinity({{kHostname, {"node-a", "node-b"}}})},
       true},
      {"being deleted",
       PVC("c"),
       {PV("pv").available().set("/metadata/deletionTimestamp", "2026-01-01T00:00:00Z")},
       false},
      {"claimRef to another claim",
       PVC("c"),
       {PV("pv").available().claim_ref("default", "other")},
       false},
      {"claimRef to the claim with another uid",
       PVC("c"),
       {PV("pv").available().claim_ref("default", "c", "uid-old")},
       false},
      // Pre-bound to the claim: taken whatever its phase, class or access modes...
      {"pre-bound, Released, without the access modes",
       PVC("c").modes({"ReadWriteMany"}),
       {PV("pv", "wait-sc").phase("Released").claim_ref("default", "c", "uid-c")},
       true},
      // ... but not when its node affinity fails, even with another PV free.
      {"pre-bound elsewhere hides a free PV",
       PVC("c"),
       {PV("free").available(),
        PV("pv").available().claim_ref("default", "c").affinity({{kHostname, {"node-b"}}})},
       false},
      {"volumeAttributesClassName equal",
       PVC("c").set("/spec/volumeAttributesClassName", "fast"),
       {PV("pv").available().set("/spec/volumeAttributesClassName", "fast")},
       true},
      {"volumeAttributesClassName differs",
       PVC("c").set("/spec/volumeAttributesClassName", "fast"),
       {PV("pv").available()},
       false},
  };
  for (const Row& r : rows) {
    plugin_.reset();
    host_ = std::make_unique<FakeHost>(
        FakeHost::open_library(builtin_plugin_dir() + "/volume_binding.so"));
    add(kSC, storage_class("wait-sc", "WaitForFirstConsumer"));
    add(kSC, storage_class("wait-hdd-sc", "WaitForFirstConsumer"));
    host_->add_node(FakeNode("node-a").label(kHostname, "node-a"));
    add(kPVC, r.claim);
    for (const Json& pv : r.pvs)
      add(kPV, pv);
    Cycle c = run(pod_with_claims("pod", {"c"}));
    ASSERT_TRUE(c.pre_filter.ok()) << r.name << ": " << c.pre_filter;
    expect_result(c.filter.at("node-a"), r.fits ? ok() : unresolvable({kBindConflict}), r.name);
    plugin_.reset();
  }
}

// Claims are matched by increasing request (not in volume order), and a PV chosen for one
// claim is not offered to the next.
TEST_F(VolumeBindingTest, ClaimsAreMatchedSmallestFirstAndPVsAreNotShared) {
  // small (1Gi, RWO) takes the smallest PV with RWO: pv-4 (4Gi, RWO+RWX); big (3Gi, RWX) then
  // finds only pv-10 (RWO): no match. Matched in volume order (big first) both would fit.
  add(kPV, PV("pv-4").available().capacity("4Gi").modes({"ReadWriteOnce", "ReadWriteMany"}));
  add(kPV, PV("pv-10").available().capacity("10Gi").modes({"ReadWriteOnce"}));
  add(kPVC, PVC("big").request("3Gi").modes({"ReadWriteMany"}));
  add(kPVC, PVC("small").request("1Gi").modes({"ReadWriteOnce"}));
  add(kPVC, PVC("twin-1").request("5Gi"));
  add(kPVC, PVC("twin-2").request("5Gi"));
  add(kPVC, PVC("rwx").request("1Gi").modes({"ReadWriteMany"}));
  expect_result(run(pod_with_claims("sorted", {"big", "small"})).filter.at("node-a"),
                unresolvable({kBindConflict}), "big then small");
  // Equal requests keep their volume order: rwx takes pv-4 and small pv-10; the other way
  // round small takes pv-4 and rwx finds no RWX volume left.
  expect_result(run(pod_with_claims("rwx-small", {"rwx", "small"})).filter.at("node-a"), ok(),
                "rwx then small");
  expect_result(run(pod_with_claims("small-rwx", {"small", "rwx"})).filter.at("node-a"),
                unresolvable({kBindConflict}), "small then rwx");
  // Two claims of 5Gi and one PV of 10Gi that can hold either: the second finds nothing.
  expect_result(run(pod_with_claims("twins", {"twin-1", "twin-2"})).filter.at("node-a"),
                unresolvable({kBindConflict}), "twins");
  expect_result(run(pod_with_claims("one-twin", {"twin-1"})).filter.at("node-a"), ok(), "one twin");
}

// Dynamic provisioning: the class's provisioner, its allowedTopologies, and storage capacity.
TEST_F(VolumeBindingTest, Provisioning) {
  add(kSC, storage_class("fast", "WaitForFirstConsumer", "example.com/disk"));
  add(kSC, storage_class("static", "WaitForFirstConsumer", "kubernetes.io/no-provisioner"));
  Json zoned = storage_class("zoned", "WaitForFirstConsumer", "example.com/disk");
  zoned["allowedTopologies"] = Json::array(
      {{{"matchLabelExpressions", {{{"key", kHostname}, {"values", {"node-a", "node-b"}}}}}}});
  add(kSC, zoned);
  Json empty_terms = storage_class("empty-terms", "WaitForFirstConsumer", "example.com/disk");
  empty_terms["allowedTopologies"] = Json::array({{{"matchLabelExpressions", Json::array()}}});
  add(kSC, empty_terms);
  add(kSC, storage_class("tracked", "WaitForFirstConsumer", "tracked.csi.example.com"));
  add(kCSIDriver, csi_driver("tracked.csi.example.com", true));
  add(kSC, storage_class("untracked", "WaitForFirstConsumer", "untracked.csi.example.com"));
  add(kCSIDriver, csi_driver("untracked.csi.example.com", false));
  // tracked: node-a has 100Gi, node-b 5Gi (but volumes up to 20Gi: maximumVolumeSize wins),
  // node-c one of another class; a capacity without nodeTopology reaches no node.
  add(kCapacity, capacity("cap-a", "tracked", on_node("node-a"), "100Gi"));
  add(kCapacity, capacity("cap-b", "tracked", on_node("node-b"), "5Gi", "20Gi"));
  add(kCapacity, capacity("cap-c", "fast", on_node("node-c"), "100Gi"));
  add(kCapacity, capacity("cap-nowhere", "tracked", nullptr, "1Ti"));
  for (const char* cls : {"fast", "static", "zoned", "empty-terms", "untracked"})
    add(kPVC, PVC(std::string("claim-") + cls, cls).request("10Gi"));
  add(kPVC, PVC("claim-tracked-10", "tracked").request("10Gi"));
  add(kPVC, PVC("claim-tracked-30", "tracked").request("30Gi"));
  add(kPVC, PVC("claim-tracked-any", "tracked"));  // no request: no capacity check
  add(kPVC, PVC("claim-wait").request("10Gi"));    // wait-sc: no provisioner at all

  struct Row {
    const char* claim;
    Expect a, b, c;
  };
  const std::vector<Row> rows = {
      {"claim-fast", ok(), ok(), ok()},
      {"claim-static", unresolvable({kBindConflict}), unresolvable({kBindConflict}),
       unresolvable({kBindConflict})},
      {"claim-wait", unresolvable({kBindConflict}), unresolvable({kBindConflict}),
       unresolvable({kBindConflict})},
      {"claim-zoned", ok(), ok(), unresolvable({kBindConflict})},
      {"claim-empty-terms", unresolvable({kBindConflict}), unresolvable({kBindConflict}),
       unresolvable({kBindConflict})},
      {"claim-untracked", ok(), ok(), ok()},
      {"claim-tracked-10", ok(), ok(), unresolvable({kNotEnoughSpace})},
      {"claim-tracked-30", ok(), unresolvable({kNotEnoughSpace}), unresolvable({kNotEnoughSpace})},
      {"claim-tracked-any", ok(), ok(), ok()},
  };
  for (const Row& r : rows) {
    Cycle c = run(pod_with_claims(std::string("pod-") + r.claim, {r.claim}));
    ASSERT_TRUE(c.pre_filter.ok()) << r.claim << ": " << c.pre_filter;
    expect_result(c.filter.at("node-a"), r.a, std::string(r.claim) + " on node-a");
    expect_result(c.filter.at("node-b"), r.b, std::string(r.claim) + " on node-b");
    expect_result(c.filter.at("node-c"), r.c, std::string(r.claim) + " on node-c");
  }
  // A static PV that does not fit leaves the claim to provisioning: unbound claims are then
  // satisfied if it can be provisioned.
  add(kPV, PV("pv-small", "fast").available().capacity("1Gi"));
  Cycle c = run(pod_with_claims("mixed", {"claim-fast"}));
  expect_result(c.filter.at("node-a"), ok(), "fast with a PV too small");
  // Two claims, one static match and one to provision that lacks space: not enough storage.
  add(kPV, PV("pv-fit").available().capacity("20Gi"));
  Cycle d = run(pod_with_claims("both", {"claim-wait", "claim-tracked-30"}));
  expect_result(d.filter.at("node-a"), ok(), "both on node-a");
  expect_result(d.filter.at("node-b"), unresolvable({kNotEnoughSpace}), "both on node-b");
}

// A claim with the selected-node annotation is provisioned for that node only.
TEST_F(VolumeBindingTest, SelectedNodeAnnotation) {
  add(kSC, storage_class("fast", "WaitForFirstConsumer", "example.com/disk"));
  add(kPVC, PVC("claim", "fast").request("1Gi").selected_node("node-b"));
  add(kPV, PV("pv", "fast").available().capacity("5Gi"));  // not considered for such a claim
  Cycle c = run(pod_with_claims("pod", {"claim"}));
  expect_result(c.filter.at("node-a"), unresolvable({kBindConflict}), "node-a");
  expect_result(c.filter.at("node-b"), ok(), "node-b");
  expect_result(c.filter.at("node-c"), unresolvable({kBindConflict}), "node-c");
}

// Internal errors of matching are Error statuses.
TEST_F(VolumeBindingTest, MatchingErrors) {
  host_->set_feature_gate("VolumeAttributesClass", false);
  add(kPVC, PVC("vac").set("/spec/volumeAttributesClassName", "fast"));
  add(kPVC, PVC("plain"));
  add(kPV, PV("pv-vac").available().set("/spec/volumeAttributesClassName", "fast"));
  Cycle c = run(pod_with_claims("pod", {"vac"}));
  expect_result(c.filter.at("node-a"),
                error("unsupported volumeAttributesClassName is set on claim default/vac when the "
                      "feature-gate VolumeAttributesClass is disabled"),
                "vac with the gate off");
  // With the gate off, a PV with a volumeAttributesClassName is never bound.
  expect_result(run(pod_with_claims("pod", {"plain"})).filter.at("node-a"),
                unresolvable({kBindConflict}), "plain claim, PV with a class");
}

// Bound in-tree PVs are read as CSI when the node's CSINode says their plugin migrated.
TEST_F(VolumeBindingTest, CSIMigrationOfBoundPVs) {
  host_ = std::make_unique<FakeHost>(
      FakeHost::open_library(builtin_plugin_dir() + "/volume_binding.so"));
  add(kSC, storage_class("wait-sc", "WaitForFirstConsumer"));
  // Both nodes carry only the CSI driver's topology label.
  host_->add_node(FakeNode("migrated").label("topology.gke.io/zone", "us-a"));
  host_->add_node(FakeNode("legacy").label("topology.gke.io/zone", "us-a"));
  Json csi_node = {{"apiVersion", "storage.k8s.io/v1"},
                   {"kind", "CSINode"},
                   {"spec", {{"drivers", Json::array()}}}};
  csi_node["metadata"]["name"] = "migrated";
  csi_node["metadata"]["annotations"]["storage.alpha.kubernetes.io/migrated-plugins"] =
      "kubernetes.io/aws-ebs,kubernetes.io/gce-pd";
  add(kCSINode, csi_node);
  // A GCE PD whose affinity names the in-tree zone label: translated to topology.gke.io/zone.
  add(kPV, PV("gce")
               .set("/spec/gcePersistentDisk", {{"pdName", "d"}})
               .affinity({{"topology.kubernetes.io/zone", {"us-a"}}}));
  add(kPVC, PVC("gce").bound("gce"));
  // A GCE PD with only a zone label: the translation adds the CSI requirement.
  add(kPV, PV("gce-label")
               .set("/spec/gcePersistentDisk", {{"pdName", "d"}})
               .label("topology.kubernetes.io/zone", "us-b"));
  add(kPVC, PVC("gce-label").bound("gce-label"));
  // An EBS volume with a malformed id fails translation on a migrated node.
  add(kPV, PV("ebs").set("/spec/awsElasticBlockStore", {{"volumeID", "aws://us-a/disk-1"}}));
  add(kPVC, PVC("ebs").bound("ebs"));
  // A regional GCE PD whose zones are not of one region.
  add(kPV, PV("gce-regional")
               .set("/spec/gcePersistentDisk", {{"pdName", "d"}})
               .label("topology.kubernetes.io/zone", "us-east1-a__us-west1-b"));
  add(kPVC, PVC("gce-regional").bound("gce-regional"));
  Cycle c = run(pod_with_claims("pod", {"gce"}));
  expect_result(c.filter.at("migrated"), ok(), "gce on the migrated node");
  expect_result(c.filter.at("legacy"), unresolvable({kNodeConflict}), "gce on the legacy node");
  Cycle l = run(pod_with_claims("pod", {"gce-label"}));
  expect_result(l.filter.at("migrated"), unresolvable({kNodeConflict}), "zone label us-b");
  expect_result(l.filter.at("legacy"), ok(), "no affinity without translation");
  Cycle e = run(pod_with_claims("pod", {"ebs"}));
  expect_result(e.filter.at("migrated"),
                error("could not translate pv: failed to translate Kubernetes ID to EBS Volume ID "
                      "Invalid format for AWS volume (aws://us-a/disk-1)"),
                "ebs on the migrated node");
  expect_result(e.filter.at("legacy"), ok(), "ebs on the legacy node");
  Cycle r = run(pod_with_claims("pod", {"gce-regional"}));
  expect_result(r.filter.at("migrated"),
                error("could not translate pv: failed to get region from zones: multiple or no "
                      "regions gotten from zones, got: map[us-east1:{} us-west1:{}]"),
                "regional on the migrated node");
}

}  // namespace
}  // namespace schedhost::testing::volume_binding
