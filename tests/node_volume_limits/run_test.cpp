// NodeVolumeLimits end to end: `schedhost run -o json` on a cluster file with CSINodes (limit 1
// on node-a, 2 on node-b), a StorageClass, bound PVs and PVCs, and pods using them, with
// upstream's default profile, which has the plugin.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <map>
#include <string>

#include "support/cluster_run.hpp"
#include "support/fixtures.hpp"

namespace schedhost::testing {
namespace {

using Json = nlohmann::json;

std::string node(const std::string& name, int limit) {
  return "apiVersion: v1\nkind: Node\nmetadata:\n  name: " + name +
         "\n  labels: {kubernetes.io/hostname: " + name +
         "}\nstatus:\n  allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}\n---\n"
         "apiVersion: storage.k8s.io/v1\nkind: CSINode\nmetadata: {name: " +
         name + "}\nspec:\n  drivers:\n  - name: ebs.csi.aws.com\n    nodeID: i-" + name +
         "\n    allocatable: {count: " + std::to_string(limit) + "}\n---\n";
}

// PV pv-<i> (CSI handle vol-<i>) bound to PVC data-<i>.
std::string bound_volume(int i) {
  const std::string k = std::to_string(i);
  return "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv-" + k +
         "}\nspec:\n  capacity: {storage: 1Gi}\n  accessModes: [ReadWriteMany]\n"
         "  storageClassName: ebs\n  claimRef: {namespace: default, name: data-" +
         k + "}\n  csi: {driver: ebs.csi.aws.com, volumeHandle: vol-" + k +
         "}\nstatus: {phase: Bound}\n---\n"
         "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data-" +
         k +
         ", namespace: default, annotations: {pv.kubernetes.io/bind-completed: \"yes\"}}\nspec:\n  "
         "accessModes: [ReadWriteMany]\n  storageClassName: ebs\n"
         "  volumeName: pv-" +
         k + "\n  resources: {requests: {storage: 1Gi}}\nstatus: {phase: Bound}\n---\n";
}

std::string pod(const std::string& name, const std::string& claim, const std::string& extra) {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: default}\nspec:\n" +
         extra +
         "  containers: [{name: c, image: nginx}]\n  volumes:\n  - name: data\n"
         "    persistentVolumeClaim: {claimName: " +
         claim + "}\n---\n";
}

// db-0 already runs on node-b with data-1. web-1 is pinned to node-a and takes its one slot;
// web-2 then fits only node-b (1 + 1 <= 2); web-3 fits nowhere (node-a 1 + 1 > 1, node-b
// 2 + 1 > 2); web-4 reuses data-1, already attached to node-b, so it counts nothing there.
TEST(NodeVolumeLimitsRun, PlacesPodsWithinEachNodesCSILimit) {
  ScratchDir dir;
  std::string cluster = node("node-a", 1) + node("node-b", 2) +
                        "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: ebs}\n"
                        "provisioner: ebs.csi.aws.com\nvolumeBindingMode: WaitForFirstConsumer\n"
                        "---\n";
  for (int i = 1; i <= 4; ++i)
    cluster += bound_volume(i);
  cluster += pod("db-0", "data-1", "  nodeName: node-b\n");
  cluster += pod("web-1", "data-2", "  nodeSelector: {kubernetes.io/hostname: node-a}\n");
  cluster += pod("web-2", "data-3", "");
  cluster += pod("web-3", "data-4", "");
  cluster += pod("web-4", "data-1", "");
  const ClusterRun r = run_cluster(dir, cluster);
  ASSERT_EQ(r.process.exit_code, 0);
  EXPECT_EQ(r.process.err, "");  // every object of the file is read: no warning
  std::map<std::string, std::string> placed;
  for (const auto& [name, p] : r.pods) {  // by name: web-3 is the one left
    if (p.at("result") == "Scheduled") {
      placed[p.at("pod").get<std::string>()] = p.at("node").get<std::string>();
      continue;
    }
    EXPECT_EQ(p.at("pod"), "default/web-3") << p.dump();
    EXPECT_EQ(p.at("result"), "Unschedulable") << p.dump();
    EXPECT_EQ(p.at("message"),
              "0/2 nodes are available: 2 node(s) exceed max volume count. no new claims to "
              "deallocate, preemption: 0/2 nodes are available: 2 No preemption victims found "
              "for incoming pod.");
  }
  EXPECT_EQ(placed, (std::map<std::string, std::string>{{"default/web-1", "node-a"},
                                                        {"default/web-2", "node-b"},
                                                        {"default/web-4", "node-b"}}));
  const Json out = Json::parse(r.process.out);
  EXPECT_EQ(out.at("summary").at("scheduled"), 3);
  EXPECT_EQ(out.at("summary").at("unschedulable"), 1);
}

}  // namespace
}  // namespace schedhost::testing
