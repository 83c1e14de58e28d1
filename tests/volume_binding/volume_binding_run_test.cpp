// VolumeBinding end to end: `schedhost run -o json` on a cluster file with nodes in two zones, a
// StorageClass, zonal PersistentVolumes with node affinity bound to claims (spec.volumeName and
// pv.kubernetes.io/bind-completed), and pods mounting the claims, with upstream's default
// profile, which has VolumeBinding. The built-in plugin directory of the build is the binary's
// own.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <string>

#include "support/cluster_run.hpp"
#include "support/fixtures.hpp"

namespace schedhost {
namespace {

using Json = nlohmann::json;

std::string node_yaml(const std::string& name, const std::string& zone) {
  return "apiVersion: v1\nkind: Node\nmetadata:\n  name: " + name +
         "\n  labels: {kubernetes.io/hostname: " + name + ", topology.kubernetes.io/zone: " + zone +
         "}\nstatus:\n  allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}\n---\n";
}

// A PV of class "local" whose node affinity is the zone.
std::string pv_yaml(const std::string& name, const std::string& zone,
                    const std::string& extra = "") {
  return "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: " + name +
         "}\nspec:\n  capacity: {storage: 10Gi}\n  accessModes: [ReadWriteOnce]\n"
         "  storageClassName: local\n  csi: {driver: disk.csi.example.com, volumeHandle: " +
         name +
         "}\n  nodeAffinity:\n    required:\n      nodeSelectorTerms:\n"
         "        - matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [" +
         zone + "]}]\n" + extra + "---\n";
}

// A claim in "default" of class storage_class; bound_to set: bound to that PV.
std::string pvc_yaml(const std::string& name, const std::string& storage_class,
                     const std::string& bound_to = "") {
  std::string meta = "{name: " + name + ", namespace: default";
  std::string spec =
      "{accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}, "
      "storageClassName: " +
      storage_class;
  if (!bound_to.empty()) {
    meta += ", annotations: {pv.kubernetes.io/bind-completed: \"yes\"}";
    spec += ", volumeName: " + bound_to;
  }
  return "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: " + meta + "}\nspec: " + spec +
         "}\n---\n";
}

std::string pod_yaml(const std::string& name, const std::string& claim) {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
         ", namespace: default}\nspec:\n  containers: [{name: c, image: nginx, resources: "
         "{requests: {cpu: 100m}}}]\n  volumes: [{name: data, persistentVolumeClaim: {claimName: " +
         claim + "}}]\n---\n";
}

std::string storage_class_yaml(const std::string& name, const std::string& mode,
                               const std::string& provisioner) {
  return "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: " + name +
         "}\nprovisioner: " + provisioner + "\nvolumeBindingMode: " + mode + "\n---\n";
}

// A PreFilter rejection: the later PreFilters do not run, so DynamicResources' PostFilter finds
// no state of its own and upstream's message ends with its "not found".
std::string rejected_at_pre_filter(const std::string& reason) {
  return "0/3 nodes are available: " + reason + ". not found";
}

// Every node rejected by Filter, UnschedulableAndUnresolvable.
std::string no_fit(const std::string& reason) {
  return "0/3 nodes are available: " + reason +
         ". no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not "
         "helpful for scheduling.";
}

std::string zoned_cluster() {
  std::string c = node_yaml("node-a1", "zone-a") + node_yaml("node-a2", "zone-a") +
                  node_yaml("node-b1", "zone-b");
  c += storage_class_yaml("local", "WaitForFirstConsumer", "kubernetes.io/no-provisioner");
  c += storage_class_yaml("now", "Immediate", "disk.csi.example.com");
  c += pv_yaml("pv-b", "zone-b") + pvc_yaml("data-b", "local", "pv-b");
  c += pv_yaml("pv-c", "zone-c") + pvc_yaml("data-c", "local", "pv-c");
  c += pvc_yaml("data-later", "local");  // WaitForFirstConsumer, and no PV of its class is free
  c += pvc_yaml("data-now", "now");      // Immediate, unbound
  c += pvc_yaml("data-gone", "local", "pv-gone");
  c += pod_yaml("db", "data-b") + pod_yaml("far", "data-c") + pod_yaml("later", "data-later") +
       pod_yaml("now", "data-now") + pod_yaml("gone", "data-gone") + pod_yaml("missing", "nope");
  return c;
}

TEST(VolumeBindingRun, PodsLandWhereTheirVolumesAreAndTheOthersSayWhy) {
  testing::ScratchDir dir;
  const testing::ClusterRun r = testing::run_cluster(dir, zoned_cluster());
  ASSERT_EQ(r.pods.size(), 6u) << r.process.out;
  EXPECT_EQ(r.pods.at("default/db").at("result"), "Scheduled");
  EXPECT_EQ(r.pods.at("default/db").at("node"), "node-b1");
  EXPECT_EQ(r.pods.at("default/far").at("result"), "Unschedulable");
  EXPECT_EQ(r.pods.at("default/far").at("message"),
            no_fit("3 node(s) didn't match PersistentVolume's node affinity"));
  EXPECT_EQ(r.pods.at("default/later").at("result"), "Unschedulable");
  EXPECT_EQ(r.pods.at("default/later").at("message"),
            no_fit("3 node(s) didn't find available persistent volumes to bind"));
  EXPECT_EQ(r.pods.at("default/now").at("result"), "Unschedulable");
  EXPECT_EQ(r.pods.at("default/now").at("message"),
            rejected_at_pre_filter("pod has unbound immediate PersistentVolumeClaims"));
  EXPECT_EQ(r.pods.at("default/gone").at("result"), "Unschedulable");
  // VolumeZone's PreFilter, after VolumeBinding's, looks the PV up and stops the cycle there,
  // before VolumeBinding's Filter would say "pvc(s) bound to non-existent pv(s)".
  EXPECT_EQ(r.pods.at("default/gone").at("message"),
            rejected_at_pre_filter("persistentvolume \"pv-gone\" not found"));
  EXPECT_EQ(r.pods.at("default/missing").at("result"), "Unschedulable");
  EXPECT_EQ(r.pods.at("default/missing").at("message"),
            rejected_at_pre_filter("persistentvolumeclaim \"nope\" not found"));
}

// A claim that a free PV could take: the first pod gets the PV (Filter, Reserve; run has no API
// server, so PreBind takes the binding as made, as the PV controller would make it), and the
// second pod's claim finds none left (the PV stays assumed for the first claim).
TEST(VolumeBindingRun, AFreeVolumeGoesToTheFirstClaimThatNeedsIt) {
  testing::ScratchDir dir;
  std::string c = node_yaml("node-a1", "zone-a") + node_yaml("node-a2", "zone-a") +
                  node_yaml("node-b1", "zone-b");
  c += storage_class_yaml("local", "WaitForFirstConsumer", "kubernetes.io/no-provisioner");
  c += pv_yaml("pv-free", "zone-b", "status: {phase: Available}\n");
  c += pvc_yaml("data-1", "local") + pod_yaml("one", "data-1");
  c += pvc_yaml("data-2", "local") + pod_yaml("two", "data-2");
  const testing::ClusterRun r = testing::run_cluster(dir, c);
  ASSERT_EQ(r.pods.size(), 2u) << r.process.out;
  const Json& one = r.pods.at("default/one");
  EXPECT_EQ(one.at("result"), "Scheduled") << one.dump();
  EXPECT_EQ(one.at("node"), "node-b1") << one.dump();
  const Json& two = r.pods.at("default/two");
  EXPECT_EQ(two.at("result"), "Unschedulable") << two.dump();
  EXPECT_EQ(two.at("message"),
            "0/3 nodes are available: 3 node(s) didn't find available persistent volumes to "
            "bind. no new claims to deallocate, preemption: 0/3 nodes are available: 3 "
            "Preemption is not helpful for scheduling.")
      << two.dump();
}

}  // namespace
}  // namespace schedhost
