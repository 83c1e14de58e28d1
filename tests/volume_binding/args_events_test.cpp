// VolumeBinding's args (v1 VolumeBindingArgs: upstream's defaults and validation messages, with
// and without the StorageCapacityScoring gate), its extension points, the cluster events it
// registers with their queueing hints (upstream v1.35's isSchedulableAfter* functions), and its
// pod signature (upstream's VolumesSigner).
#include "volume_binding_fixture.hpp"

namespace schedhost::testing::volume_binding {
namespace {

using Registrations = std::vector<EventRegistration>;

TEST_F(VolumeBindingTest, ExtensionPoints) {
  EXPECT_EQ(plugin().extension_points(),
            (std::vector<std::string>{"PreFilter", "Filter", "PreScore", "Score", "Reserve",
                                      "Unreserve", "PreBind"}));
  EXPECT_TRUE(plugin().events().has_value());  // EnqueueExtensions
  EXPECT_TRUE(plugin().sign_pod(FakePod("p")).ok());
}

TEST_F(VolumeBindingTest, ArgsWithoutTheGate) {
  struct Row {
    const char* args;
    std::string error;  // "" when accepted
  };
  const std::vector<Row> rows = {
      {"{}", ""},
      {R"({"bindTimeoutSeconds": 0})", ""},
      {R"({"bindTimeoutSeconds": 300, "shape": null})", ""},
      {R"({"bindTimeoutSeconds": -1})",
       "bindTimeoutSeconds: Invalid value: -1: invalid BindTimeoutSeconds, should not be a "
       "negative value"},
      {R"({"shape": [{"utilization": 0, "score": 10}]})",
       "shape: Invalid value: []config.UtilizationShapePoint{config.UtilizationShapePoint{"
       "Utilization:0, Score:10}}: unexpected field `shape`, remove it or turn on the feature "
       "gate StorageCapacityScoring"},
      {R"({"shape": []})",
       "shape: Invalid value: []config.UtilizationShapePoint{}: unexpected field `shape`, remove "
       "it or turn on the feature gate StorageCapacityScoring"},
      {R"({"bindTimeoutSeconds": -5, "shape": [{"utilization": 0, "score": 1}, {"utilization": 50, "score": 2}]})",
       "[bindTimeoutSeconds: Invalid value: -5: invalid BindTimeoutSeconds, should not be a "
       "negative value, shape: Invalid value: []config.UtilizationShapePoint{"
       "config.UtilizationShapePoint{Utilization:0, Score:1}, config.UtilizationShapePoint{"
       "Utilization:50, Score:2}}: unexpected field `shape`, remove it or turn on the feature "
       "gate StorageCapacityScoring]"},
      {R"({"bindTimeout": 5})", "strict decoding error: unknown field \"bindTimeout\""},
      {R"({"bindTimeoutSeconds": "600"})", "bindTimeoutSeconds: must be an integer, got \"600\""},
      {R"({"shape": [{"utilization": 0, "weight": 1}]})",
       "strict decoding error: unknown field \"shape[0].weight\""},
  };
  for (const Row& r : rows)
    EXPECT_EQ(host_->create_error("VolumeBinding", r.args), r.error) << r.args;
}

TEST_F(VolumeBindingTest, ArgsWithTheGate) {
  host_->set_feature_gate("StorageCapacityScoring", true);
  struct Row {
    const char* args;
    std::string error;
  };
  const std::vector<Row> rows = {
      {"{}", ""},  // the default shape
      {R"({"shape": []})", ""},
      {R"({"shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]})", ""},
      {R"({"shape": [{"utilization": 50, "score": 5}, {"utilization": 50, "score": 6}]})",
       "shape[1].utilization: Invalid value: 50: values must be sorted in increasing order"},
      {R"({"shape": [{"utilization": 60, "score": 5}, {"utilization": 50, "score": 6},
                     {"utilization": 40, "score": 6}]})",
       "shape[1].utilization: Invalid value: 50: values must be sorted in increasing order"},
      {R"({"shape": [{"utilization": -1, "score": 11}, {"utilization": 101, "score": -1}]})",
       "[shape[0].utilization: Invalid value: -1: not in valid range [0, 100], shape[0].score: "
       "Invalid value: 11: not in valid range [0, 10], shape[1].utilization: Invalid value: 101: "
       "not in valid range [0, 100], shape[1].score: Invalid value: -1: not in valid range [0, "
       "10]]"},
      {R"({"bindTimeoutSeconds": -1, "shape": [{"utilization": 0, "score": 20}]})",
       "[bindTimeoutSeconds: Invalid value: -1: invalid BindTimeoutSeconds, should not be a "
       "negative value, shape[0].score: Invalid value: 20: not in valid range [0, 10]]"},
  };
  for (const Row& r : rows)
    EXPECT_EQ(host_->create_error("VolumeBinding", r.args), r.error) << r.args;
}

TEST_F(VolumeBindingTest, EventsToRegister) {
  EXPECT_EQ(plugin().events(),
            (Registrations{
                {kSC, SCHEDHOST_ACTION_ADD | SCHEDHOST_ACTION_ANY_UPDATE},
                {kPVC, SCHEDHOST_ACTION_ADD | SCHEDHOST_ACTION_ANY_UPDATE},
                {kPV, SCHEDHOST_ACTION_ADD | SCHEDHOST_ACTION_ANY_UPDATE},
                {"Node", SCHEDHOST_ACTION_ADD | SCHEDHOST_ACTION_UPDATE_NODE_LABEL},
                {kCSINode, SCHEDHOST_ACTION_ADD | SCHEDHOST_ACTION_ANY_UPDATE},
                {kCSIDriver, SCHEDHOST_ACTION_ANY_UPDATE},
                {kCapacity, SCHEDHOST_ACTION_ADD | SCHEDHOST_ACTION_ANY_UPDATE},
            }));
}

struct HintCase {
  const char* name;
  FakePod pod;
  FakeClusterEvent event;
  bool queue;
};

FakeClusterEvent added(const char* resource, Json object) {
  return FakeClusterEvent::object_event(resource, SCHEDHOST_ACTION_ADD, nullptr, std::move(object));
}
FakeClusterEvent updated(const char* resource, Json old_object, Json new_object) {
  return FakeClusterEvent::object_event(resource, SCHEDHOST_ACTION_ANY_UPDATE,
                                        std::move(old_object), std::move(new_object));
}

Json csi_node(const std::optional<std::string>& migrated) {
  Json n = {
      {"apiVersion", "storage.k8s.io/v1"}, {"kind", "CSINode"}, {"metadata", {{"name", "node-a"}}}};
  if (migrated)
    n["metadata"]["annotations"]["storage.alpha.kubernetes.io/migrated-plugins"] = *migrated;
  return n;
}

Json with_topologies(Json sc, const std::vector<std::string>& zones) {
  sc["allowedTopologies"] = Json::array(
      {{{"matchLabelExpressions", {{{"key", "topology.kubernetes.io/zone"}, {"values", zones}}}}}});
  return sc;
}

TEST_F(VolumeBindingTest, QueueingHints) {
  const FakePod claims = pod_with_claims("pod", {"pvc-a"});
  const FakePod ephemeral = pod_with("pod", Json::array({ephemeral_volume("data")}));
  const FakePod inline_csi =
      pod_with("pod", Json::array({{{"name", "v"}, {"csi", {{"driver", "csi.example.com"}}}}}));
  const FakePod plain = pod_with("pod", Json::array());
  const Json sc = storage_class("sc", "WaitForFirstConsumer", "p");
  const std::vector<HintCase> cases = {
      // isSchedulableAfterStorageClassChange
      {"new StorageClass", plain, added(kSC, sc), true},
      {"allowedTopologies changed", claims,
       updated(kSC, with_topologies(sc, {"a"}), with_topologies(sc, {"a", "b"})), true},
      {"allowedTopologies added", claims, updated(kSC, sc, with_topologies(sc, {"a"})), true},
      {"StorageClass unchanged", claims, updated(kSC, sc, sc), false},
      {"empty allowedTopologies is none", claims,
       updated(kSC, sc,
               [&] {
                 Json s = sc;
                 s["allowedTopologies"] = Json::array();
                 return s;
               }()),
       false},
      // isSchedulableAfterPersistentVolumeClaimChange
      {"pod without claims", plain, added(kPVC, PVC("pvc-a")), false},
      {"same name in another namespace", claims,
       added(kPVC, PVC("pvc-a").set("/metadata/namespace", "other")), false},
      {"another claim", claims, added(kPVC, PVC("pvc-b")), false},
      {"the pod's claim", claims, updated(kPVC, PVC("pvc-a"), PVC("pvc-a").bound("pv")), true},
      {"the pod's ephemeral claim", ephemeral, added(kPVC, PVC("pod-data")), true},
      // PersistentVolume and Node: no hint
      {"a PersistentVolume", plain, added(kPV, PV("pv")), true},
      {"a Node", plain, FakeClusterEvent::node_add(FakeEventNode(FakeNode("n"))), true},
      // isSchedulableAfterCSINodeChange
      {"new CSINode", plain, added(kCSINode, csi_node(std::nullopt)), true},
      {"migrated plugins added", plain,
       updated(kCSINode, csi_node(std::nullopt), csi_node("kubernetes.io/gce-pd")), true},
      {"migrated plugins changed", plain,
       updated(kCSINode, csi_node("kubernetes.io/gce-pd"),
               csi_node("kubernetes.io/gce-pd,kubernetes.io/aws-ebs")),
       true},
      {"migrated plugins unchanged", plain,
       updated(kCSINode, csi_node("kubernetes.io/gce-pd"), csi_node("kubernetes.io/gce-pd")),
       false},
      // isSchedulableAfterCSIDriverChange
      {"capacity tracking turned off", inline_csi,
       updated(kCSIDriver, csi_driver("csi.example.com", true),
               csi_driver("csi.example.com", false)),
       true},
      {"capacity tracking unset", inline_csi,
       updated(kCSIDriver, csi_driver("csi.example.com", true),
               csi_driver("csi.example.com", std::nullopt)),
       true},
      {"capacity tracking turned on", inline_csi,
       updated(kCSIDriver, csi_driver("csi.example.com", false),
               csi_driver("csi.example.com", true)),
       false},
      {"another driver", inline_csi,
       updated(kCSIDriver, csi_driver("other", true), csi_driver("other", false)), false},
      {"pod without inline CSI volumes", claims,
       updated(kCSIDriver, csi_driver("csi.example.com", true),
               csi_driver("csi.example.com", false)),
       false},
      // isSchedulableAfterCSIStorageCapacityChange
      {"new CSIStorageCapacity", plain, added(kCapacity, capacity("c", "sc", {}, "1Gi")), true},
      {"capacity set", plain,
       updated(kCapacity, capacity("c", "sc", {}, ""), capacity("c", "sc", {}, "1Gi")), true},
      {"maximumVolumeSize set", plain,
       updated(kCapacity, capacity("c", "sc", {}, ""), capacity("c", "sc", {}, "", "1Gi")), true},
      {"capacity increased", plain,
       updated(kCapacity, capacity("c", "sc", {}, "1Gi"), capacity("c", "sc", {}, "2Gi")), true},
      {"maximumVolumeSize unset, capacity larger", plain,
       updated(kCapacity, capacity("c", "sc", {}, "5Gi", "1Gi"), capacity("c", "sc", {}, "5Gi")),
       true},
      {"maximumVolumeSize increased", plain,
       updated(kCapacity, capacity("c", "sc", {}, "5Gi", "1Gi"),
               capacity("c", "sc", {}, "5Gi", "2Gi")),
       true},
      {"unchanged", plain,
       updated(kCapacity, capacity("c", "sc", {}, "1Gi"), capacity("c", "sc", {}, "1Gi")), false},
      {"equal limit in other units", plain,
       updated(kCapacity, capacity("c", "sc", {}, "1Gi"), capacity("c", "sc", {}, "1024Mi")),
       false},
      {"maximumVolumeSize unset, capacity equal", plain,
       updated(kCapacity, capacity("c", "sc", {}, "5Gi", "5Gi"), capacity("c", "sc", {}, "5Gi")),
       false},
      {"capacity decreased", plain,
       updated(kCapacity, capacity("c", "sc", {}, "2Gi"), capacity("c", "sc", {}, "1Gi")), false},
      {"maximumVolumeSize decreased", plain,
       updated(kCapacity, capacity("c", "sc", {}, "5Gi", "2Gi"),
               capacity("c", "sc", {}, "5Gi", "1Gi")),
       false},
  };
  for (const HintCase& c : cases) {
    const HintResult r = plugin().queueing_hint(c.pod, c.event);
    EXPECT_EQ(r.queue(), c.queue) << c.name << " " << r.message();
    EXPECT_TRUE(r.reasons.empty()) << c.name << " " << r.message();
  }
}

TEST_F(VolumeBindingTest, SignPodSignsTheNonSyntheticVolumeSources) {
  const FakePod pod =
      pod_with("pod", Json::array({claim_volume("b", "z"),
                                   {{"name", "cfg"}, {"configMap", {{"name", "c"}}}},
                                   {{"name", "s"}, {"secret", {{"secretName", "s"}}}},
                                   claim_volume("a", "y"),
                                   {{"name", "tmp"}, {"emptyDir", Json::object()}}}));
  const HookResult r = plugin().sign_pod(pod);
  ASSERT_TRUE(r.ok()) << r;
  EXPECT_EQ(r.signature,
            (std::map<std::string, std::string>{
                {"v1.Pod.Spec.Volumes.NonSyntheticSources()",
                 R"(["{\"emptyDir\":{}}","{\"persistentVolumeClaim\":{\"claimName\":\"a\"}}",)"
                 R"("{\"persistentVolumeClaim\":{\"claimName\":\"b\"}}"])"}}));
  // The same fragment as VolumeZone's, so the two agree on the key.
  FakeHost zone_host(FakeHost::open_library(builtin_plugin_dir() + "/volume_zone.so"));
  FakePlugin zone = zone_host.create("VolumeZone");
  EXPECT_EQ(zone.sign_pod(pod).signature, r.signature);
}

}  // namespace
}  // namespace schedhost::testing::volume_binding
