// The other kinds the plugins read (PersistentVolumes, claims, StorageClasses, the CSI objects,
// Services and the workload controllers): loaded from cluster files, each validated with one
// error line naming file:line:col, the object and the fix; the Snapshot's lookups by namespace
// and name; and the per-claim pod counts (upstream's usedPVCSet) as pods come and go.
#include "cluster/api_object.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cluster/cluster_file.hpp"
#include "cluster/object_kinds.hpp"
#include "cluster/pod.hpp"
#include "common/input_error.hpp"
#include "test_yaml.hpp"

namespace schedhost::cluster {
namespace {

using testing::yaml;

std::string error(const std::string& text) {
  try {
    parse_cluster_text(text, "cluster.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::vector<std::string> keys(std::span<const std::shared_ptr<const ApiObject>> objects) {
  std::vector<std::string> out;
  for (const auto& o : objects)
    out.push_back(o->key());
  return out;
}

const char* const kStorage = R"(apiVersion: v1
kind: PersistentVolume
metadata:
  name: pv-b
  labels: {topology.kubernetes.io/zone: zone-b}
  resourceVersion: "41"
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: standard
  claimRef: {namespace: shop, name: data, uid: u-1}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-a, namespace: ignored}
spec: {capacity: {storage: 1Gi}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: shop, uid: u-1}
spec:
  volumeName: pv-b
  accessModes: [ReadWriteOncePod]
  resources: {requests: {storage: 5Gi}}
---
kind: PersistentVolumeClaim
metadata: {name: logs}
spec: {storageClassName: standard}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: standard}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: node-a}
spec:
  drivers: [{name: ebs.csi.aws.com, nodeID: i-1, allocatable: {count: 25}}]
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: ebs.csi.aws.com}
spec: {storageCapacity: true}
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: {name: cap-1, namespace: kube-system}
storageClassName: standard
capacity: 100Gi
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec: {selector: {app: web}}
---
apiVersion: v1
kind: ReplicationController
metadata: {name: old, namespace: shop}
spec: {selector: {app: old}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web-7d9, namespace: shop}
spec: {selector: {matchLabels: {app: web}}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: shop}
spec:
  selector:
    matchExpressions: [{key: app, operator: In, values: [db]}]
)";

TEST(ApiObjectTest, EveryKindLoadsIntoTheSnapshot) {
  const Cluster cluster = parse_cluster_text(kStorage, "cluster.yaml");
  EXPECT_EQ(cluster.objects.size(), 12u);
  const Snapshot snapshot = cluster.snapshot();
  // Cluster-scoped: no namespace (whatever the file said), ordered by name.
  EXPECT_EQ(keys(snapshot.objects("PersistentVolume")), (std::vector<std::string>{"pv-a", "pv-b"}));
  EXPECT_EQ(keys(snapshot.objects("PersistentVolumeClaim")),
            (std::vector<std::string>{"default/logs", "shop/data"}));
  EXPECT_EQ(keys(snapshot.objects("PersistentVolumeClaim", "shop")),
            (std::vector<std::string>{"shop/data"}));
  EXPECT_TRUE(snapshot.objects("PersistentVolumeClaim", "nowhere").empty());
  EXPECT_TRUE(snapshot.objects("ConfigMap").empty());
  for (const char* resource :
       {"storage.k8s.io/StorageClass", "storage.k8s.io/CSINode", "storage.k8s.io/CSIDriver",
        "storage.k8s.io/CSIStorageCapacity", "Service", "ReplicationController", "apps/ReplicaSet",
        "apps/StatefulSet"}) {
    EXPECT_EQ(snapshot.objects(resource).size(), 1u) << resource;
  }

  const ApiObject* pv = snapshot.find_object("PersistentVolume", "", "pv-b");
  ASSERT_NE(pv, nullptr);
  EXPECT_EQ(pv->resource(), "PersistentVolume");
  EXPECT_EQ(pv->namespace_name(), "");
  EXPECT_EQ(pv->resource_version(), "41");
  EXPECT_EQ(*pv->labels().find("topology.kubernetes.io/zone"), "zone-b");
  EXPECT_EQ(pv->json_at("/spec/claimRef/name"), "\"data\"");
  EXPECT_EQ(pv->json_at("/spec/nodeAffinity"), std::nullopt);
  EXPECT_EQ(snapshot.find_object("PersistentVolume", "ignored", "pv-a"), nullptr);
  EXPECT_NE(snapshot.find_object("PersistentVolume", "", "pv-a"), nullptr);

  // A namespaced object without a namespace is in "default", in its JSON too.
  const ApiObject* logs = snapshot.find_object("PersistentVolumeClaim", "default", "logs");
  ASSERT_NE(logs, nullptr);
  EXPECT_EQ(logs->json_at("/metadata/namespace"), "\"default\"");
  EXPECT_EQ(snapshot.find_object("apps/ReplicaSet", "shop", "web-7d9")->uid(), "");
  EXPECT_EQ(snapshot.find_object("storage.k8s.io/CSINode", "", "node-a")
                ->json_at("/spec/drivers/0/allocatable/count"),
            "25");
  // What the API server defaults is filled in: a class binds at once unless it says otherwise,
  // volumes and claims are filesystems.
  EXPECT_EQ(snapshot.find_object("storage.k8s.io/StorageClass", "", "standard")
                ->json_at("/volumeBindingMode"),
            "\"WaitForFirstConsumer\"");
  EXPECT_EQ(pv->json_at("/spec/volumeMode"), "\"Filesystem\"");
  EXPECT_EQ(logs->json_at("/spec/volumeMode"), "\"Filesystem\"");
  const Cluster plain = parse_cluster_text(
      "kind: StorageClass\nmetadata: {name: plain}\nprovisioner: example.com/disk\n", "c.yaml");
  EXPECT_EQ(plain.objects[0]->json_at("/volumeBindingMode"), "\"Immediate\"");
  EXPECT_EQ(plain.objects[0]->json_at("/reclaimPolicy"), "\"Delete\"");
  // Modelled kinds are not "ignored".
  EXPECT_TRUE(cluster.ignored.empty());
}

// One line each, at the field, naming the object and the fix.
TEST(ApiObjectTest, EachKindIsValidatedWithOneLine) {
  EXPECT_EQ(error("kind: StorageClass\napiVersion: storage.k8s.io/v1\nmetadata: {name: fast}\n"),
            "cluster.yaml:1:1: StorageClass \"fast\": the object has no provisioner: add "
            "provisioner (kubernetes.io/no-provisioner for statically provisioned volumes)");
  EXPECT_EQ(error("kind: StorageClass\nmetadata: {name: fast}\nprovisioner: x\n"
                  "volumeBindingMode: Later\n"),
            "cluster.yaml:4:20: StorageClass \"fast\": volumeBindingMode \"Later\" is not one of "
            "Immediate, WaitForFirstConsumer: use one of them");
  EXPECT_EQ(error("kind: PersistentVolume\nmetadata: {name: pv}\nspec:\n  capacity:\n"
                  "    storage: lots\n"),
            "cluster.yaml:5:14: PersistentVolume \"pv\": spec.capacity.storage \"lots\" is not a "
            "valid quantity: use a number with an optional suffix such as 500m or 2");
  EXPECT_EQ(error("kind: PersistentVolumeClaim\nmetadata: {name: c, namespace: shop}\nspec:\n"
                  "  accessModes: [ReadWriteSometimes]\n"),
            "cluster.yaml:4:17: PersistentVolumeClaim \"shop/c\": spec.accessModes[0] "
            "\"ReadWriteSometimes\" is not one of ReadWriteOnce, ReadOnlyMany, ReadWriteMany, "
            "ReadWriteOncePod: use one of them");
  EXPECT_EQ(error("kind: CSINode\nmetadata: {name: n}\nspec:\n  drivers:\n  - nodeID: x\n"),
            "cluster.yaml:5:5: CSINode \"n\": spec.drivers[0] has no name: name the CSI driver");
  EXPECT_EQ(error("kind: ReplicaSet\nmetadata: {name: rs}\nspec:\n  selector:\n"
                  "    matchExpressions: [{key: app, operator: Near}]\n"),
            "cluster.yaml:5:45: ReplicaSet \"default/rs\": "
            "spec.selector.matchExpressions[0].operator \"Near\" is not one of In, NotIn, Exists, "
            "DoesNotExist: use one of them");
  EXPECT_EQ(error("kind: Service\nmetadata: {name: web}\nspec:\n  selector: [app]\n"),
            "cluster.yaml:4:13: Service \"default/web\": spec.selector must be a mapping (key: "
            "value pairs), not a sequence: fix its type");
  EXPECT_EQ(error("apiVersion: v1\nkind: StorageClass\nmetadata: {name: fast}\nprovisioner: x\n"),
            "cluster.yaml:1:13: StorageClass \"fast\": apiVersion \"v1\" is not supported for kind "
            "StorageClass: use apiVersion: storage.k8s.io/v1");
  EXPECT_EQ(error("kind: PersistentVolume\nmetadata: {name: pv}\n---\n"
                  "kind: PersistentVolume\nmetadata: {name: pv}\n"),
            "cluster.yaml:4:1: PersistentVolume \"pv\" is defined twice (first at "
            "cluster.yaml:1:1): remove one of them or rename it");
  // The same name in two namespaces, or for two kinds, is two objects.
  EXPECT_EQ(error("kind: Service\nmetadata: {name: a, namespace: x}\n---\n"
                  "kind: Service\nmetadata: {name: a, namespace: y}\n---\n"
                  "kind: ReplicationController\nmetadata: {name: a, namespace: x}\n"),
            "no error");
}

TEST(ApiObjectTest, PodsKnowTheirOwnersAndClaims) {
  const Pod pod(yaml(R"(metadata:
  name: web-1
  ownerReferences:
  - {apiVersion: apps/v1, kind: ReplicaSet, name: web-7d9, uid: u-rs, controller: true}
  - {apiVersion: v1, kind: Node, name: n, uid: u-n}
spec:
  volumes:
  - {name: a, persistentVolumeClaim: {claimName: data}}
  - {name: b, emptyDir: {}}
  - {name: c, persistentVolumeClaim: {claimName: logs, readOnly: true}}
)"));
  EXPECT_EQ(pod.owner_references(),
            (std::vector<OwnerReference>{{"apps/v1", "ReplicaSet", "web-7d9", "u-rs", true},
                                         {"v1", "Node", "n", "u-n", false}}));
  EXPECT_EQ(pod.claim_names(), (std::vector<std::string>{"data", "logs"}));
}

// upstream's usedPVCSet: a claim counts while a pod on a node mounts it.
TEST(ApiObjectTest, ClaimUsersFollowThePodsOnTheNodes) {
  Cluster cluster = parse_cluster_text(R"(kind: Node
metadata: {name: node-a}
---
kind: Node
metadata: {name: node-b}
---
kind: Pod
metadata: {name: a1, namespace: shop}
spec:
  nodeName: node-a
  volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]
---
kind: Pod
metadata: {name: b1, namespace: shop}
spec:
  nodeName: node-b
  volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]
---
kind: Pod
metadata: {name: p, namespace: shop}
spec:
  volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]
)",
                                       "cluster.yaml");
  Snapshot snapshot = cluster.snapshot();
  EXPECT_EQ(snapshot.pvc_users("shop", "data"), 2u);  // the pending pod does not count
  EXPECT_EQ(snapshot.pvc_users("default", "data"), 0u);
  snapshot.assume(*cluster.pending_pods[0], "node-a");
  EXPECT_EQ(snapshot.pvc_users("shop", "data"), 3u);
  ASSERT_TRUE(snapshot.remove(cluster.running_pods[0]->uid()));
  EXPECT_EQ(snapshot.pvc_users("shop", "data"), 2u);
  // An update that drops the volume (as replace_pod sees it) stops counting it.
  nlohmann::json without = cluster.running_pods[1]->json();
  without["spec"].erase("volumes");
  ASSERT_TRUE(snapshot.replace_pod(std::make_shared<const Pod>(without)));
  EXPECT_EQ(snapshot.pvc_users("shop", "data"), 1u);
  ASSERT_TRUE(snapshot.remove_node("node-a"));
  EXPECT_EQ(snapshot.pvc_users("shop", "data"), 0u);
}

TEST(ApiObjectTest, TheKindsTableNamesEachKindOnce) {
  std::vector<std::string> resources;
  for (const ObjectKind& kind : object_kinds()) {
    EXPECT_EQ(find_object_kind(kind.kind), &kind);
    EXPECT_EQ(find_object_resource(kind.resource), &kind);
    resources.emplace_back(kind.resource);
  }
  EXPECT_EQ(
      resources,
      (std::vector<std::string>{
          "PersistentVolume", "PersistentVolumeClaim", "storage.k8s.io/StorageClass",
          "storage.k8s.io/CSINode", "storage.k8s.io/CSIDriver", "storage.k8s.io/CSIStorageCapacity",
          "Service", "ReplicationController", "apps/ReplicaSet", "apps/StatefulSet"}));
  EXPECT_EQ(find_object_kind("StorageClass")->preferred_version(), "v1");
  EXPECT_EQ(find_object_kind("ConfigMap"), nullptr);
}

}  // namespace
}  // namespace schedhost::cluster
