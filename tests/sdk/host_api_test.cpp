// Every pod, node and snapshot accessor, end to end: cluster objects built from JSON, handed to
// a plugin built with the C++ wrapper, read back through the ABI.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

#include "cluster/api_object.hpp"
#include "cluster/node.hpp"
#include "cluster/object_kinds.hpp"
#include "cluster/pod.hpp"
#include "cluster/snapshot.hpp"
#include "config/feature_gates.hpp"
#include "framework/call.hpp"
#include "framework/cycle_state.hpp"
#include "framework/plugin_host.hpp"
#include "framework/plugin_instance.hpp"
#include "loader/plugin_registry.hpp"

namespace schedhost {
namespace {

using ::testing::ElementsAre;

std::shared_ptr<const cluster::Node> node(const char* json) {
  return std::make_shared<const cluster::Node>(nlohmann::json::parse(json));
}
std::shared_ptr<const cluster::Pod> pod(const char* json) {
  return std::make_shared<const cluster::Pod>(nlohmann::json::parse(json));
}

TEST(HostApi, APluginSeesExactlyThePodTheNodeAndTheSnapshot) {
  loader::PluginRegistry registry;
  registry.load_file(std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/sdk/wrapper_fixture.so");
  ASSERT_TRUE(registry.failures().empty());
  auto inspector = framework::PluginInstance::create(*registry.find("Inspector"), "{}");

  const auto node_a = node(R"({"apiVersion":"v1","kind":"Node",
    "metadata":{"name":"node-a","uid":"n-1","labels":{"zone":"z1","disk":"ssd"}},
    "spec":{"taints":[{"key":"gpu","value":"true","effect":"NoSchedule"}]},
    "status":{"allocatable":{"cpu":"4","memory":"8Gi","pods":"110","nvidia.com/gpu":"2"},
              "images":[{"names":["registry/web:1","web:1"],"sizeBytes":500000000}]}})");
  const auto node_b = node(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"node-b"},
    "status":{"allocatable":{"cpu":"2","memory":"4Gi","pods":"10"},
              "images":[{"names":["web:1"],"sizeBytes":500000000}]}})");
  const auto running = pod(R"({"apiVersion":"v1","kind":"Pod",
    "metadata":{"name":"db-0","namespace":"data"},
    "spec":{"nodeName":"node-a","containers":[{"name":"db","image":"postgres:16",
      "resources":{"requests":{"cpu":"1500m","memory":"2Gi"}},
      "ports":[{"containerPort":5432,"hostPort":5432}]}]}})");
  const cluster::Snapshot snapshot({node_a, node_b}, {running});

  const auto pending = pod(R"({"apiVersion":"v1","kind":"Pod",
    "metadata":{"name":"web-1","namespace":"shop","uid":"p-9","labels":{"app":"web"},
                "annotations":{"team":"blue"},"creationTimestamp":"2024-01-02T03:04:05Z"},
    "spec":{"priority":1000,"priorityClassName":"high","nodeSelector":{"disk":"ssd"},
      "tolerations":[{"key":"gpu","operator":"Exists","effect":"NoSchedule"},
                     {"key":"node.kubernetes.io/not-ready","effect":"NoExecute","tolerationSeconds":300}],
      "initContainers":[{"name":"warm","image":"busybox","resources":{"requests":{"cpu":"2"}}}],
      "containers":[{"name":"web","image":"web:1",
        "resources":{"requests":{"cpu":"500m","memory":"256Mi","nvidia.com/gpu":"1"}},
        "ports":[{"containerPort":80,"hostPort":8080}]},
        {"name":"log","image":"fluentbit"}]}})");

  framework::Call call(&snapshot);
  framework::CycleState state;
  const auto* pod_handle = reinterpret_cast<const schedhost_pod_t*>(pending.get());
  const auto* node_handle = reinterpret_cast<const schedhost_node_t*>(snapshot.find("node-a"));
  ASSERT_EQ(inspector->vtable().filter(inspector->self(), call.handle(), state.handle(), pod_handle,
                                       node_handle),
            SCHEDHOST_UNSCHEDULABLE);
  EXPECT_THAT(
      call.reasons(),
      ElementsAre(
          "pod shop/web-1 uid=p-9 node= scheduler=default-scheduler priority=1000 class=high "
          "policy=PreemptLowerPriority nominated= terminating=0 created=1704164645000",
          "pod label app=web", "pod annotation team=blue", "pod nodeSelector disk=ssd",
          "pod label app? web, tier? <none>",
          // max(init 2 cpu, 500m + log's nothing) and the containers' memory and GPU
          "pod request cpu=2000", "pod request memory=268435456", "pod request nvidia.com/gpu=1",
          // scoring's view: max(init 2 cpu, 500m + log's default 100m); web 256Mi + log's
          // default 200Mi against the init container's default 200Mi
          "pod nonzero cpu=2000 memory=478150656 gpu=1", "pod toleration gpu Exists  NoSchedule",
          "pod toleration node.kubernetes.io/not-ready Equal  NoExecute 300s",
          "pod hostPort 0.0.0.0 TCP 8080", "pod container web web:1 kind 0",
          "pod container log fluentbit kind 0", "pod container warm busybox kind 1",
          "pod json /spec/containers/0/image \"web:1\"", "pod json /spec/nope <none>",
          "node node-a uid=n-1 unschedulable=0", "node label disk=ssd", "node label zone=z1",
          "node allocatable cpu=4000", "node allocatable memory=8589934592",
          "node allocatable nvidia.com/gpu=2", "node allocatable pods=110",
          "node requested cpu=1500", "node requested memory=2147483648",
          "node nonzero cpu=1500 memory=2147483648", "node taint gpu=true:NoSchedule",
          "node usedPort 0.0.0.0 TCP 5432", "node image registry/web:1 500000000 on 1",
          "node image web:1 500000000 on 2", "node pod db-0", "node pods with affinity 0",
          "node json /metadata/name \"node-a\"", "snapshot node-a node-b",
          "snapshot node-b? yes, node-z? no"));
}

// ABI 1.8: the objects of other kinds, a pod's owners, the claim counts and the feature gates,
// as a plugin reads them through the real host table.
TEST(HostApi, APluginSeesTheOtherKindsTheOwnersTheClaimsAndTheGates) {
  config::FeatureGates gates = config::parse_feature_gates("StorageCapacityScoring=true");
  framework::set_plugin_feature_gates(gates);
  loader::PluginRegistry registry;
  registry.load_file(std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/sdk/wrapper_fixture.so");
  ASSERT_TRUE(registry.failures().empty());
  auto inspector = framework::PluginInstance::create(*registry.find("ObjectInspector"), "{}");
  framework::set_plugin_feature_gates({});  // created: the instance keeps what it read

  const auto node_a = node(R"({"metadata":{"name":"node-a"}})");
  const auto user = pod(R"({"metadata":{"name":"db-0","namespace":"shop"},
    "spec":{"nodeName":"node-a","volumes":[{"name":"d","persistentVolumeClaim":{"claimName":"data"}}]}})");
  cluster::Snapshot snapshot({node_a}, {user});
  auto object = [](const char* kind, const char* json) {
    return std::make_shared<const cluster::ApiObject>(*cluster::find_object_kind(kind),
                                                      nlohmann::json::parse(json));
  };
  snapshot.set_objects(*cluster::find_object_kind("PersistentVolume"),
                       {object("PersistentVolume", R"({"metadata":{"name":"pv-1","uid":"u-pv",
                          "resourceVersion":"7","labels":{"topology.kubernetes.io/zone":"z1"},
                          "annotations":{"note":"fast"}},
                          "spec":{"capacity":{"storage":"10Gi"}}})")});
  snapshot.set_objects(
      *cluster::find_object_kind("PersistentVolumeClaim"),
      {object("PersistentVolumeClaim", R"({"metadata":{"name":"data","namespace":"shop"}})"),
       object("PersistentVolumeClaim", R"({"metadata":{"name":"cache"}})"),
       object("PersistentVolumeClaim", R"({"metadata":{"name":"a","namespace":"shop"}})")});

  const auto pending = pod(R"({"metadata":{"name":"web-1","namespace":"shop","ownerReferences":[
      {"apiVersion":"v1","kind":"Node","name":"n","uid":"u-n"},
      {"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-7d9","uid":"u-rs","controller":true}]}})");
  framework::Call call(&snapshot);
  framework::CycleState state;
  ASSERT_EQ(inspector->vtable().filter(inspector->self(), call.handle(), state.handle(),
                                       reinterpret_cast<const schedhost_pod_t*>(pending.get()),
                                       reinterpret_cast<const schedhost_node_t*>(&snapshot.at(0))),
            SCHEDHOST_UNSCHEDULABLE);
  EXPECT_THAT(call.reasons(),
              ElementsAre("PersistentVolume: /pv-1",
                          "PersistentVolumeClaim: default/cache shop/a shop/data",
                          "Service:", "PersistentVolumeClaim in shop: a data",
                          "pv-1 resource=PersistentVolume uid=u-pv rv=7 zone=z1 note=fast "
                          "storage=\"10Gi\"",
                          "pv-1 label topology.kubernetes.io/zone=z1",
                          "pv-2? no, shop/data? yes, default/data? no", "owner v1 Node n u-n",
                          "owner apps/v1 ReplicaSet web-7d9 u-rs controller", "controller web-7d9",
                          "users of shop/data 1, of shop/other 0",
                          "gates MatchLabelKeysInPodTopologySpread=1 StorageCapacityScoring=1"));
}

}  // namespace
}  // namespace schedhost
