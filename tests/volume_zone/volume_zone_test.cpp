// VolumeZone (plugins/volume_zone) as kube-scheduler v1.35.4 decides it: the built .so from the
// built-in plugin directory on the SDK's fake host, PreFilter then Filter on one CycleState as
// upstream's TestSingleZone / TestMultiZone / TestWithBinding drive them (Filter also runs after
// a PreFilter that did not succeed: it then collects the PVs itself), the queueing hints of the
// events it registers, and its pod signature.
#include <gtest/gtest.h>
#include <schedhost/testing.hpp>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "support/fixtures.hpp"

namespace schedhost::testing {
namespace {

using Json = nlohmann::json;
using Registrations = std::vector<EventRegistration>;

constexpr const char* kBetaZone = "failure-domain.beta.kubernetes.io/zone";
constexpr const char* kBetaRegion = "failure-domain.beta.kubernetes.io/region";
constexpr const char* kZone = "topology.kubernetes.io/zone";
constexpr const char* kRegion = "topology.kubernetes.io/region";
constexpr const char* kConflict = "node(s) had no available volume zone";
constexpr const char* kPV = "PersistentVolume";
constexpr const char* kPVC = "PersistentVolumeClaim";
constexpr const char* kSC = "storage.k8s.io/StorageClass";

Json pv(const std::string& name, const Json& labels) {
  return {{"apiVersion", "v1"},
          {"kind", "PersistentVolume"},
          {"metadata", {{"name", name}, {"labels", labels}}},
          {"spec", {{"capacity", {{"storage", "1Gi"}}}, {"accessModes", {"ReadWriteOnce"}}}}};
}

Json pvc(const std::string& name, const Json& spec, const std::string& ns = "default",
         const Json& annotations = Json::object()) {
  return {{"apiVersion", "v1"},
          {"kind", "PersistentVolumeClaim"},
          {"metadata", {{"name", name}, {"namespace", ns}, {"annotations", annotations}}},
          {"spec", spec}};
}

Json bound_to(const std::string& pv_name) {
  return {{"volumeName", pv_name}};
}

Json storage_class(const std::string& name, const char* mode) {
  Json sc = {{"apiVersion", "storage.k8s.io/v1"},
             {"kind", "StorageClass"},
             {"metadata", {{"name", name}}},
             {"provisioner", "example.com/disk"}};
  if (mode != nullptr) sc["volumeBindingMode"] = mode;
  return sc;
}

Json claim_volume(const std::string& volume, const std::string& claim) {
  return {{"name", volume}, {"persistentVolumeClaim", {{"claimName", claim}}}};
}

// A pod in "default" with one persistentVolumeClaim volume per claim.
FakePod pod_with_claims(const std::vector<std::string>& claims, const std::string& name = "pod") {
  Json volumes = Json::array();
  for (std::size_t i = 0; i < claims.size(); ++i)
    volumes.push_back(claim_volume("v" + std::to_string(i), claims[i]));
  return FakePod(name).json("/spec/volumes", volumes);
}

// The library, its host (PVs, claims and classes of the tables) and one VolumeZone.
class VolumeZoneTest : public ::testing::Test {
 protected:
  VolumeZoneTest()
      : host_(std::make_unique<FakeHost>(
            FakeHost::open_library(builtin_plugin_dir() + "/volume_zone.so"))) {
    FakeHost& h = *host_;
    h.add_object(kPV, pv("pv-beta-zone", {{kBetaZone, "us-west1-a"}}))
        .add_object(kPV, pv("pv-beta-region", {{kBetaRegion, "us-west1"}, {"useless", "none"}}))
        .add_object(kPV, pv("pv-zone", {{kZone, "us-west1-a"}}))
        .add_object(kPV, pv("pv-region", {{kRegion, "us-west1"}, {"useless", "none"}}))
        .add_object(kPV, pv("pv-zone-region", {{kZone, "us-west1-a"}, {kRegion, "us-west1"}}))
        .add_object(kPV, pv("pv-multi", {{kZone, "us-west1-c__us-west1-a"}}))
        .add_object(kPV, pv("pv-multi-beta", {{kBetaZone, " us-west1-b__us-west1-c "}}))
        .add_object(kPV, pv("pv-empty-zone", {{kZone, "us-west1-a__"}}))
        .add_object(kPV, pv("pv-empty-zone-region", {{kZone, "a____b"}, {kRegion, "us-west1"}}))
        .add_object(kPV, pv("pv-plain", {{"useless", "none"}}));
    for (const char* name : {"beta-zone", "beta-region", "zone", "region", "zone-region", "multi",
                             "multi-beta", "empty-zone", "empty-zone-region", "plain"}) {
      h.add_object(kPVC, pvc(std::string("claim-") + name, bound_to(std::string("pv-") + name)));
    }
    h.add_object(kPVC, pvc("claim-lost-pv", bound_to("pv-gone")))
        .add_object(kPVC, pvc("claim-no-class", Json::object()))
        .add_object(kPVC, pvc("claim-empty-class", {{"storageClassName", ""}}))
        .add_object(kPVC, pvc("claim-unknown-class", {{"storageClassName", "gold"}}))
        .add_object(kPVC, pvc("claim-no-mode", {{"storageClassName", "no-mode"}}))
        .add_object(kPVC, pvc("claim-immediate", {{"storageClassName", "immediate"}}))
        .add_object(kPVC, pvc("claim-wait", {{"storageClassName", "wait"}}))
        // The beta annotation names the class before spec.storageClassName.
        .add_object(kPVC, pvc("claim-annotated-wait", {{"storageClassName", "immediate"}},
                              "default", {{"volume.beta.kubernetes.io/storage-class", "wait"}}))
        .add_object(kPVC, pvc("claim-annotated-empty", {{"storageClassName", "wait"}}, "default",
                              {{"volume.beta.kubernetes.io/storage-class", ""}}))
        .add_object(kPVC, pvc("claim-elsewhere", bound_to("pv-zone"), "other"))
        .add_object(kSC, storage_class("no-mode", nullptr))
        .add_object(kSC, storage_class("immediate", "Immediate"))
        .add_object(kSC, storage_class("wait", "WaitForFirstConsumer"));
    plugin_ = std::make_unique<FakePlugin>(h.create("VolumeZone"));
  }
  ~VolumeZoneTest() override { plugin_.reset(); }

  // Adds a node and returns its name.
  std::string node(const std::string& name,
                   const std::vector<std::pair<std::string, std::string>>& labels) {
    FakeNode n(name);
    for (const auto& [k, v] : labels)
      n.label(k, v);
    host_->add_node(std::move(n));
    return name;
  }

  std::unique_ptr<FakeHost> host_;
  std::unique_ptr<FakePlugin> plugin_;
};

struct Expect {
  Code code = Code::Success;
  std::string reason;  // "" for none
};

std::vector<std::string> reasons_of(const Expect& e) {
  return e.reason.empty() ? std::vector<std::string>{} : std::vector<std::string>{e.reason};
}

struct ZoneCase {
  const char* name;
  FakePod pod;
  std::vector<std::pair<std::string, std::string>> node_labels;
  Expect pre_filter;
  Expect filter;
};

TEST_F(VolumeZoneTest, PreFilterAndFilterTable) {
  const Expect ok;
  const Expect skip{Code::Skip, ""};
  const Expect conflict{Code::UnschedulableAndUnresolvable, kConflict};
  const std::vector<std::pair<std::string, std::string>> west_a_beta = {{kBetaZone, "us-west1-a"}};
  const std::vector<std::pair<std::string, std::string>> west_a = {{kZone, "us-west1-a"}};
  const std::vector<ZoneCase> cases = {
      {"pod without volume", FakePod("pod"), west_a, skip, ok},
      {"pod with only a configMap volume",
       FakePod("pod").json("/spec/volumes",
                           {{{"name", "cfg"}, {"configMap", {{"name", "settings"}}}}}),
       west_a, skip, ok},
      {"node without labels", pod_with_claims({"claim-beta-zone"}), {}, ok, ok},
      {"node with other labels only",
       pod_with_claims({"claim-zone"}),
       {{"kubernetes.io/hostname", "n"}, {"useless", "us-west1-b"}},
       ok,
       ok},
      {"beta zone label matched", pod_with_claims({"claim-beta-zone"}), west_a_beta, ok, ok},
      {"beta zone label doesn't match",
       pod_with_claims({"claim-beta-zone"}),
       {{kBetaZone, "no_us-west1-a"}, {"useless", "none"}},
       ok,
       conflict},
      {"beta region label matched",
       pod_with_claims({"claim-beta-region"}),
       {{kBetaRegion, "us-west1"}},
       ok,
       ok},
      {"beta region label doesn't match",
       pod_with_claims({"claim-beta-region"}),
       {{kBetaRegion, "no_us-west1"}},
       ok,
       conflict},
      {"zone label matched", pod_with_claims({"claim-zone"}), west_a, ok, ok},
      {"zone label doesn't match",
       pod_with_claims({"claim-zone"}),
       {{kZone, "no_us-west1-a"}},
       ok,
       conflict},
      {"region label matched", pod_with_claims({"claim-region"}), {{kRegion, "us-west1"}}, ok, ok},
      {"region label doesn't match",
       pod_with_claims({"claim-region"}),
       {{kRegion, "no_us-west1"}},
       ok,
       conflict},
      {"pv with zone and region, node with only zone", pod_with_claims({"claim-zone-region"}),
       west_a, ok, conflict},
      {"pv with zone and region, node with both",
       pod_with_claims({"claim-zone-region"}),
       {{kZone, "us-west1-a"}, {kRegion, "us-west1"}},
       ok,
       ok},
      // A beta key on the PV is met by the node's GA key ...
      {"pv with beta label, node with ga label, matched", pod_with_claims({"claim-beta-zone"}),
       west_a, ok, ok},
      {"pv with beta label, node with ga label, don't match",
       pod_with_claims({"claim-beta-zone"}),
       {{kZone, "us-west1-b"}},
       ok,
       conflict},
      // ... only when the node has no beta key of its own ...
      {"pv with beta label, node with both keys, the beta one differs",
       pod_with_claims({"claim-beta-zone"}),
       {{kBetaZone, "us-west1-b"}, {kZone, "us-west1-a"}},
       ok,
       conflict},
      // ... and a GA key on the PV is never met by a beta key.
      {"pv with ga label, node with beta label", pod_with_claims({"claim-zone"}), west_a_beta, ok,
       conflict},
      {"pv with beta region, node with ga region",
       pod_with_claims({"claim-beta-region"}),
       {{kRegion, "us-west1"}},
       ok,
       ok},
      // "__" separates the zones of one value; elements are trimmed.
      {"multi-zone value, second zone", pod_with_claims({"claim-multi"}), west_a, ok, ok},
      {"multi-zone value, first zone",
       pod_with_claims({"claim-multi"}),
       {{kZone, "us-west1-c"}},
       ok,
       ok},
      {"multi-zone value, another zone",
       pod_with_claims({"claim-multi"}),
       {{kZone, "us-west1-b"}},
       ok,
       conflict},
      {"multi-zone value, the whole value is no zone",
       pod_with_claims({"claim-multi"}),
       {{kZone, "us-west1-c__us-west1-a"}},
       ok,
       conflict},
      {"trimmed multi-zone beta value",
       pod_with_claims({"claim-multi-beta"}),
       {{kBetaZone, "us-west1-c"}},
       ok,
       ok},
      // A value with an empty element is ignored (here the PV's only zone label: Skip).
      {"empty element ignored",
       pod_with_claims({"claim-empty-zone"}),
       {{kZone, "elsewhere"}},
       skip,
       ok},
      {"empty element ignored, the region still counts",
       pod_with_claims({"claim-empty-zone-region"}),
       {{kZone, "elsewhere"}, {kRegion, "us-west1"}},
       ok,
       ok},
      {"empty element ignored, the region conflicts",
       pod_with_claims({"claim-empty-zone-region"}),
       {{kZone, "a"}, {kRegion, "us-east1"}},
       ok,
       conflict},
      {"pv without zone labels", pod_with_claims({"claim-plain"}), west_a, skip, ok},
      // Unbound claims: WaitForFirstConsumer ones are VolumeBinding's.
      {"unbound claim, wait binding mode", pod_with_claims({"claim-wait"}), west_a, skip, ok},
      {"unbound claim, beta annotation names a wait class",
       pod_with_claims({"claim-annotated-wait"}), west_a, skip, ok},
      {"unbound claim of a wait class, then a bound one that conflicts",
       pod_with_claims({"claim-wait", "claim-zone"}),
       {{kZone, "us-west1-b"}},
       ok,
       conflict},
      {"two bound claims, both met",
       pod_with_claims({"claim-beta-zone", "claim-region"}),
       {{kZone, "us-west1-a"}, {kRegion, "us-west1"}},
       ok,
       ok},
      {"two bound claims, the second conflicts",
       pod_with_claims({"claim-zone", "claim-region"}),
       {{kZone, "us-west1-a"}, {kRegion, "us-east1"}},
       ok,
       conflict},
  };
  for (const ZoneCase& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string node_name = "node-" + std::to_string(host_->node_count());
    node(node_name, c.node_labels);
    FakeCycleState state;
    const HookResult pre = plugin_->pre_filter(state, c.pod);
    EXPECT_EQ(pre.code, c.pre_filter.code);
    EXPECT_EQ(pre.reasons, reasons_of(c.pre_filter));
    EXPECT_FALSE(pre.node_names.has_value());
    const HookResult f = plugin_->filter(state, c.pod, node_name);
    EXPECT_EQ(f.code, c.filter.code);
    EXPECT_EQ(f.reasons, reasons_of(c.filter));
    // Without the PreFilter state Filter collects the same topologies itself.
    FakeCycleState fresh;
    const HookResult again = plugin_->filter(fresh, c.pod, node_name);
    EXPECT_EQ(again.code, c.filter.code);
    EXPECT_EQ(again.reasons, reasons_of(c.filter));
  }
}

TEST_F(VolumeZoneTest, PreFilterErrorsAreUnschedulableAndUnresolvable) {
  struct ErrorCase {
    const char* name;
    FakePod pod;
    std::string reason;
  };
  const std::vector<ErrorCase> cases = {
      {"claim with no name", pod_with_claims({""}), "PersistentVolumeClaim had no name"},
      {"claim not found", pod_with_claims({"claim-nope"}),
       "persistentvolumeclaim \"claim-nope\" not found"},
      {"claim of another namespace", pod_with_claims({"claim-elsewhere"}),
       "persistentvolumeclaim \"claim-elsewhere\" not found"},
      {"pv not found", pod_with_claims({"claim-lost-pv"}),
       "persistentvolume \"pv-gone\" not found"},
      {"unbound, no class", pod_with_claims({"claim-no-class"}),
       "PersistentVolumeClaim had no pv name and storageClass name"},
      {"unbound, empty class", pod_with_claims({"claim-empty-class"}),
       "PersistentVolumeClaim had no pv name and storageClass name"},
      {"unbound, empty class by the beta annotation", pod_with_claims({"claim-annotated-empty"}),
       "PersistentVolumeClaim had no pv name and storageClass name"},
      {"unbound, class not found", pod_with_claims({"claim-unknown-class"}),
       "storageclass.storage.k8s.io \"gold\" not found"},
      {"unbound, class without binding mode", pod_with_claims({"claim-no-mode"}),
       "VolumeBindingMode not set for StorageClass \"no-mode\""},
      {"unbound, immediate class", pod_with_claims({"claim-immediate"}),
       "PersistentVolume had no name"},
      // The first claim that fails stops the lookups, even after a good one.
      {"a good claim, then a missing one", pod_with_claims({"claim-zone", "claim-nope"}),
       "persistentvolumeclaim \"claim-nope\" not found"},
      {"a missing claim, then an unbound one", pod_with_claims({"claim-nope", "claim-no-class"}),
       "persistentvolumeclaim \"claim-nope\" not found"},
  };
  node("zoned", {{kZone, "us-west1-a"}});
  node("plain", {});
  for (const ErrorCase& c : cases) {
    SCOPED_TRACE(c.name);
    FakeCycleState state;
    const HookResult pre = plugin_->pre_filter(state, c.pod);
    EXPECT_EQ(pre.code, Code::UnschedulableAndUnresolvable);
    EXPECT_EQ(pre.reasons, std::vector<std::string>{c.reason});
    // Filter falls back to the lookups and fails the same way, whatever the node's labels.
    for (const char* n : {"zoned", "plain"}) {
      const HookResult f = plugin_->filter(state, c.pod, n);
      EXPECT_EQ(f.code, Code::UnschedulableAndUnresolvable) << n;
      EXPECT_EQ(f.reasons, std::vector<std::string>{c.reason}) << n;
    }
  }
}

TEST_F(VolumeZoneTest, ClaimsAreLookedUpInThePodsNamespace) {
  node("zoned", {{kZone, "us-west1-b"}});
  const FakePod pod =
      FakePod("pod", "other").json("/spec/volumes", {claim_volume("data", "claim-elsewhere")});
  FakeCycleState state;
  EXPECT_EQ(plugin_->pre_filter(state, pod).code, Code::Success);
  const HookResult f = plugin_->filter(state, pod, "zoned");
  EXPECT_EQ(f.code, Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(f.reasons, std::vector<std::string>{kConflict});
}

// ---- EnqueueExtensions -----------------------------------------------------------------------

TEST_F(VolumeZoneTest, RegistersUpstreamsEvents) {
  EXPECT_EQ(plugin_->events(),
            (Registrations{{kSC, SCHEDHOST_ACTION_ADD},
                           {"Node", SCHEDHOST_ACTION_ADD | SCHEDHOST_ACTION_UPDATE_NODE_LABEL},
                           {kPVC, SCHEDHOST_ACTION_ADD | SCHEDHOST_ACTION_ANY_UPDATE},
                           {kPV, SCHEDHOST_ACTION_ADD | SCHEDHOST_ACTION_ANY_UPDATE}}));
}

struct HintCase {
  const char* name;
  FakePod pod;
  FakeClusterEvent event;
  std::int32_t expected;
};

TEST_F(VolumeZoneTest, QueueingHints) {
  constexpr std::int32_t kQueue = SCHEDHOST_QUEUE;
  constexpr std::int32_t kSkip = SCHEDHOST_QUEUE_SKIP;
  const FakePod pod = pod_with_claims({"claim-1"});
  using E = FakeClusterEvent;
  const Json claim_1 = pvc("claim-1", bound_to("pv-1"));
  const Json pv_zone_a = pv("pv-1", {{kZone, "us-west1-a"}});
  const std::vector<HintCase> cases = {
      // isSchedulableAfterPersistentVolumeClaimChange
      {"pvc of the pod added", pod, E::object_event(kPVC, SCHEDHOST_ACTION_ADD, nullptr, claim_1),
       kQueue},
      {"pvc of the pod updated", pod,
       E::object_event(kPVC, SCHEDHOST_ACTION_ANY_UPDATE, pvc("claim-1", Json::object()), claim_1),
       kQueue},
      {"pvc of another name", pod,
       E::object_event(kPVC, SCHEDHOST_ACTION_ADD, nullptr, pvc("claim-2", bound_to("pv-1"))),
       kSkip},
      {"pvc of the same name in another namespace", pod,
       E::object_event(kPVC, SCHEDHOST_ACTION_ADD, nullptr,
                       pvc("claim-1", bound_to("pv-1"), "ns1")),
       kSkip},
      {"pod without claims", FakePod("pod"),
       E::object_event(kPVC, SCHEDHOST_ACTION_ADD, nullptr, claim_1), kSkip},
      // isSchedulableAfterStorageClassAdded
      {"wait class added", pod,
       E::object_event(kSC, SCHEDHOST_ACTION_ADD, nullptr,
                       storage_class("wait", "WaitForFirstConsumer")),
       kQueue},
      {"immediate class added", pod,
       E::object_event(kSC, SCHEDHOST_ACTION_ADD, nullptr, storage_class("fast", "Immediate")),
       kSkip},
      {"class without binding mode added", pod,
       E::object_event(kSC, SCHEDHOST_ACTION_ADD, nullptr, storage_class("odd", nullptr)), kSkip},
      // isSchedulableAfterPersistentVolumeChange
      {"pv added", pod, E::object_event(kPV, SCHEDHOST_ACTION_ADD, nullptr, pv_zone_a), kQueue},
      {"pv zone changed", pod,
       E::object_event(kPV, SCHEDHOST_ACTION_ANY_UPDATE, pv_zone_a,
                       pv("pv-1", {{kZone, "us-west1-b"}})),
       kQueue},
      {"pv zone label added", pod,
       E::object_event(kPV, SCHEDHOST_ACTION_ANY_UPDATE, pv("pv-1", Json::object()), pv_zone_a),
       kQueue},
      {"pv zone moved from beta to ga key", pod,
       E::object_event(kPV, SCHEDHOST_ACTION_ANY_UPDATE, pv("pv-1", {{kBetaZone, "us-west1-a"}}),
                       pv_zone_a),
       kQueue},
      {"pv unrelated label changed", pod,
       E::object_event(kPV, SCHEDHOST_ACTION_ANY_UPDATE,
                       pv("pv-1", {{kZone, "us-west1-a"}, {"a", "1"}}),
                       pv("pv-1", {{kZone, "us-west1-a"}, {"a", "2"}})),
       kSkip},
      {"pv zones reordered (the same set)", pod,
       E::object_event(kPV, SCHEDHOST_ACTION_ANY_UPDATE, pv("pv-1", {{kZone, "a__b"}}),
                       pv("pv-1", {{kZone, "b__a"}})),
       kSkip},
      {"pv zone label still unparsable", pod,
       E::object_event(kPV, SCHEDHOST_ACTION_ANY_UPDATE, pv("pv-1", {{kZone, "a__"}}),
                       pv("pv-1", {{kZone, "__b"}})),
       kSkip},
      // Node events have no hint.
      {"node added", pod, E::node_add(FakeNode("n")), kQueue},
      {"node label updated", pod,
       E::node_update(SCHEDHOST_ACTION_UPDATE_NODE_LABEL, FakeNode("n"),
                      FakeNode("n").label(kZone, "us-west1-a")),
       kQueue},
  };
  for (const HintCase& c : cases) {
    EXPECT_EQ(plugin_->queueing_hint(c.pod, c.event).answer, c.expected) << c.name;
  }
}

// ---- SignPod -------------------------------------------------------------------------------

TEST_F(VolumeZoneTest, SignsTheNonSyntheticVolumeSources) {
  constexpr const char* kKey = "v1.Pod.Spec.Volumes.NonSyntheticSources()";
  const Json claim = claim_volume("data", "claim-zone");
  const Json config = {{"name", "cfg"}, {"configMap", {{"name", "settings-1"}}}};
  const Json secret = {{"name", "token"}, {"secret", {{"secretName", "token-1"}}}};
  const Json scratch = {{"name", "scratch"}, {"emptyDir", Json::object()}};
  const HookResult a =
      plugin_->sign_pod(FakePod("a").json("/spec/volumes", {claim, config, secret, scratch}));
  EXPECT_EQ(a.code, Code::Success);
  EXPECT_EQ(a.signature, (std::map<std::string, std::string>{
                             {kKey, R"(["{\"emptyDir\":{}}","{\"persistentVolumeClaim\":)"
                                    R"({\"claimName\":\"claim-zone\"}}"])"}}));
  // Other volume names, another order, other configMaps and secrets: the same signature.
  const Json config_2 = {{"name", "cfg-2"}, {"configMap", {{"name", "settings-2"}}}};
  Json scratch_2 = scratch;
  scratch_2["name"] = "tmp";
  Json claim_2 = claim;
  claim_2["name"] = "other-name";
  EXPECT_EQ(plugin_->sign_pod(FakePod("b").json("/spec/volumes", {scratch_2, config_2, claim_2}))
                .signature,
            a.signature);
  // Another claim: another signature. No volumes: an empty list.
  EXPECT_NE(plugin_->sign_pod(pod_with_claims({"claim-region"})).signature, a.signature);
  EXPECT_EQ(plugin_->sign_pod(FakePod("c")).signature,
            (std::map<std::string, std::string>{{kKey, "[]"}}));
}

}  // namespace
}  // namespace schedhost::testing
