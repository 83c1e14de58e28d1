// VolumeZone end to end: `schedhost run -o json` on a cluster file with nodes in two zones,
// zonal PersistentVolumes bound to claims (spec.volumeName), and pods mounting the claims, with
// upstream's default profile, which has VolumeZone.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <string>

#include "support/cluster_run.hpp"
#include "support/fixtures.hpp"

namespace schedhost {
namespace {

using Json = nlohmann::json;

std::string node(const std::string& name, const std::string& zone_labels) {
  return "apiVersion: v1\nkind: Node\nmetadata:\n  name: " + name +
         "\n  labels: {kubernetes.io/hostname: " + name + zone_labels +
         "}\nstatus:\n  allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}\n---\n";
}

std::string pv(const std::string& name, const std::string& labels) {
  return "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: " + name +
         ", labels: " + labels +
         "}\nspec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], "
         "gcePersistentDisk: {pdName: " +
         name + "}}\n---\n";
}

// A claim in "default"; volume_name empty leaves it unbound (of class storage_class).
std::string pvc(const std::string& name, const std::string& volume_name,
                const std::string& storage_class = "") {
  std::string spec = "{accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}";
  if (!volume_name.empty()) spec += ", volumeName: " + volume_name;
  if (!storage_class.empty()) spec += ", storageClassName: " + storage_class;
  // A bound claim carries the PV controller's pv.kubernetes.io/bind-completed, as a real one.
  const std::string bound =
      volume_name.empty() ? "" : ", annotations: {pv.kubernetes.io/bind-completed: \"yes\"}";
  return "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: " + name +
         ", namespace: default" + bound + "}\nspec: " + spec + "}\n---\n";
}

std::string pod(const std::string& name, const std::string& claim) {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
         ", namespace: default}\nspec:\n  containers: [{name: c, image: nginx, resources: "
         "{requests: {cpu: 100m}}}]\n  volumes: [{name: data, persistentVolumeClaim: {claimName: " +
         claim + "}}]\n---\n";
}

std::string storage_class(const std::string& name, const std::string& mode) {
  return "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: " + name +
         "}\nprovisioner: example.com/disk\nvolumeBindingMode: " + mode + "\n---\n";
}

std::string message_of_no_fit(const std::string& reason) {
  return "0/3 nodes are available: " + reason +
         ". no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not "
         "helpful for scheduling.";
}

// A PreFilter's UnschedulableAndUnresolvable stops the later PreFilters (upstream v1.35), so
// DynamicResources' PostFilter finds no state of its own and says "not found", as upstream's.
std::string message_of_prefilter_rejection(const std::string& reason) {
  return "0/3 nodes are available: " + reason + ". not found";
}

TEST(VolumeZoneRun, PodsLandInTheZonesOfTheirVolumes) {
  testing::ScratchDir dir;
  const std::string ga = ", topology.kubernetes.io/region: r1, topology.kubernetes.io/zone: ";
  std::string cluster = node("node-a1", ga + "zone-a") + node("node-a2", ga + "zone-a") +
                        node("node-b1", ga + "zone-b");
  cluster += pv("pv-b", "{topology.kubernetes.io/zone: zone-b}") + pvc("data-b", "pv-b");
  // Beta labels on the PV are met by the nodes' GA labels; "__" joins two zones.
  cluster += pv("pv-beta", "{failure-domain.beta.kubernetes.io/zone: zone-x__zone-b}") +
             pvc("data-beta", "pv-beta");
  cluster += pv("pv-c", "{topology.kubernetes.io/zone: zone-c}") + pvc("data-c", "pv-c");
  cluster += pv("pv-east", "{topology.kubernetes.io/region: r2}") + pvc("data-east", "pv-east");
  cluster += pvc("data-later", "", "wait") + storage_class("wait", "WaitForFirstConsumer");
  cluster += pvc("data-now", "", "fast") + storage_class("fast", "Immediate");
  cluster += pvc("data-lost", "pv-gone");
  cluster += pod("db", "data-b") + pod("beta", "data-beta") + pod("lost", "data-c") +
             pod("east", "data-east") + pod("later", "data-later") + pod("now", "data-now") +
             pod("missing", "nope") + pod("gone", "data-lost");
  const std::map<std::string, Json> out = testing::run_cluster(dir, cluster).pods;
  ASSERT_EQ(out.size(), 8u);
  EXPECT_EQ(out.at("default/db").at("result"), "Scheduled");
  EXPECT_EQ(out.at("default/db").at("node"), "node-b1");
  EXPECT_EQ(out.at("default/beta").at("result"), "Scheduled");
  EXPECT_EQ(out.at("default/beta").at("node"), "node-b1");
  // An unbound claim of a WaitForFirstConsumer class is not VolumeZone's to check.
  EXPECT_EQ(out.at("default/later").at("result"), "Scheduled");
  for (const char* p : {"default/lost", "default/east"}) {
    EXPECT_EQ(out.at(p).at("result"), "Unschedulable") << p;
    EXPECT_EQ(out.at(p).at("message"), message_of_no_fit("3 node(s) had no available volume zone"))
        << p;
  }
  EXPECT_EQ(out.at("default/now").at("result"), "Unschedulable");
  // In the default profile VolumeBinding's PreFilter, before VolumeZone's, refuses the unbound
  // claim of an Immediate class first (VolumeZone's own words for it, "PersistentVolume had no
  // name", are in the hook tables).
  EXPECT_EQ(out.at("default/now").at("message"),
            message_of_prefilter_rejection("pod has unbound immediate PersistentVolumeClaims"));
  EXPECT_EQ(out.at("default/missing").at("result"), "Unschedulable");
  EXPECT_EQ(out.at("default/missing").at("message"),
            message_of_prefilter_rejection("persistentvolumeclaim \"nope\" not found"));
  EXPECT_EQ(out.at("default/gone").at("result"), "Unschedulable");
  EXPECT_EQ(out.at("default/gone").at("message"),
            message_of_prefilter_rejection("persistentvolume \"pv-gone\" not found"));
}

// A node without zone labels takes any volume; a zoned node only its own zone's.
TEST(VolumeZoneRun, ANodeWithoutZoneLabelsTakesAnyVolume) {
  testing::ScratchDir dir;
  std::string cluster = node("node-a1", ", topology.kubernetes.io/zone: zone-a") +
                        node("node-a2", ", topology.kubernetes.io/zone: zone-a") + node("bare", "");
  cluster += pv("pv-c", "{topology.kubernetes.io/zone: zone-c}") + pvc("data-c", "pv-c");
  cluster += pod("app", "data-c");
  const std::map<std::string, Json> out = testing::run_cluster(dir, cluster).pods;
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out.at("default/app").at("result"), "Scheduled");
  EXPECT_EQ(out.at("default/app").at("node"), "bare");
}

}  // namespace
}  // namespace schedhost
