// NodeVolumeLimits (plugins/node_volume_limits) PreFilter and Filter, the built .so on the SDK's
// fake host: upstream v1.35.4's TestCSILimits and TestVolumeLimitScalingGate cases
// (nodevolumelimits/csi_test.go), and schedhost's own for what those tables leave out: limits
// only from the CSINode, a driver name too long for v1.28's limit keys, exactly at the limit,
// the translations of csi-translation-lib v0.35 (GCE PD zones, AWS volume IDs, Azure disk kinds,
// Portworx and its gate), the lookups' errors, SignPod.
#include <gtest/gtest.h>
#include <schedhost/testing.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "volume_limits_fixture.hpp"

namespace schedhost::testing::volume_limits {
namespace {

struct FilterCase {
  const char* test;
  FakePod pod;
  std::vector<FakePod> existing;
  std::vector<Json> extra_claims;
  std::int64_t max_vols;
  std::vector<std::string> drivers;
  Limits limits;
  Code want_code;
  std::string want_reason;  // "" with Success
  bool want_pre_filter_skip = false;
};

// TestCSILimits, case by case (VolumeAttachment cases left out: schedhost has none).
TEST(NodeVolumeLimitsFilter, UpstreamCSILimitsTable) {
  const FakePod running_pod = pvc_pod("running", {"csi-ebs.csi.aws.com-3"});
  const FakePod pending_volume_pod = pvc_pod("pending", {"csi-4"});
  const FakePod unbound_pvc_pod2 = pvc_pod("pending-2", {"csi-4"});
  const FakePod missing_pv_pod = pvc_pod("missing-pv", {"csi-6"});
  const FakePod no_sc_pvc_pod = pvc_pod("no-sc", {"csi-5"});
  const FakePod gce_two_vol_pod =
      pvc_pod("gce-two", {"csi-pd.csi.storage.gke.io-1", "csi-pd.csi.storage.gke.io-2"});
  const FakePod in_tree_one_vol_pod = pvc_pod("in-tree-one", {"csi-kubernetes.io/aws-ebs-0"});
  const FakePod in_tree_two_vol_pod =
      pvc_pod("in-tree-two", {"csi-kubernetes.io/aws-ebs-1", "csi-kubernetes.io/aws-ebs-2"});
  const FakePod csi_ebs_one_vol_pod = pvc_pod("ebs-one", {"csi-ebs.csi.aws.com-0"});
  const FakePod csi_ebs_two_vol_pod =
      pvc_pod("ebs-two", {"csi-ebs.csi.aws.com-1", "csi-ebs.csi.aws.com-2"});
  const FakePod in_tree_non_migratable_pod =
      pvc_pod("hostpath-one", {"csi-kubernetes.io/hostpath-0"});
  const FakePod ephemeral_volume_pod =
      pod_with("abc", {ephemeral_volume("xyz")}, "test").uid("12345");
  const Json ephemeral_claim_owned = ephemeral_claim("test", "abc-xyz", "12345", "abc");
  const Json conflicting_claim = ephemeral_claim("test", "abc-xyz", "", "");
  const FakePod ephemeral_two_volume_pod =
      pod_with("abc", {ephemeral_volume("x"), ephemeral_volume("y")}, "test").uid("12345II");
  const Json ephemeral_claim_x = ephemeral_claim("test", "abc-x", "12345II", "abc");
  const Json ephemeral_claim_y = ephemeral_claim("test", "abc-y", "12345II", "abc");
  const FakePod in_tree_inline_vol_pod = pod_with("inline", {ebs_inline("aws-inline1")});
  const FakePod in_tree_inline_same_csi_id =
      pod_with("inline-same", {ebs_inline("csi-ebs.csi.aws.com-1")});
  const FakePod only_config_map_and_secret =
      pod_with("cm-secret", {config_map_volume(), secret_volume()});
  const FakePod pvc_with_config_map_and_secret = pod_with(
      "cm-secret-pvc", {config_map_volume(), secret_volume(), pvc_volume("csi-ebs.csi.aws.com-0")});
  const FakePod ephemeral_with_config_map_and_secret =
      pod_with("abc", {config_map_volume(), secret_volume(), ephemeral_volume("xyz")}, "test");
  const FakePod inline_migratable_with_config_map_and_secret = pod_with(
      "cm-secret-inline", {config_map_volume(), secret_volume(), ebs_inline("aws-inline1")});

  const std::vector<std::string> ebs = {kEbsDriver};
  const std::vector<std::string> in_tree_ebs = {kEbsInTree, kEbsDriver};
  const std::string missing_claim =
      "looking up PVC test/abc-xyz: persistentvolumeclaim \"abc-xyz\" not found";
  const std::vector<FilterCase> cases = {
      {"fits when node volume limit >= new pods CSI volume",
       csi_ebs_one_vol_pod,
       {running_pod, csi_ebs_two_vol_pod},
       {},
       4,
       ebs,
       Limits::kCsiNode,
       Code::Success,
       ""},
      {"doesn't when node volume limit <= pods CSI volume",
       csi_ebs_one_vol_pod,
       {running_pod, csi_ebs_two_vol_pod},
       {},
       2,
       ebs,
       Limits::kCsiNode,
       Code::Unschedulable,
       kMaxVolumeCount},
      {"should when driver does not support volume limits",
       csi_ebs_one_vol_pod,
       {running_pod, csi_ebs_two_vol_pod},
       {},
       2,
       ebs,
       Limits::kCsiNodeWithoutCounts,
       Code::Success,
       ""},
      {"count pending PVCs towards volume limit <= pods CSI volume",
       csi_ebs_one_vol_pod,
       {pending_volume_pod, csi_ebs_two_vol_pod},
       {},
       2,
       ebs,
       Limits::kCsiNode,
       Code::Unschedulable,
       kMaxVolumeCount},
      {"count multiple pending pvcs towards volume limit >= pods CSI volume",
       csi_ebs_one_vol_pod,
       {pending_volume_pod, unbound_pvc_pod2, csi_ebs_two_vol_pod},
       {},
       4,
       ebs,
       Limits::kCsiNode,
       Code::Success,
       ""},
      {"should count PVCs with invalid PV name but valid SC",
       csi_ebs_one_vol_pod,
       {missing_pv_pod, csi_ebs_two_vol_pod},
       {},
       2,
       ebs,
       Limits::kCsiNode,
       Code::Unschedulable,
       kMaxVolumeCount},
      {"don't count pvcs with missing SC towards volume limit",
       csi_ebs_one_vol_pod,
       {running_pod, no_sc_pvc_pod},
       {},
       2,
       ebs,
       Limits::kCsiNode,
       Code::Success,
       ""},
      {"count pvcs with the same type towards volume limit",
       csi_ebs_one_vol_pod,
       {gce_two_vol_pod, csi_ebs_two_vol_pod},
       {},
       2,
       {kEbsDriver, kGceDriver},
       Limits::kCsiNode,
       Code::Unschedulable,
       kMaxVolumeCount},
      {"don't count pvcs with different type towards volume limit",
       gce_two_vol_pod,
       {csi_ebs_two_vol_pod, running_pod},
       {},
       2,
       {kEbsDriver, kGceDriver},
       Limits::kCsiNode,
       Code::Success,
       ""},
      {"should count in-tree volumes if migration is enabled",
       in_tree_one_vol_pod,
       {in_tree_two_vol_pod},
       {},
       2,
       in_tree_ebs,
       Limits::kCsiNode,
       Code::Unschedulable,
       kMaxVolumeCount},
      {"nil csi node",
       in_tree_inline_vol_pod,
       {in_tree_two_vol_pod},
       {},
       0,
       in_tree_ebs,
       Limits::kNoCsiNode,
       Code::Success,
       ""},
      {"should count unbound in-tree volumes if migration is enabled",
       pending_volume_pod,
       {in_tree_two_vol_pod},
       {},
       2,
       in_tree_ebs,
       Limits::kCsiNode,
       Code::Unschedulable,
       kMaxVolumeCount},
      {"should not limit pod if volume used does not report limits",
       in_tree_one_vol_pod,
       {in_tree_two_vol_pod},
       {},
       2,
       in_tree_ebs,
       Limits::kCsiNodeWithoutCounts,
       Code::Success,
       ""},
      {"should not count non-migratable in-tree volumes",
       in_tree_non_migratable_pod,
       {csi_ebs_two_vol_pod},
       {},
       2,
       {kHostPathInTree, kEbsDriver},
       Limits::kCsiNode,
       Code::Success,
       ""},
      {"should count in-tree inline volumes if migration is enabled",
       in_tree_inline_vol_pod,
       {in_tree_two_vol_pod},
       {},
       2,
       in_tree_ebs,
       Limits::kCsiNode,
       Code::Unschedulable,
       kMaxVolumeCount},
      {"should count in-tree and csi volumes if migration is enabled (when scheduling in-tree "
       "volumes)",
       in_tree_one_vol_pod,
       {csi_ebs_two_vol_pod},
       {},
       2,
       in_tree_ebs,
       Limits::kCsiNode,
       Code::Unschedulable,
       kMaxVolumeCount},
      {"should count in-tree, inline and csi volumes if migration is enabled (when scheduling "
       "in-tree volumes)",
       in_tree_inline_vol_pod,
       {csi_ebs_two_vol_pod, in_tree_one_vol_pod},
       {},
       3,
       in_tree_ebs,
       Limits::kCsiNode,
       Code::Unschedulable,
       kMaxVolumeCount},
      {"should not count in-tree, inline and csi volumes if migration is enabled (when "
       "scheduling in-tree volumes)",
       in_tree_inline_same_csi_id,
       {csi_ebs_two_vol_pod, in_tree_one_vol_pod},
       {},
       3,
       in_tree_ebs,
       Limits::kCsiNode,
       Code::Success,
       ""},
      {"should count in-tree and csi volumes if migration is enabled (when scheduling csi "
       "volumes)",
       csi_ebs_one_vol_pod,
       {in_tree_two_vol_pod},
       {},
       2,
       in_tree_ebs,
       Limits::kCsiNode,
       Code::Unschedulable,
       kMaxVolumeCount},
      // Upstream's fake lister says "persistentvolumeclaims"; kube-scheduler's (client-go
      // v0.35's generated lister) says "persistentvolumeclaim", which schedhost prints.
      {"ephemeral volume missing",
       ephemeral_volume_pod,
       {},
       {},
       0,
       ebs,
       Limits::kCsiNodeWithoutCounts,
       Code::UnschedulableAndUnresolvable,
       missing_claim},
      {"ephemeral volume not owned",
       ephemeral_volume_pod,
       {},
       {conflicting_claim},
       0,
       ebs,
       Limits::kCsiNodeWithoutCounts,
       Code::Error,
       "PVC test/abc-xyz was not created for pod test/abc (pod is not owner)"},
      {"ephemeral volume unbound",
       ephemeral_volume_pod,
       {},
       {ephemeral_claim_owned},
       0,
       ebs,
       Limits::kCsiNodeWithoutCounts,
       Code::Success,
       ""},
      {"ephemeral doesn't when node volume limit <= pods CSI volume",
       ephemeral_volume_pod,
       {running_pod, csi_ebs_two_vol_pod},
       {ephemeral_claim_owned},
       2,
       ebs,
       Limits::kCsiNode,
       Code::Unschedulable,
       kMaxVolumeCount},
      {"ephemeral doesn't when node volume limit <= pods ephemeral CSI volume",
       csi_ebs_one_vol_pod,
       {running_pod, ephemeral_two_volume_pod},
       {ephemeral_claim_x, ephemeral_claim_y},
       2,
       ebs,
       Limits::kCsiNode,
       Code::Unschedulable,
       kMaxVolumeCount},
      {"persistent doesn't when node volume limit <= pods ephemeral CSI volume + persistent "
       "volume",
       csi_ebs_one_vol_pod,
       {running_pod, ephemeral_volume_pod, csi_ebs_two_vol_pod},
       {ephemeral_claim_owned},
       3,
       ebs,
       Limits::kCsiNode,
       Code::Unschedulable,
       kMaxVolumeCount},
      {"persistent okay when node volume limit > pods ephemeral CSI volume + persistent volume",
       csi_ebs_one_vol_pod,
       {running_pod, ephemeral_volume_pod, csi_ebs_two_vol_pod},
       {ephemeral_claim_owned},
       5,
       ebs,
       Limits::kCsiNode,
       Code::Success,
       ""},
      {"skip Filter when the pod only uses secrets and configmaps",
       only_config_map_and_secret,
       {},
       {},
       2,
       ebs,
       Limits::kCsiNode,
       Code::Skip,
       "",
       true},
      {"don't skip Filter when the pod has pvcs",
       pvc_with_config_map_and_secret,
       {},
       {},
       2,
       ebs,
       Limits::kCsiNode,
       Code::Success,
       ""},
      {"don't skip Filter when the pod has ephemeral volumes",
       ephemeral_with_config_map_and_secret,
       {},
       {},
       0,
       ebs,
       Limits::kCsiNodeWithoutCounts,
       Code::UnschedulableAndUnresolvable,
       missing_claim},
      {"don't skip Filter when the pod has inline migratable volumes",
       inline_migratable_with_config_map_and_secret,
       {in_tree_two_vol_pod},
       {},
       2,
       in_tree_ebs,
       Limits::kCsiNode,
       Code::Unschedulable,
       kMaxVolumeCount},
  };
  for (const FilterCase& c : cases) {
    SCOPED_TRACE(c.test);
    VolumeLimitsHost h;
    h.add_node(c.limits, c.max_vols, c.drivers, c.existing);
    add_upstream_volumes(h.host(), c.drivers);
    for (const Json& claim : c.extra_claims)
      h.host().add_object("PersistentVolumeClaim", claim);
    h.host().add_object("storage.k8s.io/StorageClass", storage_class(kStorageClass, c.drivers[0]));
    HookResult pre;
    const HookResult got = h.run(c.pod, &pre);
    EXPECT_EQ(pre.code == Code::Skip, c.want_pre_filter_skip) << pre;
    EXPECT_TRUE(pre.reasons.empty()) << pre;
    EXPECT_EQ(got.code, c.want_code) << got;
    if (c.want_reason.empty()) {
      EXPECT_TRUE(got.reasons.empty()) << got;
    } else {
      EXPECT_EQ(got.reasons, std::vector<std::string>{c.want_reason});
    }
  }
}

// TestVolumeLimitScalingGate: with the gate, a driver that has a CSIDriver object must be in the
// node's CSINode.
TEST(NodeVolumeLimitsFilter, VolumeLimitScalingGate) {
  struct Case {
    const char* name;
    bool gate;
    Limits limits;
    std::int64_t limit;
    bool csi_driver_present;
    Code want_code;
    std::string want_reason;
  };
  const std::vector<Case> cases = {
      {"gate enabled - fail when driver not installed and CSIDriver exists", true,
       Limits::kNoDrivers, 0, true, Code::Unschedulable,
       "ebs.csi.aws.com CSI driver is not installed on the node"},
      {"gate disabled - skip driver presence check (regardless of CSIDriver presence)", false,
       Limits::kNoDrivers, 0, true, Code::Success, ""},
      {"gate enabled - driver installed within limit", true, Limits::kCsiNode, 2, true,
       Code::Success, ""},
      {"gate enabled - allow scheduling when CSIDriver object missing", true, Limits::kNoDrivers, 0,
       false, Code::Success, ""},
      // Not in upstream's table: no CSINode at all, same as one without the driver.
      {"gate enabled - no CSINode and a CSIDriver", true, Limits::kNoCsiNode, 0, true,
       Code::Unschedulable, "ebs.csi.aws.com CSI driver is not installed on the node"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    VolumeLimitsHost h;
    h.host().set_feature_gate("VolumeLimitScaling", c.gate);
    h.add_node(c.limits, c.limit, {kEbsDriver}, {});
    add_upstream_volumes(h.host(), {kEbsDriver});
    h.host().add_object("storage.k8s.io/StorageClass", storage_class(kStorageClass, kEbsDriver));
    if (c.csi_driver_present) {
      h.host().add_object("storage.k8s.io/CSIDriver", {{"apiVersion", "storage.k8s.io/v1"},
                                                       {"kind", "CSIDriver"},
                                                       {"metadata", {{"name", kEbsDriver}}},
                                                       {"spec", Json::object()}});
    }
    const HookResult got = h.run(pvc_pod("new", {"csi-ebs.csi.aws.com-0"}));
    EXPECT_EQ(got.code, c.want_code) << got;
    EXPECT_EQ(got.message(), c.want_reason);
  }
}

// ---- beyond upstream's tables ---------------------------------------------------------------

// One host with node kNode: CSINode `csi` (null: none), the objects, the existing pods.
struct Cluster {
  Json csi = nullptr;
  std::vector<std::pair<std::string, Json>> objects;
  std::vector<FakePod> existing;
  FakeNode node = FakeNode(kNode);
};

HookResult filter_on(const Cluster& c, const FakePod& pod, std::vector<std::string> gates_on = {},
                     std::vector<std::string> gates_off = {}) {
  VolumeLimitsHost h;
  for (const std::string& g : gates_on)
    h.host().set_feature_gate(g, true);
  for (const std::string& g : gates_off)
    h.host().set_feature_gate(g, false);
  h.add_node(Limits::kNoCsiNode, 0, {}, c.existing, c.node);
  if (!c.csi.is_null()) h.host().add_object("storage.k8s.io/CSINode", c.csi);
  for (const auto& [resource, object] : c.objects)
    h.host().add_object(resource, object);
  return h.run(pod);
}

// Bound claims claim-0..n-1 on CSI PVs of `driver` (handles vol-0..).
std::vector<std::pair<std::string, Json>> bound_claims(const std::string& driver, int n) {
  std::vector<std::pair<std::string, Json>> out;
  for (int i = 0; i < n; ++i) {
    const std::string k = std::to_string(i);
    out.emplace_back("PersistentVolume", csi_pv("pv-" + k, driver, "vol-" + k));
    out.emplace_back("PersistentVolumeClaim",
                     pvc("default", "claim-" + k, {{"volumeName", "pv-" + k}}));
  }
  return out;
}

// v1.35 reads limits from the CSINode only: node allocatable "attachable-volumes-csi-<driver>"
// (v1.28's source, which the CSINode overrode) no longer limits anything.
TEST(NodeVolumeLimitsFilter, LimitsComeFromTheCSINodeOnly) {
  Cluster c;
  c.objects = bound_claims(kEbsDriver, 3);
  c.existing = {pvc_pod("a", {"claim-0"}), pvc_pod("b", {"claim-1"})};
  c.node = FakeNode(kNode).allocatable("attachable-volumes-csi-ebs.csi.aws.com", 1);
  const FakePod pod = pvc_pod("new", {"claim-2"});
  // No CSINode: no limit, whatever the node's allocatable says.
  EXPECT_EQ(filter_on(c, pod).code, Code::Success);
  // A CSINode with the driver and no count: no limit either.
  c.csi = csi_node(kNode, {{kEbsDriver, std::nullopt}});
  EXPECT_EQ(filter_on(c, pod).code, Code::Success);
  // The CSINode's count is the limit: 2 attached + 1 > 2.
  c.csi = csi_node(kNode, {{kEbsDriver, 2}});
  EXPECT_EQ(filter_on(c, pod).reasons, std::vector<std::string>{kMaxVolumeCount});
  // Exactly at the limit passes: 2 attached + 1 = 3.
  c.csi = csi_node(kNode, {{kEbsDriver, 3}});
  EXPECT_EQ(filter_on(c, pod).code, Code::Success);
  // A count of 0 admits no new volume at all.
  Cluster empty;
  empty.objects = bound_claims(kEbsDriver, 1);
  empty.csi = csi_node(kNode, {{kEbsDriver, 0}});
  const HookResult zero = filter_on(empty, pvc_pod("new", {"claim-0"}));
  EXPECT_EQ(zero.code, Code::Unschedulable);
  EXPECT_EQ(zero.reasons, std::vector<std::string>{kMaxVolumeCount});
  // Another driver's count does not limit this one.
  empty.csi = csi_node(kNode, {{kGceDriver, 0}});
  EXPECT_EQ(filter_on(empty, pvc_pod("new", {"claim-0"})).code, Code::Success);
}

// A driver name longer than v1.28's 63-character limit key allowed (which it shortened to 23
// characters and a sha1 prefix) is counted by its own name, against its own CSINode entry.
TEST(NodeVolumeLimitsFilter, LongDriverNamesAreCountedByName) {
  const std::string long_driver =
      "a-very-long-csi-driver-name-that-goes-past-sixty-three.storage.example.com";
  ASSERT_GT(std::string("attachable-volumes-csi-").size() + long_driver.size(), 63U);
  // Same first 23 characters: v1.28's keys would have differed only by the sha1 part.
  const std::string twin =
      "a-very-long-csi-driver-name-that-goes-past-sixty-three.storage.example.org";
  Cluster c;
  c.objects = bound_claims(long_driver, 2);
  c.objects.emplace_back("PersistentVolume", csi_pv("twin-pv", twin, "vol-t"));
  c.objects.emplace_back("PersistentVolumeClaim",
                         pvc("default", "twin", {{"volumeName", "twin-pv"}}));
  c.existing = {pvc_pod("a", {"claim-0"}), pvc_pod("t", {"twin"})};
  c.csi = csi_node(kNode, {{long_driver, 1}, {twin, 5}});
  const HookResult over = filter_on(c, pvc_pod("new", {"claim-1"}));
  EXPECT_EQ(over.code, Code::Unschedulable);
  EXPECT_EQ(over.reasons, std::vector<std::string>{kMaxVolumeCount});
  c.csi = csi_node(kNode, {{long_driver, 2}, {twin, 0}});
  EXPECT_EQ(filter_on(c, pvc_pod("new", {"claim-1"})).code, Code::Success);
}

// One volume mounted twice by the pod, or already used by a pod of the node, counts once.
TEST(NodeVolumeLimitsFilter, DuplicatesAreCountedOnce) {
  Cluster c;
  c.objects = bound_claims(kEbsDriver, 3);
  c.csi = csi_node(kNode, {{kEbsDriver, 2}});
  c.existing = {pvc_pod("a", {"claim-0"}), pvc_pod("b", {"claim-0", "claim-1"})};
  // claim-0 and claim-1 are attached (2 of 2); the pod reuses both, twice over.
  const FakePod reuse = pod_with("reuse", {pvc_volume("claim-0", "x"), pvc_volume("claim-0", "y"),
                                           pvc_volume("claim-1", "z")});
  EXPECT_EQ(filter_on(c, reuse).code, Code::Success);
  // A third distinct volume does not fit.
  EXPECT_EQ(filter_on(c, pvc_pod("third", {"claim-0", "claim-2"})).code, Code::Unschedulable);
  // Two claims bound to PVs with the same driver and handle are one volume.
  Cluster same;
  same.objects = {{"PersistentVolume", csi_pv("pv-a", kEbsDriver, "vol-x")},
                  {"PersistentVolume", csi_pv("pv-b", kEbsDriver, "vol-x")},
                  {"PersistentVolumeClaim", pvc("default", "a", {{"volumeName", "pv-a"}})},
                  {"PersistentVolumeClaim", pvc("default", "b", {{"volumeName", "pv-b"}})}};
  same.csi = csi_node(kNode, {{kEbsDriver, 1}});
  same.existing = {pvc_pod("a", {"a"})};
  EXPECT_EQ(filter_on(same, pvc_pod("new", {"b"})).code, Code::Success);
  // Two pods using one unbound claim: one volume (the same deterministic handle).
  Cluster unbound;
  unbound.objects = {
      {"storage.k8s.io/StorageClass", storage_class("fast", kEbsDriver)},
      {"PersistentVolumeClaim", pvc("default", "u", {{"storageClassName", "fast"}})},
      {"PersistentVolumeClaim", pvc("default", "w", {{"storageClassName", "fast"}})}};
  unbound.csi = csi_node(kNode, {{kEbsDriver, 1}});
  unbound.existing = {pvc_pod("a", {"u"})};
  EXPECT_EQ(filter_on(unbound, pvc_pod("same", {"u"})).code, Code::Success);
  EXPECT_EQ(filter_on(unbound, pvc_pod("other", {"w"})).code, Code::Unschedulable);
}

// GetPersistentVolumeClaimClass: the beta annotation wins over spec.storageClassName, even empty.
TEST(NodeVolumeLimitsFilter, UnboundClaimsCountByTheirClass) {
  Cluster c;
  c.objects = {{"storage.k8s.io/StorageClass", storage_class("fast", kEbsDriver)},
               {"storage.k8s.io/StorageClass", storage_class("gce", "kubernetes.io/gce-pd")},
               {"storage.k8s.io/StorageClass", storage_class("file", "kubernetes.io/azure-file")}};
  Json annotated = pvc("default", "annotated", {{"storageClassName", "none-such"}});
  annotated["metadata"]["annotations"] = {{"volume.beta.kubernetes.io/storage-class", "fast"}};
  Json blanked = pvc("default", "blanked", {{"storageClassName", "fast"}});
  blanked["metadata"]["annotations"] = {{"volume.beta.kubernetes.io/storage-class", ""}};
  c.objects.emplace_back("PersistentVolumeClaim", annotated);
  c.objects.emplace_back("PersistentVolumeClaim", blanked);
  c.objects.emplace_back("PersistentVolumeClaim",
                         pvc("default", "missing-class", {{"storageClassName", "gone"}}));
  c.objects.emplace_back("PersistentVolumeClaim",
                         pvc("default", "in-tree", {{"storageClassName", "gce"}}));
  c.objects.emplace_back("PersistentVolumeClaim",
                         pvc("default", "azure-file", {{"storageClassName", "file"}}));
  c.csi = csi_node(kNode, {{kEbsDriver, 0}, {kGceDriver, 0}, {"file.csi.azure.com", 0}});
  EXPECT_EQ(filter_on(c, pvc_pod("p", {"annotated"})).code, Code::Unschedulable);
  EXPECT_EQ(filter_on(c, pvc_pod("p", {"blanked"})).code, Code::Success);
  EXPECT_EQ(filter_on(c, pvc_pod("p", {"missing-class"})).code, Code::Success);
  // An in-tree provisioner counts as the CSI driver it migrated to...
  EXPECT_EQ(filter_on(c, pvc_pod("p", {"in-tree"})).code, Code::Unschedulable);
  // ...when migration is on for it: never for azure-file in v1.35.
  EXPECT_EQ(filter_on(c, pvc_pod("p", {"azure-file"})).code, Code::Success);
}

// csi-translation-lib's handles: an inline volume and a PV of the same disk are one volume.
TEST(NodeVolumeLimitsFilter, InTreeVolumesTranslateToTheirCSIHandles) {
  Cluster c;
  c.csi = csi_node(kNode, {{kEbsDriver, 1},
                           {kGceDriver, 1},
                           {"disk.csi.azure.com", 1},
                           {"cinder.csi.openstack.org", 1}});
  c.objects = {
      {"PersistentVolume", pv("ebs", {{"awsElasticBlockStore", {{"volumeID", "vol-123"}}}})},
      {"PersistentVolume", pv("gce", {{"gcePersistentDisk", {{"pdName", "disk-1"}}}})},
      {"PersistentVolume", pv("gce-zonal", {{"gcePersistentDisk", {{"pdName", "disk-1"}}}},
                              {{"topology.kubernetes.io/zone", "us-east1-b"}})},
      {"PersistentVolume", pv("gce-regional", {{"gcePersistentDisk", {{"pdName", "disk-1"}}}},
                              {{"topology.kubernetes.io/zone", "us-east1-b__us-east1-c"}})},
      {"PersistentVolume",
       pv("azure", {{"azureDisk", {{"diskURI", "/subscriptions/x/disks/d"}, {"diskName", "d"}}}})},
      {"PersistentVolume", pv("cinder", {{"cinder", {{"volumeID", "c-1"}}}})},
  };
  for (const char* name : {"ebs", "gce", "gce-zonal", "gce-regional", "azure", "cinder"}) {
    c.objects.emplace_back("PersistentVolumeClaim", pvc("default", name, {{"volumeName", name}}));
  }
  const auto with_existing = [&](std::vector<std::string> claims) {
    Cluster k = c;
    k.existing = {pvc_pod("existing", claims)};
    return k;
  };
  // aws://<zone>/vol-123 is vol-123.
  EXPECT_EQ(
      filter_on(with_existing({"ebs"}), pod_with("p", {ebs_inline("aws://us-east-1a/vol-123")}))
          .code,
      Code::Success);
  EXPECT_EQ(filter_on(with_existing({"ebs"}), pod_with("p", {ebs_inline("vol-456")})).code,
            Code::Unschedulable);
  // An inline GCE PD has no zone, like a PV without zone labels; zonal and regional PVs differ.
  const Json gce_inline = inline_volume("pd", "gcePersistentDisk", {{"pdName", "disk-1"}});
  EXPECT_EQ(filter_on(with_existing({"gce"}), pod_with("p", {gce_inline})).code, Code::Success);
  EXPECT_EQ(filter_on(with_existing({"gce-zonal"}), pod_with("p", {gce_inline})).code,
            Code::Unschedulable);
  EXPECT_EQ(filter_on(with_existing({"gce-zonal"}), pvc_pod("p", {"gce-regional"})).code,
            Code::Unschedulable);
  // Azure disks by URI, Cinder by volume ID.
  EXPECT_EQ(filter_on(with_existing({"azure"}),
                      pod_with("p", {inline_volume("az", "azureDisk",
                                                   {{"diskURI", "/subscriptions/x/disks/d"},
                                                    {"diskName", "d"},
                                                    {"kind", "managed"}})}))
                .code,
            Code::Success);
  EXPECT_EQ(filter_on(with_existing({"cinder"}),
                      pod_with("p", {inline_volume("ci", "cinder", {{"volumeID", "c-2"}})}))
                .code,
            Code::Unschedulable);
  // Inline vSphere and Azure File volumes make PreFilter run Filter, but are never counted.
  Cluster others;
  others.csi = csi_node(kNode, {{"csi.vsphere.vmware.com", 0}, {"file.csi.azure.com", 0}});
  const FakePod vsphere = pod_with(
      "p", {inline_volume("vs", "vsphereVolume", {{"volumePath", "[ds] v.vmdk"}}),
            inline_volume("af", "azureFile", {{"secretName", "s"}, {"shareName", "share"}})});
  HookResult pre;
  VolumeLimitsHost h;
  h.add_node(Limits::kNoCsiNode, 0, {}, {});
  EXPECT_EQ(h.run(vsphere, &pre).code, Code::Success);
  EXPECT_EQ(pre.code, Code::Success);
  EXPECT_EQ(filter_on(others, vsphere).code, Code::Success);
}

// Inline volumes that do not translate are an Error for the incoming pod and for pods already on
// the node; an existing pod's missing claim is simply not counted.
TEST(NodeVolumeLimitsFilter, LookupAndTranslationErrors) {
  Cluster c;
  c.csi = csi_node(kNode, {{kEbsDriver, 5}});
  c.objects = bound_claims(kEbsDriver, 1);
  const HookResult bad_ebs = filter_on(c, pod_with("p", {ebs_inline("aws://us-east-1a/bad", "v")}));
  EXPECT_EQ(bad_ebs.code, Code::Error);
  EXPECT_EQ(bad_ebs.message(),
            "converting volume(v) from inline to csi: failed to translate Kubernetes ID to EBS "
            "Volume ID Invalid format for AWS volume (aws://us-east-1a/bad)");
  const HookResult bad_escape =
      filter_on(c, pod_with("p", {ebs_inline("aws://us-east-1a/vol-%zz", "v")}));
  EXPECT_EQ(bad_escape.message(),
            "converting volume(v) from inline to csi: failed to translate Kubernetes ID to EBS "
            "Volume ID Invalid disk name (aws://us-east-1a/vol-%zz): parse "
            "\"aws://us-east-1a/vol-%zz\": invalid URL escape \"%zz\"");
  const HookResult bad_port = filter_on(c, pod_with("p", {ebs_inline("aws://zone:x/vol-1", "v")}));
  EXPECT_EQ(bad_port.message(),
            "converting volume(v) from inline to csi: failed to translate Kubernetes ID to EBS "
            "Volume ID Invalid disk name (aws://zone:x/vol-1): parse \"aws://zone:x/vol-1\": "
            "invalid port \":x\" after host");
  const HookResult shared = filter_on(
      c, pod_with("p", {inline_volume("d", "azureDisk", {{"diskURI", "u"}, {"kind", "Shared"}})}));
  EXPECT_EQ(shared.code, Code::Error);
  EXPECT_EQ(shared.message(),
            "converting volume(d) from inline to csi: kind(Shared) is not supported in csi "
            "migration");
  const HookResult no_name = filter_on(c, pod_with("p", {pvc_volume("", "v")}));
  EXPECT_EQ(no_name.code, Code::Error);
  EXPECT_EQ(no_name.message(), "PersistentVolumeClaim had no name");
  const HookResult missing = filter_on(c, pvc_pod("p", {"claim-0", "nope"}));
  EXPECT_EQ(missing.code, Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(missing.reasons, std::vector<std::string>{"looking up PVC default/nope: "
                                                      "persistentvolumeclaim \"nope\" not found"});
  // Pods already on the node: a missing claim is skipped, a bad inline volume fails the node.
  Cluster on_node = c;
  on_node.existing = {pvc_pod("gone", {"nope"})};
  EXPECT_EQ(filter_on(on_node, pvc_pod("p", {"claim-0"})).code, Code::Success);
  on_node.existing = {pod_with("bad", {ebs_inline("aws://z/bad", "w")})};
  const HookResult existing_bad = filter_on(on_node, pvc_pod("p", {"claim-0"}));
  EXPECT_EQ(existing_bad.code, Code::Error);
  EXPECT_EQ(existing_bad.message(),
            "converting volume(w) from inline to csi: failed to translate Kubernetes ID to EBS "
            "Volume ID Invalid format for AWS volume (aws://z/bad)");
  // An existing pod's ephemeral claim it does not own is an Error too (as upstream).
  on_node.existing = {pod_with("e", {ephemeral_volume("x")})};
  on_node.objects.emplace_back("PersistentVolumeClaim",
                               ephemeral_claim("default", "e-x", "someone-else", "other"));
  EXPECT_EQ(filter_on(on_node, pvc_pod("p", {"claim-0"})).message(),
            "PVC default/e-x was not created for pod default/e (pod is not owner)");
  // Without a CSINode nothing limits, but the incoming pod's claims are still looked up.
  Cluster bare;
  EXPECT_EQ(filter_on(bare, pvc_pod("p", {"nope"})).code, Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(filter_on(bare, pod_with("p", {ebs_inline("aws://z/bad")})).code, Code::Success);
}

// Portworx migrates with CSIMigrationPortworx (on in v1.35) and the plugin in the CSINode's
// migrated-plugins annotation; the annotation does not matter for the other four.
TEST(NodeVolumeLimitsFilter, PortworxNeedsItsGateAndTheAnnotation) {
  const Json px = inline_volume("px", "portworxVolume", {{"volumeID", "px-1"}});
  Cluster c;
  c.objects = {{"PersistentVolume", pv("px-pv", {{"portworxVolume", {{"volumeID", "px-0"}}}})},
               {"PersistentVolumeClaim", pvc("default", "px", {{"volumeName", "px-pv"}})}};
  c.existing = {pvc_pod("a", {"px"})};
  c.csi = csi_node(kNode, {{"pxd.portworx.com", 1}},
                   "kubernetes.io/aws-ebs,kubernetes.io/portworx-volume");
  const FakePod pod = pod_with("p", {px});
  EXPECT_EQ(filter_on(c, pod, {"CSIMigrationPortworx"}).code, Code::Unschedulable);
  EXPECT_EQ(filter_on(c, pod, {}, {"CSIMigrationPortworx"}).code, Code::Success);
  c.csi = csi_node(kNode, {{"pxd.portworx.com", 1}}, "kubernetes.io/aws-ebs");
  EXPECT_EQ(filter_on(c, pod, {"CSIMigrationPortworx"}).code, Code::Success);
  // aws-ebs counts with no annotation at all.
  Cluster ebs;
  ebs.csi = csi_node(kNode, {{kEbsDriver, 1}});
  ebs.existing = {pod_with("a", {ebs_inline("vol-1")})};
  EXPECT_EQ(filter_on(ebs, pod_with("p", {ebs_inline("vol-2")})).code, Code::Unschedulable);
}

TEST(NodeVolumeLimitsFilter, TakesNoArgs) {
  FakeHost host(FakeHost::open_library(library_path()));
  EXPECT_EQ(host.create_error("NodeVolumeLimits", "{}"), "");
  EXPECT_EQ(host.create_error("NodeVolumeLimits", R"({"maxVolumes": 3})"),
            "this plugin takes no args");
}

// SignPod: upstream's VolumesSigner, every volume source but configMap and secret, sorted.
TEST(NodeVolumeLimitsFilter, SignsTheVolumeSources) {
  FakeHost host(FakeHost::open_library(library_path()));
  FakePlugin plugin = host.create("NodeVolumeLimits");
  const HookResult a = plugin.sign_pod(pod_with(
      "a", {pvc_volume("z", "first"), config_map_volume(), secret_volume(), ebs_inline("vol-1")}));
  EXPECT_EQ(a.signature, (std::map<std::string, std::string>{
                             {"v1.Pod.Spec.Volumes.NonSyntheticSources()",
                              R"(["{\"awsElasticBlockStore\":{\"volumeID\":\"vol-1\"}}",)"
                              R"("{\"persistentVolumeClaim\":{\"claimName\":\"z\"}}"])"}}));
  // The volume names do not matter; the sources do.
  const HookResult b = plugin.sign_pod(pod_with("b", {ebs_inline("vol-1", "x"), pvc_volume("z")}));
  EXPECT_EQ(b.signature, a.signature);
  EXPECT_EQ(
      plugin.sign_pod(FakePod("c")).signature,
      (std::map<std::string, std::string>{{"v1.Pod.Spec.Volumes.NonSyntheticSources()", "[]"}}));
}

}  // namespace
}  // namespace schedhost::testing::volume_limits
