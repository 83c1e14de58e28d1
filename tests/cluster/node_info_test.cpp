#include "cluster/node_info.hpp"

#include <limits>

#include <gtest/gtest.h>

#include "test_yaml.hpp"

namespace schedhost::cluster {
namespace {

using testing::yaml;

constexpr int64_t kMiB = 1024 * 1024;

std::shared_ptr<const Node> make_node(const std::string& extra = "") {
  return std::make_shared<const Node>(yaml(R"(
metadata: {name: node-a}
status:
  allocatable: {cpu: 4, memory: 8Gi, pods: 110}
)" + extra));
}

std::shared_ptr<const Pod> make_pod(const std::string& name, const std::string& spec) {
  return std::make_shared<const Pod>(yaml("metadata: {name: " + name + "}\nspec:\n" + spec));
}

// Everything a NodeInfo aggregates, for comparing two of them.
void expect_same_aggregates(const NodeInfo& a, const NodeInfo& b) {
  EXPECT_EQ(a.pods(), b.pods());
  EXPECT_EQ(a.pods_with_affinity(), b.pods_with_affinity());
  EXPECT_EQ(a.pods_with_required_anti_affinity(), b.pods_with_required_anti_affinity());
  EXPECT_EQ(a.requested(), b.requested());
  EXPECT_EQ(a.nonzero_requested(), b.nonzero_requested());
  EXPECT_EQ(a.used_ports(), b.used_ports());
}

struct ConflictCase {
  HostPort wanted;
  HostPort used;
  bool conflict;
};

class HostPortConflictTest : public ::testing::TestWithParam<ConflictCase> {};

TEST_P(HostPortConflictTest, FollowsUpstream) {
  const ConflictCase& c = GetParam();
  EXPECT_EQ(host_ports_conflict(c.wanted, c.used), c.conflict);
}

INSTANTIATE_TEST_SUITE_P(
    Table, HostPortConflictTest,
    ::testing::Values(
        ConflictCase{{"0.0.0.0", "TCP", 80}, {"0.0.0.0", "TCP", 80}, true},
        ConflictCase{{"0.0.0.0", "TCP", 80}, {"10.0.0.1", "TCP", 80}, true},  // wildcard wanted
        ConflictCase{{"10.0.0.1", "TCP", 80}, {"0.0.0.0", "TCP", 80}, true},  // wildcard used
        ConflictCase{{"10.0.0.1", "TCP", 80}, {"10.0.0.1", "TCP", 80}, true},
        ConflictCase{{"10.0.0.1", "TCP", 80}, {"10.0.0.2", "TCP", 80}, false},
        ConflictCase{{"0.0.0.0", "UDP", 80}, {"0.0.0.0", "TCP", 80}, false},
        ConflictCase{{"0.0.0.0", "TCP", 81}, {"0.0.0.0", "TCP", 80}, false},
        ConflictCase{{"0.0.0.0", "TCP", 0}, {"0.0.0.0", "TCP", 0}, false}));

TEST(NodeInfoTest, EmptyNode) {
  NodeInfo info(make_node());
  EXPECT_EQ(info.name(), "node-a");
  EXPECT_EQ(info.allocatable(),
            (ResourceList{{"cpu", 4000}, {"memory", 8192 * kMiB}, {"pods", 110}}));
  EXPECT_TRUE(info.pods().empty());
  EXPECT_TRUE(info.requested().empty());
  EXPECT_TRUE(info.nonzero_requested().empty());
  EXPECT_TRUE(info.used_ports().empty());
  EXPECT_TRUE(info.image_states().empty());
  EXPECT_FALSE(info.port_conflicts({"0.0.0.0", "TCP", 80}));
}

TEST(NodeInfoTest, AddPodsKeepsEveryAggregate) {
  NodeInfo info(make_node());
  auto web = make_pod("web", R"(
  containers:
  - resources: {requests: {cpu: 500m, memory: 1Gi, nvidia.com/gpu: 1, pods: 1}}
    ports: [{containerPort: 80, hostPort: 8080}]
)");
  auto empty = make_pod("empty", "  containers: [{name: c}]");
  auto anti = make_pod("anti", R"(
  containers:
  - resources: {requests: {cpu: 1}}
    ports: [{containerPort: 53, hostPort: 53, protocol: UDP, hostIP: 10.0.0.1}]
  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname}]
)");
  uint64_t generation = info.generation();
  info.add_pod(web);
  EXPECT_GT(info.generation(), generation);
  info.add_pod(empty);
  info.add_pod(anti);

  EXPECT_EQ(info.pods(), (std::vector<NodeInfo::PodPtr>{web, empty, anti}));
  EXPECT_EQ(info.pods_with_affinity(), (std::vector<NodeInfo::PodPtr>{anti}));
  EXPECT_EQ(info.pods_with_required_anti_affinity(), (std::vector<NodeInfo::PodPtr>{anti}));
  // "pods" requested by a container is not node accounting: the pod count is pods().size().
  EXPECT_EQ(info.requested(),
            (ResourceList{{"cpu", 1500}, {"memory", 1024 * kMiB}, {"nvidia.com/gpu", 1}}));
  // web 500m/1Gi, empty 100m/200Mi (defaults), anti 1/200Mi.
  EXPECT_EQ(info.nonzero_requested(), (ResourceList{{"cpu", 1600}, {"memory", 1424 * kMiB}}));
  EXPECT_EQ(info.used_ports(),
            (std::vector<HostPort>{{"0.0.0.0", "TCP", 8080}, {"10.0.0.1", "UDP", 53}}));
  EXPECT_TRUE(info.port_conflicts({"10.0.0.9", "TCP", 8080}));
  EXPECT_TRUE(info.port_conflicts({"0.0.0.0", "UDP", 53}));
  EXPECT_FALSE(info.port_conflicts({"10.0.0.2", "UDP", 53}));
  EXPECT_EQ(info.find_pod("uid-default-empty"), empty.get());
  EXPECT_EQ(info.find_pod("nope"), nullptr);
}

TEST(NodeInfoTest, RemovePodIsTheExactInverse) {
  auto a = make_pod("a", R"(
  containers:
  - resources: {requests: {cpu: 250m, example.com/foo: 2}}
    ports: [{containerPort: 80, hostPort: 80}]
  affinity:
    podAffinity:
      preferredDuringSchedulingIgnoredDuringExecution: [{weight: 1, podAffinityTerm: {topologyKey: zone}}]
)");
  auto b = make_pod("b", "  containers: [{resources: {requests: {memory: 64Mi}}}]");
  auto c = make_pod("c", R"(
  containers:
  - resources: {requests: {cpu: 1, example.com/foo: 1}}
    ports: [{containerPort: 80, hostPort: 80}]
)");
  NodeInfo info(make_node());
  for (const auto& pod : {a, b, c})
    info.add_pod(pod);

  uint64_t generation = info.generation();
  EXPECT_TRUE(info.remove_pod("uid-default-a"));
  EXPECT_GT(info.generation(), generation);
  NodeInfo expected(make_node());
  expected.add_pod(b);
  expected.add_pod(c);
  expect_same_aggregates(info, expected);
  // c still holds port 80 although a, which held it too, left.
  EXPECT_EQ(info.used_ports(), (std::vector<HostPort>{{"0.0.0.0", "TCP", 80}}));

  generation = info.generation();
  EXPECT_FALSE(info.remove_pod("uid-default-a"));
  EXPECT_EQ(info.generation(), generation);

  EXPECT_TRUE(info.remove_pod("uid-default-c"));
  EXPECT_TRUE(info.remove_pod("uid-default-b"));
  expect_same_aggregates(info, NodeInfo(make_node()));
  EXPECT_TRUE(info.requested().empty());  // no zero entries left behind
}

TEST(NodeInfoTest, StaysExactAfterSaturating) {
  auto huge = make_pod("huge", "  containers: [{resources: {requests: {memory: 7Ei}}}]");
  auto huge2 = make_pod("huge2", "  containers: [{resources: {requests: {memory: 7Ei}}}]");
  auto small = make_pod("small", "  containers: [{resources: {requests: {memory: 1Mi}}}]");
  NodeInfo info(make_node());
  info.add_pod(huge);
  info.add_pod(huge2);
  info.add_pod(small);
  EXPECT_EQ(info.requested().get("memory"), std::numeric_limits<int64_t>::max());
  ASSERT_TRUE(info.remove_pod("uid-default-huge"));
  ASSERT_TRUE(info.remove_pod("uid-default-huge2"));
  EXPECT_EQ(info.requested(), (ResourceList{{"memory", kMiB}}));
  EXPECT_EQ(info.nonzero_requested(), (ResourceList{{"cpu", 100}, {"memory", kMiB}}));
}

TEST(NodeInfoTest, CopiesAreIndependent) {
  auto a = make_pod("a", "  containers: [{resources: {requests: {cpu: 1}}}]");
  auto b = make_pod("b", "  containers: [{resources: {requests: {cpu: 2}}}]");
  NodeInfo info(make_node());
  info.add_pod(a);
  info.add_pod(b);
  NodeInfo clone = info;
  EXPECT_EQ(clone.generation(), info.generation());
  ASSERT_TRUE(clone.remove_pod("uid-default-a"));
  EXPECT_EQ(clone.requested(), (ResourceList{{"cpu", 2000}}));
  EXPECT_EQ(info.requested(), (ResourceList{{"cpu", 3000}}));
  EXPECT_EQ(info.pods().size(), 2u);
  EXPECT_NE(clone.generation(), info.generation());
  EXPECT_EQ(&clone.node(), &info.node());  // the node is shared, not copied
}

TEST(NodeInfoTest, ImagesOfASingleNode) {
  NodeInfo info(make_node(R"(
  images:
  - {names: [nginx@sha256:abc, "nginx:1.25"], sizeBytes: 100}
  - {names: ["nginx:1.25"], sizeBytes: 300}
  - {names: [busybox], sizeBytes: 5}
)"));
  EXPECT_EQ(info.image_states(), (ImageStates{{"busybox", 5, 1},
                                              {"nginx:1.25", 300, 1},  // the later entry wins
                                              {"nginx@sha256:abc", 100, 1}}));
  ASSERT_NE(info.find_image("busybox"), nullptr);
  EXPECT_EQ(info.find_image("busybox")->size_bytes, 5);
  EXPECT_EQ(info.find_image("busybox:latest"), nullptr);
}

}  // namespace
}  // namespace schedhost::cluster
