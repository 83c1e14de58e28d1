// VolumeRestrictions end to end: `schedhost run -o json` on cluster files with a
// ReadWriteOncePod claim bound (spec.volumeName) to a zonal PersistentVolume and GCE PD disks,
// with upstream's default profile, which has VolumeRestrictions and VolumeZone. Preemption's dry
// run goes through RemovePod.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "support/cluster_run.hpp"
#include "support/fixtures.hpp"

namespace schedhost {
namespace {

using Json = nlohmann::json;

constexpr const char* kReadWriteOncePod =
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already "
    "in-use by another pod";

std::string node(const std::string& name, const std::string& zone) {
  std::string labels = "{kubernetes.io/hostname: " + name;
  if (!zone.empty()) labels += ", topology.kubernetes.io/zone: " + zone;
  return "apiVersion: v1\nkind: Node\nmetadata:\n  name: " + name + "\n  labels: " + labels +
         "}\nstatus:\n  allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}\n---\n";
}

std::string pv(const std::string& name, const std::string& zone, const std::string& mode) {
  return "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: " + name +
         ", labels: {topology.kubernetes.io/zone: " + zone +
         "}}\nspec: {capacity: {storage: 1Gi}, accessModes: [" + mode +
         "], csi: {driver: example.com/disk, volumeHandle: " + name + "}}\n---\n";
}

std::string pvc(const std::string& name, const std::string& volume_name, const std::string& mode) {
  return "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: " + name +
         ", namespace: default, annotations: {pv.kubernetes.io/bind-completed: \"yes\"}}"
         "\nspec: {accessModes: [" +
         mode + "], resources: {requests: {storage: 1Gi}}, volumeName: " + volume_name + "}\n---\n";
}

// A pod in "default"; on_node empty means pending. volumes and extra_spec are flow YAML.
std::string pod(const std::string& name, const std::string& volumes, int priority,
                const std::string& on_node = "", const std::string& extra_spec = "") {
  std::string spec = "{priority: " + std::to_string(priority) +
                     ", containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]" +
                     ", volumes: " + volumes;
  if (!on_node.empty()) spec += ", nodeName: " + on_node;
  if (!extra_spec.empty()) spec += ", " + extra_spec;
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
         ", namespace: default}\nspec: " + spec + "}\n---\n";
}

std::string claim_volume(const std::string& claim) {
  return "[{name: data, persistentVolumeClaim: {claimName: " + claim + "}}]";
}

std::string gce_volume(const std::string& pd) {
  return "[{name: disk, gcePersistentDisk: {pdName: " + pd + "}}]";
}

// holder mounts the ReadWriteOncePod claim "data" (its PV is in zone-a) on node-a1. urgent
// (priority 100) wants it too: only evicting holder makes room, and only on a zone-a node; the
// dry run's RemovePod frees the claim there, so urgent preempts holder and lands on node-a1.
// second (priority 0) then finds the claim held by urgent, which it cannot preempt. solo's
// ReadWriteOncePod claim is free: VolumeZone alone puts it in zone-b.
TEST(VolumeRestrictionsRun, AReadWriteOncePodClaimGoesToOnePodAtATime) {
  testing::ScratchDir dir;
  std::string cluster =
      node("node-a1", "zone-a") + node("node-a2", "zone-a") + node("node-b1", "zone-b");
  cluster +=
      pv("pv-data", "zone-a", "ReadWriteOncePod") + pvc("data", "pv-data", "ReadWriteOncePod");
  cluster +=
      pv("pv-solo", "zone-b", "ReadWriteOncePod") + pvc("solo", "pv-solo", "ReadWriteOncePod");
  cluster += pod("holder", claim_volume("data"), 0, "node-a1");
  cluster += pod("second", claim_volume("data"), 0) + pod("urgent", claim_volume("data"), 100) +
             pod("solo-user", claim_volume("solo"), 0);
  const std::map<std::string, Json> out = testing::run_cluster(dir, cluster).pods;
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out.at("default/holder").at("result"), "Preempted");
  EXPECT_EQ(out.at("default/urgent").at("result"), "Scheduled");
  EXPECT_EQ(out.at("default/urgent").at("node"), "node-a1");
  EXPECT_EQ(out.at("default/urgent").at("preempted"), Json::array({"default/holder"}));
  EXPECT_EQ(out.at("default/second").at("result"), "Unschedulable");
  EXPECT_EQ(out.at("default/second").at("message"),
            std::string("0/3 nodes are available: 3 ") + kReadWriteOncePod +
                ". no new claims to deallocate, preemption: 0/3 nodes are available: 3 No "
                "preemption victims found for incoming pod.");
  EXPECT_EQ(out.at("default/solo-user").at("result"), "Scheduled");
  EXPECT_EQ(out.at("default/solo-user").at("node"), "node-b1");
}

// A GCE PD mounted read-write on node-1 keeps another writer off node-1; a writer pinned there
// cannot land.
TEST(VolumeRestrictionsRun, ADiskMountedReadWriteKeepsOtherWritersOffItsNode) {
  testing::ScratchDir dir;
  std::string cluster = node("node-1", "") + node("node-2", "");
  cluster += pod("disk-holder", gce_volume("disk-1"), 0, "node-1");
  cluster +=
      pod("writer", gce_volume("disk-1"), 0) +
      pod("pinned", gce_volume("disk-1"), 0, "", "nodeSelector: {kubernetes.io/hostname: node-1}");
  const std::map<std::string, Json> out = testing::run_cluster(dir, cluster).pods;
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out.at("default/writer").at("result"), "Scheduled");
  EXPECT_EQ(out.at("default/writer").at("node"), "node-2");
  EXPECT_EQ(out.at("default/pinned").at("result"), "Unschedulable");
  EXPECT_EQ(out.at("default/pinned").at("message"),
            "0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 "
            "node(s) had no available disk. no new claims to deallocate, preemption: 0/2 nodes "
            "are available: 1 No preemption victims found for incoming pod, 1 Preemption is not "
            "helpful for scheduling.");
}

}  // namespace
}  // namespace schedhost
