// The live cluster cache on its own: informer events in, the snapshot the cycle reads out.
#include "live/live_cluster.hpp"

#include <gtest/gtest.h>

#include "kube/informer.hpp"

namespace schedhost::live {
namespace {

using nlohmann::json;

kube::Object node(const std::string& name, const std::string& cpu = "4",
                  const std::string& zone = "a", const std::string& rv = "1") {
  return std::make_shared<const json>(json{
      {"apiVersion", "v1"},
      {"kind", "Node"},
      {"metadata", {{"name", name}, {"resourceVersion", rv}, {"labels", {{"zone", zone}}}}},
      {"status",
       {{"allocatable", {{"cpu", cpu}, {"memory", "8Gi"}, {"pods", "110"}}},
        {"conditions", json::array({{{"type", "Ready"},
                                     {"status", "True"},
                                     {"lastHeartbeatTime", "2026-01-01T00:00:0" + rv + "Z"}}})}}}});
}

kube::Object pod(const std::string& name, const std::string& node_name, const std::string& rv = "1",
                 const std::string& cpu = "1") {
  json spec = {{"containers", json::array({{{"name", "c"},
                                            {"image", "pause"},
                                            {"resources", {{"requests", {{"cpu", cpu}}}}}}})}};
  if (!node_name.empty()) spec["nodeName"] = node_name;
  return std::make_shared<const json>(json{
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata",
       {{"name", name}, {"namespace", "default"}, {"uid", "uid-" + name}, {"resourceVersion", rv}}},
      {"spec", spec}});
}

std::int64_t requested_cpu(LiveCluster& c, const std::string& node_name) {
  return c.snapshot().find(node_name)->requested().get_or_zero("cpu");
}

TEST(LiveCluster, NodesAndAssignedPodsReachTheSnapshotWhenApplied) {
  LiveCluster c;
  auto nodes = c.node_handler();
  auto pods = c.assigned_pod_handler();
  nodes.on_add(node("n1"), true);
  pods.on_add(pod("p1", "n1"), true);
  EXPECT_EQ(c.snapshot().size(), 0u);  // nothing before the scheduling thread applies
  const ClusterChanges changes = c.apply_pending();
  EXPECT_EQ(changes.nodes, 1);
  EXPECT_EQ(changes.pods, 1);
  ASSERT_EQ(c.snapshot().size(), 1u);
  EXPECT_EQ(requested_cpu(c, "n1"), 1000);
  pods.on_delete(pod("p1", "n1"), false);
  EXPECT_EQ(c.apply_pending().pods, 1);
  EXPECT_EQ(requested_cpu(c, "n1"), 0);
}

TEST(LiveCluster, TheInformersCopyConfirmsAnAssumedPodWithoutCountingItTwice) {
  LiveCluster c;
  c.node_handler().on_add(node("n1"), true);
  c.apply_pending();
  const cluster::Pod pending(*pod("p1", ""));
  c.snapshot().assume(pending, "n1");
  c.assumed("uid-p1");
  EXPECT_EQ(requested_cpu(c, "n1"), 1000);
  c.assigned_pod_handler().on_add(pod("p1", "n1", "2"), false);
  const ClusterChanges changes = c.apply_pending();
  EXPECT_EQ(changes.pods, 0);  // a confirmation is not a change of the cluster
  EXPECT_EQ(requested_cpu(c, "n1"), 1000);
  EXPECT_FALSE(c.is_assumed("uid-p1"));
  EXPECT_EQ(c.snapshot().find("n1")->pods().size(), 1u);
}

TEST(LiveCluster, TheSnapshotSharesTheInformersTextWhichComesWithoutManagedFields) {
  // One compact text per object in serve, no tree: the informer's store and the snapshot hold
  // the same string.
  json with_fields = *pod("p1", "n1");
  with_fields["metadata"]["managedFields"] = json::array({{{"manager", "kubectl"}}});
  const kube::Object stored = kube::stored_object(std::move(with_fields));
  EXPECT_FALSE((*stored)["metadata"].contains("managedFields"));
  EXPECT_EQ((*stored)["metadata"]["uid"], "uid-p1");  // the rest as it was
  const kube::Object stored_node = kube::stored_object(json(*node("n1")));

  LiveCluster c;
  c.node_handler().on_add(stored_node, true);
  c.assigned_pod_handler().on_add(stored, true);
  c.apply_pending();
  const cluster::NodeInfo* n1 = c.snapshot().find("n1");
  ASSERT_NE(n1, nullptr);
  EXPECT_EQ(n1->node().json_at("")->data(), stored_node.text()->data());
  ASSERT_EQ(n1->pods().size(), 1u);
  EXPECT_EQ(n1->pods()[0]->json_at("")->data(), stored.text()->data());
  EXPECT_EQ(n1->pods()[0]->json_at("/metadata/uid"), "\"uid-p1\"");
  EXPECT_EQ(*n1->pods()[0]->json_tree(), *stored);  // parsed from the text when asked
  EXPECT_EQ(n1->pods()[0]->json_at("/metadata/managedFields"), std::nullopt);
}

TEST(LiveCluster, AnAssumedPodBoundElsewhereMovesToTheNodeTheServerNames) {
  LiveCluster c;
  c.node_handler().on_add(node("n1"), true);
  c.node_handler().on_add(node("n2"), true);
  c.apply_pending();
  c.snapshot().assume(cluster::Pod(*pod("p1", "")), "n1");
  c.assumed("uid-p1");
  c.assigned_pod_handler().on_add(pod("p1", "n2", "2"), false);  // another scheduler won
  c.apply_pending();
  EXPECT_EQ(requested_cpu(c, "n1"), 0);
  EXPECT_EQ(requested_cpu(c, "n2"), 1000);
}

TEST(LiveCluster, AHeartbeatKeepsTheTimelineAndALabelChangeStartsANewOne) {
  LiveCluster c;
  c.node_handler().on_add(node("n1", "4", "a", "1"), true);
  c.apply_pending();
  const std::uint64_t id = c.snapshot().journal().id();
  c.node_handler().on_update(node("n1", "4", "a", "1"), node("n1", "4", "a", "2"));
  EXPECT_EQ(c.apply_pending().nodes, 0);
  EXPECT_EQ(c.snapshot().journal().id(), id);
  c.node_handler().on_update(node("n1", "4", "a", "2"), node("n1", "4", "b", "3"));
  EXPECT_EQ(c.apply_pending().nodes, 1);
  EXPECT_NE(c.snapshot().journal().id(), id);
  EXPECT_EQ(*c.snapshot().find("n1")->node().labels().find("zone"), "b");
}

TEST(LiveCluster, APodOfAnUnknownNodeWaitsForItAndAPodOfADeletedNodeComesBackWithIt) {
  LiveCluster c;
  c.assigned_pod_handler().on_add(pod("early", "n1"), true);
  c.apply_pending();
  EXPECT_EQ(c.snapshot().size(), 0u);
  c.node_handler().on_add(node("n1"), false);
  c.apply_pending();
  EXPECT_EQ(requested_cpu(c, "n1"), 1000);
  c.node_handler().on_delete(node("n1"), false);
  c.apply_pending();
  EXPECT_EQ(c.snapshot().size(), 0u);
  c.node_handler().on_add(node("n1"), false);
  c.apply_pending();
  EXPECT_EQ(requested_cpu(c, "n1"), 1000);
}

TEST(LiveCluster, AnUnconfirmedBindingIsForgottenAfterTheTtl) {
  LiveCluster c;
  c.node_handler().on_add(node("n1"), true);
  c.apply_pending();
  c.snapshot().assume(cluster::Pod(*pod("p1", "")), "n1");
  c.assumed("uid-p1");
  const auto t0 = std::chrono::steady_clock::now();
  c.binding_finished("uid-p1", t0);
  c.apply_pending(t0 + LiveCluster::kAssumedPodTtl - std::chrono::seconds(1));
  EXPECT_EQ(requested_cpu(c, "n1"), 1000);
  EXPECT_EQ(c.apply_pending(t0 + LiveCluster::kAssumedPodTtl + std::chrono::seconds(1)).pods, 1);
  EXPECT_EQ(requested_cpu(c, "n1"), 0);
  EXPECT_FALSE(c.is_assumed("uid-p1"));
}

// The informer's thread builds the typed Node or Pod: what waits for the scheduling thread holds
// no JSON tree (a first list queues thousands), only a node's update keeps the new version's
// tree, for the comparisons with the snapshot's version.
TEST(LiveCluster, WhatWaitsToBeAppliedHoldsNoTreeButANodeUpdates) {
  LiveCluster c;
  const kube::Object n1 = node("n1");
  const kube::Object p1 = pod("p1", "n1");
  c.node_handler().on_add(n1, true);
  c.assigned_pod_handler().on_add(p1, true);
  EXPECT_EQ(n1.tree().use_count(), 1);
  EXPECT_EQ(p1.tree().use_count(), 1);
  EXPECT_EQ(n1.text().use_count(), 2);  // the typed Node keeps the text
  EXPECT_EQ(p1.text().use_count(), 2);
  const kube::Object n1_v2 = node("n1", "8", "a", "2");
  c.node_handler().on_update(n1, n1_v2);
  EXPECT_EQ(n1_v2.tree().use_count(), 2);
  c.apply_pending();
  EXPECT_EQ(n1_v2.tree().use_count(), 1);
  EXPECT_EQ(requested_cpu(c, "n1"), 1000);
  EXPECT_EQ(c.snapshot().find("n1")->allocatable().get_or_zero("cpu"), 8000);
}

// A deleted pod the model refuses still leaves the cache (by uid), with the cache's own copy
// as the event's object.
TEST(LiveCluster, ARefusedDeletedPodStillLeavesTheCache) {
  LiveCluster c;
  c.node_handler().on_add(node("n1"), true);
  c.assigned_pod_handler().on_add(pod("p1", "n1"), true);
  c.apply_pending();
  json bad = *pod("p1", "n1", "2");
  bad["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "lots";
  c.assigned_pod_handler().on_delete(std::make_shared<const json>(bad), false);
  const ClusterChanges changes = c.apply_pending();
  EXPECT_EQ(changes.pods, 1);
  EXPECT_EQ(requested_cpu(c, "n1"), 0);
  ASSERT_EQ(changes.events.size(), 1u);
  ASSERT_NE(changes.events[0].old_pod, nullptr);
  EXPECT_EQ(changes.events[0].old_pod->requests().get_or_zero("cpu"), 1000);
}

TEST(LiveCluster, ABadObjectIsSkippedAndTheRestApplied) {
  LiveCluster c;
  c.node_handler().on_add(
      std::make_shared<const json>(json{{"kind", "Node"},
                                        {"metadata", {{"name", "bad"}}},
                                        {"status", {{"allocatable", {{"cpu", "lots"}}}}}}),
      true);
  c.node_handler().on_add(node("good"), true);
  c.apply_pending();
  EXPECT_EQ(c.snapshot().size(), 1u);
  EXPECT_NE(c.snapshot().find("good"), nullptr);
}

// The other kinds (ABI 1.8): each informer's objects reach the snapshot's lists; the storage
// kinds' changes are upstream's cluster events (with the objects before and after), Services'
// are none; a refused object is skipped.
TEST(LiveCluster, TheOtherKindsReachTheSnapshotAndTheStorageKindsAreEvents) {
  LiveCluster c;
  auto pvs = c.object_handler(*cluster::find_object_kind("PersistentVolume"));
  auto classes = c.object_handler(*cluster::find_object_kind("StorageClass"));
  auto services = c.object_handler(*cluster::find_object_kind("Service"));
  auto pv = [](const std::string& name, const std::string& rv, const std::string& size) {
    return std::make_shared<const json>(
        json{{"metadata", {{"name", name}, {"resourceVersion", rv}}},
             {"spec", {{"capacity", {{"storage", size}}}}}});
  };
  pvs.on_add(pv("pv-b", "1", "1Gi"), true);
  pvs.on_add(pv("pv-a", "2", "2Gi"), true);
  services.on_add(
      std::make_shared<const json>(
          json{{"metadata", {{"name", "web"}, {"namespace", "shop"}, {"resourceVersion", "3"}}},
               {"spec", {{"selector", {{"app", "web"}}}}}}),
      true);
  // A StorageClass without a provisioner is refused (logged), never half applied.
  classes.on_add(std::make_shared<const json>(json{{"metadata", {{"name", "bad"}}}}), true);
  ClusterChanges changes = c.apply_pending();
  EXPECT_EQ(changes.others, 3);
  ASSERT_EQ(changes.events.size(), 2u);  // the two PersistentVolumes; the Service is no event
  EXPECT_EQ(changes.events[0].label, "PersistentVolumeAdd");
  EXPECT_EQ(changes.events[0].resource, "PersistentVolume");
  EXPECT_EQ(changes.events[0].object->name(), "pv-b");
  EXPECT_EQ(changes.events[0].old_object, nullptr);
  const auto listed = c.snapshot().objects("PersistentVolume");
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0]->name(), "pv-a");
  EXPECT_NE(c.snapshot().find_object("Service", "shop", "web"), nullptr);
  EXPECT_TRUE(c.snapshot().objects("storage.k8s.io/StorageClass").empty());

  pvs.on_update(pv("pv-b", "1", "1Gi"), pv("pv-b", "4", "5Gi"));
  pvs.on_update(pv("pv-a", "2", "2Gi"), pv("pv-a", "2", "2Gi"));  // a relist: not a change
  changes = c.apply_pending();
  ASSERT_EQ(changes.events.size(), 1u);
  EXPECT_EQ(changes.events[0].label, "PersistentVolumeUpdate");
  EXPECT_EQ(changes.events[0].actions, SCHEDHOST_ACTION_ANY_UPDATE);
  EXPECT_EQ(changes.events[0].old_object->json_at("/spec/capacity/storage"), "\"1Gi\"");
  EXPECT_EQ(changes.events[0].object->json_at("/spec/capacity/storage"), "\"5Gi\"");
  EXPECT_EQ(c.snapshot().find_object("PersistentVolume", "", "pv-b")->resource_version(), "4");

  pvs.on_delete(pv("pv-b", "4", "5Gi"), false);
  pvs.on_delete(pv("pv-z", "9", "1Gi"), false);  // never seen: nothing to say
  changes = c.apply_pending();
  ASSERT_EQ(changes.events.size(), 1u);
  EXPECT_EQ(changes.events[0].label, "PersistentVolumeDelete");
  EXPECT_EQ(changes.events[0].old_object->name(), "pv-b");
  EXPECT_EQ(c.snapshot().objects("PersistentVolume").size(), 1u);
}

}  // namespace
}  // namespace schedhost::live
