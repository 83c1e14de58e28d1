// NodeVolumeLimits' EnqueueExtensions, the built .so on the SDK's fake host: v1.35.4's
// EventsToRegister (CSINode add and update, Pod delete, PVC add; its VolumeAttachment delete is
// left out, schedhost having no such kind) and the cases of upstream's TestCSILimitsQHint,
// TestCSILimitsAddedPVCQHint and TestCSILimitsAfterCSINodeUpdatedQHint.
#include <gtest/gtest.h>
#include <schedhost/testing.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "volume_limits_fixture.hpp"

namespace schedhost::testing::volume_limits {
namespace {

constexpr std::int32_t kQueue = SCHEDHOST_QUEUE;
constexpr std::int32_t kSkip = SCHEDHOST_QUEUE_SKIP;

struct HintCase {
  const char* name;
  FakePod pod;
  FakeClusterEvent event;
  std::int32_t want;
};

class NodeVolumeLimitsHints : public ::testing::Test {
 protected:
  void expect(const std::vector<HintCase>& cases) {
    for (const HintCase& c : cases) {
      const HintResult r = plugin_.queueing_hint(c.pod, c.event);
      EXPECT_EQ(r.answer, c.want) << c.name << ": " << r;
      EXPECT_TRUE(r.reasons.empty()) << c.name << ": " << r;
    }
  }
  FakeHost host_{FakeHost::open_library(library_path())};
  FakePlugin plugin_ = host_.create("NodeVolumeLimits");
};

TEST_F(NodeVolumeLimitsHints, RegistersV135Events) {
  EXPECT_EQ(plugin_.events(),
            (std::vector<EventRegistration>{
                {"storage.k8s.io/CSINode", SCHEDHOST_ACTION_ADD | SCHEDHOST_ACTION_ANY_UPDATE},
                {"Pod", SCHEDHOST_ACTION_DELETE},
                {"PersistentVolumeClaim", SCHEDHOST_ACTION_ADD}}));
}

Json drivers_node(std::vector<std::pair<std::string, std::optional<std::int64_t>>> drivers) {
  return csi_node("test-node", drivers);
}

FakeClusterEvent csi_node_update(const Json& old_node, const Json& new_node) {
  return FakeClusterEvent::object_event("storage.k8s.io/CSINode", SCHEDHOST_ACTION_ANY_UPDATE,
                                        old_node, new_node);
}

// A CSINode added always queues; TestCSILimitsAfterCSINodeUpdatedQHint for updates.
TEST_F(NodeVolumeLimitsHints, CSINodeAddAndUpdate) {
  const FakePod pod = pvc_pod("test-pod", {"csi-ebs.csi.aws.com-0"});
  const Json one = drivers_node({{kEbsDriver, 1}});
  const Json two = drivers_node({{kEbsDriver, 2}});
  expect({
      {"CSINode added", pod,
       FakeClusterEvent::object_event("storage.k8s.io/CSINode", SCHEDHOST_ACTION_ADD, nullptr, one),
       kQueue},
      {"limit raised, queue", pod, csi_node_update(one, two), kQueue},
      {"limit decreased, skip queueing", pod, csi_node_update(two, one), kSkip},
      {"limit unchanged, skip queueing", pod, csi_node_update(one, one), kSkip},
      // Beyond upstream's table: a driver new to the CSINode counts from 0.
      {"new driver with a count", pod,
       csi_node_update(one, drivers_node({{kEbsDriver, 1}, {kGceDriver, 1}})), kQueue},
      {"new driver without a count", pod,
       csi_node_update(one, drivers_node({{kEbsDriver, 1}, {kGceDriver, std::nullopt}})), kSkip},
      {"count set where there was none", pod,
       csi_node_update(drivers_node({{kEbsDriver, std::nullopt}}), one), kQueue},
      {"driver removed", pod,
       csi_node_update(drivers_node({{kEbsDriver, 1}, {kGceDriver, 3}}), one), kSkip},
  });
}

// TestCSILimitsQHint (isSchedulableAfterPodDeleted).
TEST_F(NodeVolumeLimitsHints, PodDeleted) {
  const FakePod pod = pvc_pod("pending", {"csi-ebs.csi.aws.com-2"});
  const FakePod on_node = FakePod("deleted").node_name(kNode);
  const auto deleted = [](FakePod p) {
    return FakeClusterEvent::assigned_pod_delete(std::move(p));
  };
  expect({
      {"return a Queue when a deleted pod has a PVC", pod,
       deleted(FakePod(on_node).json("/spec/volumes", Json::array({pvc_volume("placeholder")}))),
       kQueue},
      {"return a Queue when a deleted pod has a inline migratable volume", pod,
       deleted(FakePod(on_node).json(
           "/spec/volumes",
           Json::array({inline_volume("ebs", "awsElasticBlockStore", Json::object())}))),
       kQueue},
      {"return a QueueSkip when a deleted pod doesn't have any volume", pod, deleted(on_node),
       kSkip},
      {"return a QueueSkip when a deleted pod is not scheduled.", pod,
       deleted(pvc_pod("deleted", {"csi-ebs.csi.aws.com-0"})), kSkip},
      // v1.35: a pod only nominated to a node counts as placed.
      {"a deleted pod nominated to a node, with a PVC", pod,
       deleted(pvc_pod("deleted", {"csi-ebs.csi.aws.com-0"}).nominated_node_name(kNode)), kQueue},
      {"a deleted pod with an ephemeral volume", pod,
       deleted(FakePod(on_node).json("/spec/volumes", Json::array({ephemeral_volume("e")}))),
       kQueue},
      {"a deleted pod with only a configMap and a secret", pod,
       deleted(FakePod(on_node).json("/spec/volumes",
                                     Json::array({config_map_volume(), secret_volume()}))),
       kSkip},
  });
}

Json claim(const std::string& ns, const std::string& name) {
  return pvc(ns, name, Json::object());
}

FakeClusterEvent pvc_added(const Json& pvc) {
  return FakeClusterEvent::object_event("PersistentVolumeClaim", SCHEDHOST_ACTION_ADD, nullptr,
                                        pvc);
}

// TestCSILimitsAddedPVCQHint (isSchedulableAfterPVCAdded).
TEST_F(NodeVolumeLimitsHints, PVCAdded) {
  expect({
      {"a pod isn't in the same namespace as an added PVC", pod_with("p", {}, "ns1"),
       pvc_added(claim("ns2", "pvc")), kSkip},
      {"a pod is in the same namespace as an added PVC", pod_with("p", {pvc_volume("pvc1")}, "ns1"),
       pvc_added(claim("ns1", "pvc1")), kQueue},
      {"a pod has an ephemeral volume related to an added PVC",
       pod_with("pod1", {ephemeral_volume("ephemeral")}, "ns1"),
       pvc_added(claim("ns1", "pod1-ephemeral")), kQueue},
      {"a pod doesn't have the same PVC as an added PVC",
       pod_with("p", {pvc_volume("pvc1")}, "ns1"), pvc_added(claim("ns1", "pvc2")), kSkip},
      {"a pod doesn't have any PVC attached", pod_with("p", {}, "ns1"),
       pvc_added(claim("ns1", "pvc2")), kSkip},
      // The claim of the right name in another namespace does not help.
      {"same name, another namespace", pod_with("p", {pvc_volume("pvc1")}, "ns1"),
       pvc_added(claim("ns2", "pvc1")), kSkip},
  });
}

}  // namespace
}  // namespace schedhost::testing::volume_limits
