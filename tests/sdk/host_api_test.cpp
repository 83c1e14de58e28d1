// Every pod, node and snapshot accessor, end to end: cluster objects built from JSON, handed to
// a plugin built with the C++ wrapper, read back through the ABI.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

#include "cluster/node.hpp"
#include "cluster/pod.hpp"
#include "cluster/snapshot.hpp"
#include "framework/call.hpp"
#include "framework/cycle_state.hpp"
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

}  // namespace
}  // namespace schedhost
