#include "cluster/node.hpp"

#include <gtest/gtest.h>

#include "cluster/object_error.hpp"
#include "test_yaml.hpp"

namespace schedhost::cluster {
namespace {

using testing::yaml;

TEST(NodeTest, ReadsEveryTypedField) {
  Node node(yaml(R"(
apiVersion: v1
kind: Node
metadata:
  name: node-a
  uid: 42
  labels: {kubernetes.io/hostname: node-a, topology.kubernetes.io/zone: z1}
  annotations: {note: hi}
spec:
  unschedulable: true
  taints:
  - {key: dedicated, value: gpu, effect: NoSchedule}
  - {key: node.kubernetes.io/unreachable, effect: NoExecute, timeAdded: "2024-01-02T03:04:05Z"}
status:
  capacity: {cpu: "8", memory: 32Gi, pods: "110"}
  allocatable: {cpu: 7500m, memory: 31Gi, pods: "110", ephemeral-storage: 100G, nvidia.com/gpu: 2, hugepages-2Mi: 1Gi}
  images:
  - names: [nginx@sha256:abc, "nginx:1.25"]
    sizeBytes: 187000000
  - names: [busybox]
    sizeBytes: 4000000
)"));
  EXPECT_EQ(node.name(), "node-a");
  EXPECT_EQ(node.uid(), "42");
  EXPECT_TRUE(node.unschedulable());
  EXPECT_EQ(node.labels(), StringMap({{"kubernetes.io/hostname", "node-a"},
                                      {"topology.kubernetes.io/zone", "z1"}}));
  EXPECT_EQ(node.annotations(), (StringMap{{"note", "hi"}}));
  EXPECT_EQ(node.allocatable(), (ResourceList{{"cpu", 7500},
                                              {"ephemeral-storage", 100000000000},
                                              {"hugepages-2Mi", 1073741824},
                                              {"memory", 31LL * 1024 * 1024 * 1024},
                                              {"nvidia.com/gpu", 2},
                                              {"pods", 110}}));
  EXPECT_EQ(node.taints(),
            (std::vector<Taint>{{"dedicated", "gpu", "NoSchedule"},
                                {"node.kubernetes.io/unreachable", "", "NoExecute"}}));
  EXPECT_EQ(node.images(), (std::vector<NodeImage>{{{"nginx@sha256:abc", "nginx:1.25"}, 187000000},
                                                   {{"busybox"}, 4000000}}));
}

TEST(NodeTest, Defaults) {
  Node node(yaml("metadata: {name: node-b}"));
  EXPECT_EQ(node.uid(), "uid-node-node-b");
  EXPECT_FALSE(node.unschedulable());
  EXPECT_TRUE(node.allocatable().empty());
  EXPECT_TRUE(node.taints().empty());
  EXPECT_TRUE(node.images().empty());
}

TEST(NodeTest, CapacityStandsInForMissingAllocatable) {
  Node node(yaml("metadata: {name: n}\nstatus: {capacity: {cpu: 4, memory: 8Gi, pods: 10}}"));
  EXPECT_EQ(node.allocatable(),
            (ResourceList{{"cpu", 4000}, {"memory", 8LL * 1024 * 1024 * 1024}, {"pods", 10}}));
}

TEST(NodeTest, RejectsABadAllocatable) {
  try {
    Node(yaml("metadata: {name: n}\nstatus: {allocatable: {cpu: 4 cores}}"));
    FAIL() << "no error";
  } catch (const ObjectError& e) {
    EXPECT_EQ(e.pointer(), "/status/allocatable/cpu");
    EXPECT_STREQ(e.what(),
                 "status.allocatable.cpu \"4 cores\" is not a valid quantity: use a number with an "
                 "optional suffix such as 500m or 2");
  }
  try {
    Node(yaml("metadata: {name: n}\nspec: {unschedulable: \"yes\"}"));
    FAIL() << "no error";
  } catch (const ObjectError& e) {
    EXPECT_EQ(e.pointer(), "/spec/unschedulable");
    EXPECT_STREQ(e.what(),
                 "spec.unschedulable must be true or false, not \"yes\": write true or false");
  }
}

}  // namespace
}  // namespace schedhost::cluster
