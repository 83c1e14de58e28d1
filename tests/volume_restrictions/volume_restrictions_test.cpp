// VolumeRestrictions (plugins/volume_restrictions) as kube-scheduler v1.35.4 decides it: the
// built .so from the built-in plugin directory on the SDK's fake host, PreFilter then Filter on
// one CycleState as upstream's TestGCEDiskConflicts / TestAWSDiskConflicts /
// TestRBDDiskConflicts / TestISCSIDiskConflicts / TestAccessModeConflicts drive them, AddPod and
// RemovePod on that state (ReadWriteOncePod), the queueing hints of the events it registers,
// and its pod signature.
#include <gtest/gtest.h>
#include <schedhost/testing.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "support/fixtures.hpp"

namespace schedhost::testing {
namespace {

using Json = nlohmann::json;
using Registrations = std::vector<EventRegistration>;

constexpr const char* kPVC = "PersistentVolumeClaim";
constexpr const char* kDisk = "node(s) had no available disk";
constexpr const char* kReadWriteOncePod =
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already "
    "in-use by another pod";
constexpr const char* kNoState = "cannot read \"PreFilterVolumeRestrictions\" from cycleState";

Json gce(const std::string& pd, bool read_only = false) {
  return {{"name", "gce"}, {"gcePersistentDisk", {{"pdName", pd}, {"readOnly", read_only}}}};
}
Json ebs(const std::string& id, bool read_only = false) {
  return {{"name", "ebs"}, {"awsElasticBlockStore", {{"volumeID", id}, {"readOnly", read_only}}}};
}
Json iscsi(const std::string& iqn, bool read_only = false, const std::string& portal = "a:3260") {
  return {{"name", "iscsi"},
          {"iscsi", {{"targetPortal", portal}, {"iqn", iqn}, {"lun", 0}, {"readOnly", read_only}}}};
}
// pool "" leaves it out (the API server defaults it to "rbd").
Json rbd(const std::vector<std::string>& monitors, const std::string& pool,
         const std::string& image, bool read_only = false) {
  Json source = {{"monitors", monitors}, {"image", image}, {"readOnly", read_only}};
  if (!pool.empty()) source["pool"] = pool;
  return {{"name", "rbd"}, {"rbd", source}};
}
Json claim(const std::string& name, const std::string& volume = "data") {
  return {{"name", volume}, {"persistentVolumeClaim", {{"claimName", name}}}};
}

FakePod pod_with(const Json& volumes, const std::string& name = "pod",
                 const std::string& ns = "default") {
  return FakePod(name, ns).json("/spec/volumes", volumes);
}

Json pvc(const std::string& name, const std::vector<std::string>& modes,
         const std::string& ns = "default") {
  return {{"apiVersion", "v1"},
          {"kind", "PersistentVolumeClaim"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec", {{"accessModes", modes}, {"volumeName", "pv-" + name}}}};
}

// The library, its fake host and one VolumeRestrictions; nodes are added per test.
class VolumeRestrictionsTest : public ::testing::Test {
 protected:
  VolumeRestrictionsTest()
      : host_(std::make_unique<FakeHost>(
            FakeHost::open_library(builtin_plugin_dir() + "/volume_restrictions.so"))) {
    host_->add_object(kPVC, pvc("claim-rwop", {"ReadWriteOncePod"}))
        .add_object(kPVC, pvc("claim-rwop-2", {"ReadWriteOnce", "ReadWriteOncePod"}))
        .add_object(kPVC, pvc("claim-rwo", {"ReadWriteOnce"}))
        .add_object(kPVC, pvc("claim-rwop", {"ReadWriteOncePod"}, "ns1"));
    plugin_ = std::make_unique<FakePlugin>(host_->create("VolumeRestrictions"));
  }
  ~VolumeRestrictionsTest() override { plugin_.reset(); }

  std::unique_ptr<FakeHost> host_;
  std::unique_ptr<FakePlugin> plugin_;
};

struct Expect {
  Code code = Code::Success;
  std::string reason;
};
std::vector<std::string> reasons_of(const Expect& e) {
  return e.reason.empty() ? std::vector<std::string>{} : std::vector<std::string>{e.reason};
}

// One disk case: the pod, the volumes of the pod already on the node (none: an empty node).
struct DiskCase {
  const char* name;
  Json pod_volumes;
  std::optional<Json> existing_volumes;
  Expect pre_filter;
  Expect filter;
};

TEST_F(VolumeRestrictionsTest, DiskConflicts) {
  const Expect ok;
  const Expect skip{Code::Skip, ""};
  const Expect conflict{Code::Unschedulable, kDisk};
  const Json foo_bar_monitors = {"a", "b"};
  const std::vector<DiskCase> cases = {
      {"nothing", Json::array(), std::nullopt, skip, ok},
      {"a volume without restrictions",
       Json::array({{{"name", "tmp"}, {"emptyDir", Json::object()}}}),
       Json::array({{{"name", "tmp"}, {"emptyDir", Json::object()}}}), skip, ok},
      // GCE PD: the same pdName conflicts unless both mounts are read-only.
      {"gce: empty node", Json::array({gce("foo")}), std::nullopt, ok, ok},
      {"gce: one state", Json::array({gce("foo")}), Json::array({gce("foo")}), ok, conflict},
      {"gce: different disk", Json::array({gce("foo")}), Json::array({gce("bar")}), ok, ok},
      {"gce: both read-only", Json::array({gce("foo", true)}), Json::array({gce("foo", true)}), ok,
       ok},
      {"gce: only the new one read-only", Json::array({gce("foo", true)}),
       Json::array({gce("foo")}), ok, conflict},
      {"gce: only the existing one read-only", Json::array({gce("foo")}),
       Json::array({gce("foo", true)}), ok, conflict},
      {"gce: the second volume conflicts", Json::array({gce("bar"), gce("foo")}),
       Json::array({gce("foo"), ebs("x")}), ok, conflict},
      // AWS EBS: the same volumeID conflicts, read-only or not.
      {"ebs: one state", Json::array({ebs("foo")}), Json::array({ebs("foo")}), ok, conflict},
      {"ebs: different volume", Json::array({ebs("foo")}), Json::array({ebs("bar")}), ok, ok},
      {"ebs: both read-only", Json::array({ebs("foo", true)}), Json::array({ebs("foo", true)}), ok,
       conflict},
      {"ebs against a gce disk of that name", Json::array({ebs("foo")}), Json::array({gce("foo")}),
       ok, ok},
      // ISCSI: the same iqn (whatever the portal) conflicts unless both are read-only.
      {"iscsi: one state", Json::array({iscsi("iqn.1")}), Json::array({iscsi("iqn.1")}), ok,
       conflict},
      {"iscsi: another portal, the same iqn", Json::array({iscsi("iqn.1")}),
       Json::array({iscsi("iqn.1", false, "b:3260")}), ok, conflict},
      {"iscsi: different iqn", Json::array({iscsi("iqn.1")}), Json::array({iscsi("iqn.2")}), ok,
       ok},
      {"iscsi: both read-only", Json::array({iscsi("iqn.1", true)}),
       Json::array({iscsi("iqn.1", true)}), ok, ok},
      {"iscsi: one read-only", Json::array({iscsi("iqn.1", true)}), Json::array({iscsi("iqn.1")}),
       ok, conflict},
      // RBD: a shared monitor, the same pool and image, unless both are read-only.
      {"rbd: one state", Json::array({rbd({"a", "b"}, "foo", "bar")}),
       Json::array({rbd({"a", "b"}, "foo", "bar")}), ok, conflict},
      {"rbd: one monitor shared", Json::array({rbd({"a", "b"}, "foo", "bar")}),
       Json::array({rbd({"c", "b"}, "foo", "bar")}), ok, conflict},
      {"rbd: no monitor shared", Json::array({rbd({"a", "b"}, "foo", "bar")}),
       Json::array({rbd({"c", "d"}, "foo", "bar")}), ok, ok},
      {"rbd: another pool", Json::array({rbd({"a", "b"}, "foo", "bar")}),
       Json::array({rbd({"a", "b"}, "foo2", "bar")}), ok, ok},
      {"rbd: another image", Json::array({rbd({"a", "b"}, "foo", "bar")}),
       Json::array({rbd({"a", "b"}, "foo", "bar2")}), ok, ok},
      {"rbd: the default pool is rbd", Json::array({rbd({"a"}, "", "bar")}),
       Json::array({rbd({"a"}, "rbd", "bar")}), ok, conflict},
      {"rbd: both read-only", Json::array({rbd({"a"}, "foo", "bar", true)}),
       Json::array({rbd({"a"}, "foo", "bar", true)}), ok, ok},
      {"rbd: one read-only", Json::array({rbd({"a"}, "foo", "bar")}),
       Json::array({rbd({"a"}, "foo", "bar", true)}), ok, conflict},
  };
  int i = 0;
  for (const DiskCase& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string node_name = "node-" + std::to_string(i++);
    FakeNode node(node_name);
    // The existing pod is of another namespace: disks are not namespaced.
    if (c.existing_volumes) node.pod(pod_with(*c.existing_volumes, "existing", "elsewhere"));
    host_->add_node(std::move(node));
    const FakePod pod = pod_with(c.pod_volumes);
    FakeCycleState state;
    const HookResult pre = plugin_->pre_filter(state, pod);
    EXPECT_EQ(pre.code, c.pre_filter.code);
    EXPECT_EQ(pre.reasons, reasons_of(c.pre_filter));
    if (pre.code == Code::Skip) continue;  // the framework then skips Filter
    const HookResult f = plugin_->filter(state, pod, node_name);
    EXPECT_EQ(f.code, c.filter.code);
    EXPECT_EQ(f.reasons, reasons_of(c.filter));
  }
}

struct AccessCase {
  const char* name;
  FakePod pod;
  Expect pre_filter;
  Expect filter;
};

TEST_F(VolumeRestrictionsTest, ReadWriteOncePodConflicts) {
  // claim-rwop and claim-rwo are mounted by pods on node-1; node-2 is empty. The conflict is
  // cluster-wide: both nodes answer the same.
  host_
      ->add_node(FakeNode("node-1")
                     .pod(pod_with(Json::array({claim("claim-rwop")}), "holder"))
                     .pod(pod_with(Json::array({claim("claim-rwo")}), "rwo-holder")))
      .add_node(FakeNode("node-2"));
  const Expect ok;
  const Expect skip{Code::Skip, ""};
  const Expect rwop{Code::Unschedulable, kReadWriteOncePod};
  const std::vector<AccessCase> cases = {
      {"nothing", FakePod("pod"), skip, ok},
      {"failed to get PVC",
       pod_with(Json::array({claim("claim-nope")})),
       {Code::UnschedulableAndUnresolvable, "persistentvolumeclaim \"claim-nope\" not found"},
       ok},
      {"a claim with no name is looked up as such",
       pod_with(Json::array({claim("")})),
       {Code::UnschedulableAndUnresolvable, "persistentvolumeclaim \"\" not found"},
       ok},
      {"no access mode conflict: ReadWriteOnce in use", pod_with(Json::array({claim("claim-rwo")})),
       skip, ok},
      {"no access mode conflict: ReadWriteOncePod not in use",
       pod_with(Json::array({claim("claim-rwop-2")})), skip, ok},
      {"access mode conflict, unschedulable", pod_with(Json::array({claim("claim-rwop")})), ok,
       rwop},
      {"the conflicting claim beside a free one",
       pod_with(Json::array({claim("claim-rwop-2", "a"), claim("claim-rwop", "b")})), ok, rwop},
      // ns1/claim-rwop is another claim: nothing on the nodes mounts it.
      {"the same claim name in another namespace",
       pod_with(Json::array({claim("claim-rwop")}), "pod", "ns1"), skip, ok},
      {"a disk volume makes PreFilter keep its state",
       pod_with(Json::array({claim("claim-rwop-2"), ebs("vol-1")})), ok, ok},
  };
  for (const AccessCase& c : cases) {
    SCOPED_TRACE(c.name);
    FakeCycleState state;
    const HookResult pre = plugin_->pre_filter(state, c.pod);
    EXPECT_EQ(pre.code, c.pre_filter.code);
    EXPECT_EQ(pre.reasons, reasons_of(c.pre_filter));
    if (pre.code != Code::Success) continue;
    for (const char* n : {"node-1", "node-2"}) {
      const HookResult f = plugin_->filter(state, c.pod, n);
      EXPECT_EQ(f.code, c.filter.code) << n;
      EXPECT_EQ(f.reasons, reasons_of(c.filter)) << n;
    }
  }
}

TEST_F(VolumeRestrictionsTest, TwoConflictingClaimsCountTwiceAndOneRemovalLeavesOne) {
  const FakePod holder = pod_with(Json::array({claim("claim-rwop", "a")}), "holder");
  const FakePod holder_2 = pod_with(Json::array({claim("claim-rwop-2", "b")}), "holder-2");
  host_->add_node(FakeNode("node-1").pod(holder)).add_node(FakeNode("node-2").pod(holder_2));
  const FakePod pod = pod_with(Json::array({claim("claim-rwop", "a"), claim("claim-rwop-2", "b")}));
  FakeCycleState state;
  ASSERT_EQ(plugin_->pre_filter(state, pod).code, Code::Success);
  EXPECT_EQ(plugin_->filter(state, pod, "node-1").reasons,
            std::vector<std::string>{kReadWriteOncePod});
  // Preemption's dry run removes holder from node-1: holder-2 still holds claim-rwop-2.
  const std::unique_ptr<FakeCycleState> one = state.clone();
  ASSERT_TRUE(one);
  EXPECT_EQ(plugin_->remove_pod(*one, pod, FakePod(holder).node_name("node-1"), "node-1").code,
            Code::Success);
  EXPECT_EQ(plugin_->filter(*one, pod, "node-1").code, Code::Unschedulable);
  EXPECT_EQ(plugin_->remove_pod(*one, pod, FakePod(holder_2).node_name("node-2"), "node-2").code,
            Code::Success);
  const HookResult both_removed = plugin_->filter(*one, pod, "node-1");
  EXPECT_EQ(both_removed.code, Code::Success);
  EXPECT_TRUE(both_removed.reasons.empty());
  // The original state is untouched by its clone's changes.
  EXPECT_EQ(plugin_->filter(state, pod, "node-2").code, Code::Unschedulable);
}

TEST_F(VolumeRestrictionsTest, AddPodAndRemovePodAdjustTheCount) {
  host_->add_node(FakeNode("node-1")).add_node(FakeNode("node-2"));
  // An EBS volume keeps PreFilter from skipping while no one holds claim-rwop-2.
  const FakePod pod = pod_with(Json::array({claim("claim-rwop-2"), ebs("vol-1")}));
  FakeCycleState state;
  ASSERT_EQ(plugin_->pre_filter(state, pod).code, Code::Success);
  EXPECT_EQ(plugin_->filter(state, pod, "node-1").code, Code::Success);

  // A nominated pod mounting claim-rwop-2 makes it taken.
  const FakePod nominated =
      pod_with(Json::array({claim("claim-rwop-2")}), "nominated").node_name("node-2");
  ASSERT_EQ(plugin_->add_pod(state, pod, nominated, "node-2").code, Code::Success);
  for (const char* n : {"node-1", "node-2"}) {
    const HookResult f = plugin_->filter(state, pod, n);
    EXPECT_EQ(f.code, Code::Unschedulable) << n;
    EXPECT_EQ(f.reasons, std::vector<std::string>{kReadWriteOncePod}) << n;
  }
  // Pods whose claims are not among the pod's ReadWriteOncePod claims change nothing.
  const FakePod unrelated =
      pod_with(Json::array({claim("claim-rwop"), claim("claim-rwo", "x")}), "unrelated");
  ASSERT_EQ(plugin_->remove_pod(state, pod, unrelated, "node-2").code, Code::Success);
  EXPECT_EQ(plugin_->filter(state, pod, "node-1").code, Code::Unschedulable);
  ASSERT_EQ(plugin_->remove_pod(state, pod, nominated, "node-2").code, Code::Success);
  EXPECT_EQ(plugin_->filter(state, pod, "node-1").code, Code::Success);
  // Upstream compares claim names only: a pod of another namespace with a claim of that name
  // counts too.
  const FakePod other_namespace =
      pod_with(Json::array({claim("claim-rwop-2")}), "other", "ns1").node_name("node-1");
  ASSERT_EQ(plugin_->add_pod(state, pod, other_namespace, "node-1").code, Code::Success);
  EXPECT_EQ(plugin_->filter(state, pod, "node-1").code, Code::Unschedulable);
}

TEST_F(VolumeRestrictionsTest, WithoutPreFilterStateFilterAndTheExtensionsAreErrors) {
  host_->add_node(FakeNode("node-1").pod(pod_with(Json::array({gce("foo")}), "existing")));
  FakeCycleState empty;
  const FakePod plain = pod_with(Json::array({claim("claim-rwo")}));
  const HookResult f = plugin_->filter(empty, plain, "node-1");
  EXPECT_EQ(f.code, Code::Error);
  EXPECT_EQ(f.reasons, std::vector<std::string>{kNoState});
  // The disk check comes first.
  const HookResult disk = plugin_->filter(empty, pod_with(Json::array({gce("foo")})), "node-1");
  EXPECT_EQ(disk.code, Code::Unschedulable);
  EXPECT_EQ(disk.reasons, std::vector<std::string>{kDisk});
  for (const HookResult& r : {plugin_->add_pod(empty, plain, FakePod("other"), "node-1"),
                              plugin_->remove_pod(empty, plain, FakePod("other"), "node-1")}) {
    EXPECT_EQ(r.code, Code::Error);
    EXPECT_EQ(r.reasons, std::vector<std::string>{kNoState});
  }
}

TEST_F(VolumeRestrictionsTest, ADiskConflictIsReportedBeforeAReadWriteOncePodOne) {
  host_->add_node(
      FakeNode("node-1").pod(pod_with(Json::array({claim("claim-rwop"), gce("foo")}), "holder")));
  const FakePod pod = pod_with(Json::array({claim("claim-rwop"), gce("foo")}));
  FakeCycleState state;
  ASSERT_EQ(plugin_->pre_filter(state, pod).code, Code::Success);
  EXPECT_EQ(plugin_->filter(state, pod, "node-1").reasons, std::vector<std::string>{kDisk});
}

// ---- EnqueueExtensions -----------------------------------------------------------------------

TEST_F(VolumeRestrictionsTest, RegistersUpstreamsEvents) {
  EXPECT_EQ(plugin_->events(), (Registrations{{"Pod", SCHEDHOST_ACTION_DELETE},
                                              {"Node", SCHEDHOST_ACTION_ADD},
                                              {kPVC, SCHEDHOST_ACTION_ADD}}));
}

TEST_F(VolumeRestrictionsTest, QueueingHints) {
  constexpr std::int32_t kQueue = SCHEDHOST_QUEUE;
  constexpr std::int32_t kSkip = SCHEDHOST_QUEUE_SKIP;
  using E = FakeClusterEvent;
  struct HintCase {
    const char* name;
    FakePod pod;
    FakeClusterEvent event;
    std::int32_t expected;
  };
  const FakePod with_claim = pod_with(Json::array({claim("claim-1")}));
  const FakePod with_disk = pod_with(Json::array({gce("foo")}));
  const auto deleted = [](const Json& volumes, const std::string& ns = "default") {
    return E::assigned_pod_delete(pod_with(volumes, "deleted", ns).node_name("node-1"));
  };
  const std::vector<HintCase> cases = {
      // isSchedulableAfterPodDeleted
      {"pod with the same claim deleted", with_claim, deleted(Json::array({claim("claim-1")})),
       kQueue},
      {"pod with another claim deleted", with_claim, deleted(Json::array({claim("claim-2")})),
       kSkip},
      {"pod of another namespace with the same claim deleted", with_claim,
       deleted(Json::array({claim("claim-1")}), "ns1"), kSkip},
      {"pod with the conflicting disk deleted", with_disk, deleted(Json::array({gce("foo")})),
       kQueue},
      {"pod of another namespace with the conflicting disk deleted", with_disk,
       deleted(Json::array({gce("foo")}), "ns1"), kSkip},
      {"pod with the disk read-only on both sides deleted",
       pod_with(Json::array({gce("foo", true)})), deleted(Json::array({gce("foo", true)})), kSkip},
      {"pod with another disk deleted", with_disk, deleted(Json::array({gce("bar")})), kSkip},
      {"pod without volumes deleted", with_claim, deleted(Json::array()), kSkip},
      // isSchedulableAfterPersistentVolumeClaimAdded
      {"the pod's claim added", with_claim,
       E::object_event(kPVC, SCHEDHOST_ACTION_ADD, nullptr, pvc("claim-1", {"ReadWriteOncePod"})),
       kQueue},
      {"another claim added", with_claim,
       E::object_event(kPVC, SCHEDHOST_ACTION_ADD, nullptr, pvc("claim-2", {"ReadWriteOncePod"})),
       kSkip},
      {"a claim of that name in another namespace added", with_claim,
       E::object_event(kPVC, SCHEDHOST_ACTION_ADD, nullptr,
                       pvc("claim-1", {"ReadWriteOncePod"}, "ns1")),
       kSkip},
      // Node add has no hint.
      {"node added", with_claim, E::node_add(FakeNode("n")), kQueue},
  };
  for (const HintCase& c : cases) {
    EXPECT_EQ(plugin_->queueing_hint(c.pod, c.event).answer, c.expected) << c.name;
  }
}

// ---- SignPod -------------------------------------------------------------------------------

TEST_F(VolumeRestrictionsTest, SignsTheNonSyntheticVolumeSourcesAsVolumeZoneDoes) {
  const Json volumes = Json::array({claim("claim-1"),
                                    gce("foo"),
                                    {{"name", "cfg"}, {"configMap", {{"name", "settings"}}}},
                                    {{"name", "tok"}, {"secret", {{"secretName", "t"}}}}});
  const FakePod pod = pod_with(volumes);
  const HookResult mine = plugin_->sign_pod(pod);
  EXPECT_EQ(mine.code, Code::Success);
  EXPECT_EQ(mine.signature,
            (std::map<std::string, std::string>{
                {"v1.Pod.Spec.Volumes.NonSyntheticSources()",
                 R"(["{\"gcePersistentDisk\":{\"pdName\":\"foo\",\"readOnly\":false}}",)"
                 R"("{\"persistentVolumeClaim\":{\"claimName\":\"claim-1\"}}"])"}}));
  // The same fragment as VolumeZone's, so a profile with both signs the volumes once.
  FakeHost zone_host(FakeHost::open_library(builtin_plugin_dir() + "/volume_zone.so"));
  FakePlugin zone = zone_host.create("VolumeZone");
  EXPECT_EQ(zone.sign_pod(pod).signature, mine.signature);
}

}  // namespace
}  // namespace schedhost::testing
