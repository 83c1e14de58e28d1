#include "cluster/snapshot.hpp"

#include <stdexcept>

#include <gtest/gtest.h>

#include "test_yaml.hpp"

namespace schedhost::cluster {
namespace {

using testing::yaml;

std::shared_ptr<const Node> node(const std::string& name, const std::string& images = "[]") {
  return std::make_shared<const Node>(yaml(
      "metadata: {name: " + name + "}\nstatus: {allocatable: {cpu: 2}, images: " + images + "}"));
}

std::shared_ptr<const Pod> pod(const std::string& name, const std::string& node_name = "") {
  return std::make_shared<const Pod>(
      yaml("metadata: {name: " + name + "}\nspec: {nodeName: \"" + node_name +
           "\", containers: [{resources: {requests: {cpu: 100m}}}]}"));
}

TEST(SnapshotTest, KeepsNodeOrderAndFindsByName) {
  Snapshot snapshot({node("zeta"), node("alpha"), node("mid")}, {});
  ASSERT_EQ(snapshot.size(), 3u);
  EXPECT_EQ(snapshot.at(0).name(), "zeta");
  EXPECT_EQ(snapshot.at(1).name(), "alpha");
  EXPECT_EQ(snapshot.at(2).name(), "mid");
  EXPECT_EQ(snapshot.index_of("mid"), 2u);
  EXPECT_EQ(snapshot.index_of("nope"), std::nullopt);
  ASSERT_NE(snapshot.find("alpha"), nullptr);
  EXPECT_EQ(snapshot.find("alpha"), &snapshot.node_infos()[1]);
  EXPECT_EQ(snapshot.find("nope"), nullptr);
}

TEST(SnapshotTest, PlacesRunningPodsOnTheirNodes) {
  auto a1 = pod("a1", "a");
  auto b1 = pod("b1", "b");
  auto a2 = pod("a2", "a");
  Snapshot snapshot({node("a"), node("b")}, {a1, b1, a2});
  EXPECT_EQ(snapshot.at(0).pods(), (std::vector<NodeInfo::PodPtr>{a1, a2}));
  EXPECT_EQ(snapshot.at(1).pods(), (std::vector<NodeInfo::PodPtr>{b1}));
  EXPECT_EQ(snapshot.at(0).requested(), (ResourceList{{"cpu", 200}}));
  EXPECT_EQ(snapshot.node_of_pod("uid-default-b1"), &snapshot.at(1));
  EXPECT_EQ(snapshot.node_of_pod("uid-default-zz"), nullptr);
}

std::shared_ptr<const Pod> anti_affinity_pod(const std::string& name,
                                             const std::string& node_name) {
  return std::make_shared<const Pod>(
      yaml("metadata: {name: " + name + "}\nspec: {nodeName: \"" + node_name +
           "\", affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
           "[{topologyKey: kubernetes.io/hostname, labelSelector: {}}]}}}"));
}

TEST(SnapshotTest, ListsTheNodesHoldingPodsOfEachKindAsPodsComeAndGo) {
  using Kind = Snapshot::NodePods;
  Snapshot snapshot({node("a"), node("b"), node("c"), node("d")},
                    {pod("c1", "c"), anti_affinity_pod("b1", "b")});
  EXPECT_EQ(snapshot.nodes_with_pods(Kind::kAny), (std::vector<size_t>{1, 2}));
  EXPECT_EQ(snapshot.nodes_with_pods(Kind::kWithAffinity), (std::vector<size_t>{1}));
  EXPECT_EQ(snapshot.nodes_with_pods(Kind::kWithRequiredAntiAffinity), (std::vector<size_t>{1}));

  snapshot.assume(*anti_affinity_pod("x", ""), "d");
  snapshot.assume(*pod("y", ""), "a");
  EXPECT_EQ(snapshot.nodes_with_pods(Kind::kAny), (std::vector<size_t>{0, 1, 2, 3}));
  EXPECT_EQ(snapshot.nodes_with_pods(Kind::kWithRequiredAntiAffinity), (std::vector<size_t>{1, 3}));

  // A node leaves a list when its last pod of that kind leaves, not before.
  snapshot.assume(*anti_affinity_pod("b2", ""), "b");
  EXPECT_TRUE(snapshot.remove("uid-default-b1"));
  EXPECT_EQ(snapshot.nodes_with_pods(Kind::kWithAffinity), (std::vector<size_t>{1, 3}));
  EXPECT_TRUE(snapshot.remove("uid-default-b2"));
  EXPECT_TRUE(snapshot.remove("uid-default-y"));
  EXPECT_EQ(snapshot.nodes_with_pods(Kind::kAny), (std::vector<size_t>{2, 3}));
  EXPECT_EQ(snapshot.nodes_with_pods(Kind::kWithAffinity), (std::vector<size_t>{3}));
  EXPECT_EQ(snapshot.nodes_with_pods(Kind::kWithRequiredAntiAffinity), (std::vector<size_t>{3}));
  EXPECT_FALSE(snapshot.remove("uid-default-y"));
  EXPECT_EQ(snapshot.nodes_with_pods(Kind::kAny), (std::vector<size_t>{2, 3}));
}

TEST(SnapshotTest, JournalsEveryPlacementAndRemovalSinceItWasBuilt) {
  Snapshot snapshot({node("a"), node("b")}, {pod("a1", "a")});
  const SnapshotJournal& journal = snapshot.journal();
  EXPECT_NE(journal.id(), 0u);
  EXPECT_EQ(journal.revision(), 0u);  // the cluster file's pods are the start, not changes

  const auto x = snapshot.assume(*pod("x", ""), "b");
  EXPECT_TRUE(snapshot.remove("uid-default-a1"));
  EXPECT_FALSE(snapshot.remove("uid-default-a1"));  // nothing removed, nothing journaled
  ASSERT_EQ(journal.revision(), 2u);
  EXPECT_EQ(journal.at(0).pod, x);
  EXPECT_EQ(journal.at(0).node_index, 1u);
  EXPECT_EQ(journal.at(0).delta, +1);
  EXPECT_EQ(journal.at(1).pod->uid(), "uid-default-a1");  // kept alive by the journal
  EXPECT_EQ(journal.at(1).node_index, 0u);
  EXPECT_EQ(journal.at(1).delta, -1);

  // A copy is another snapshot: its own id, and its changes start from what it copied.
  Snapshot copy = snapshot;
  EXPECT_NE(copy.journal().id(), journal.id());
  EXPECT_EQ(copy.journal().revision(), 0u);
  EXPECT_EQ(journal.revision(), 2u);
  copy.assume(*pod("y", ""), "a");
  EXPECT_EQ(copy.journal().revision(), 1u);
  EXPECT_EQ(journal.revision(), 2u);
}

TEST(SnapshotTest, CountsNodesPerImageName) {
  Snapshot snapshot(
      {node("a", R"([{names: ["nginx:1.25", nginx@sha256:1], sizeBytes: 100},
                                   {names: ["nginx:1.25"], sizeBytes: 100}])"),
       node("b", R"([{names: ["nginx:1.25"], sizeBytes: 120}, {names: [redis], sizeBytes: 7}])"),
       node("c")},
      {});
  EXPECT_EQ(snapshot.at(0).image_states(),
            (ImageStates{{"nginx:1.25", 100, 2}, {"nginx@sha256:1", 100, 1}}));
  EXPECT_EQ(snapshot.at(1).image_states(), (ImageStates{{"nginx:1.25", 120, 2}, {"redis", 7, 1}}));
  EXPECT_TRUE(snapshot.at(2).image_states().empty());
}

TEST(SnapshotTest, AssumeAndRemove) {
  Snapshot snapshot({node("a"), node("b")}, {});
  auto pending = pod("web");
  uint64_t before = snapshot.at(1).generation();
  std::shared_ptr<const Pod> bound = snapshot.assume(*pending, "b");
  EXPECT_EQ(bound->node_name(), "b");
  EXPECT_EQ(bound->json_at("/spec/nodeName"), "\"b\"");
  EXPECT_NE(bound->generation(), pending->generation());
  EXPECT_EQ(pending->node_name(), "");
  EXPECT_GT(snapshot.at(1).generation(), before);
  EXPECT_EQ(snapshot.at(1).pods(), (std::vector<NodeInfo::PodPtr>{bound}));
  EXPECT_EQ(snapshot.at(1).requested(), (ResourceList{{"cpu", 100}}));
  EXPECT_EQ(snapshot.node_of_pod(pending->uid()), &snapshot.at(1));

  EXPECT_THROW(snapshot.assume(*pending, "b"), std::invalid_argument);  // already placed
  EXPECT_THROW(snapshot.assume(*pod("other"), "nope"), std::invalid_argument);

  EXPECT_TRUE(snapshot.remove(pending->uid()));
  EXPECT_FALSE(snapshot.remove(pending->uid()));
  EXPECT_TRUE(snapshot.at(1).pods().empty());
  EXPECT_TRUE(snapshot.at(1).requested().empty());
  EXPECT_EQ(snapshot.node_of_pod(pending->uid()), nullptr);
  // Removed, it can be assumed again elsewhere.
  snapshot.assume(*pending, "a");
  EXPECT_EQ(snapshot.at(0).pods().size(), 1u);
}

TEST(SnapshotTest, CopiesAreIndependent) {
  Snapshot snapshot({node("a")}, {pod("p", "a")});
  Snapshot copy = snapshot;
  copy.remove("uid-default-p");
  EXPECT_EQ(snapshot.at(0).pods().size(), 1u);
  EXPECT_TRUE(copy.at(0).pods().empty());
}

TEST(SnapshotTest, RefusesInconsistentInput) {
  EXPECT_THROW(Snapshot({node("a"), node("a")}, {}), std::invalid_argument);
  EXPECT_THROW(Snapshot({node("a")}, {pod("p", "b")}), std::invalid_argument);
  EXPECT_THROW(Snapshot({node("a")}, {pod("p", "a"), pod("p", "a")}), std::invalid_argument);
}

}  // namespace
}  // namespace schedhost::cluster
