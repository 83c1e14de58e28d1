#include "cluster/snapshot.hpp"

#include <map>
#include <random>
#include <set>
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

TEST(SnapshotTest, TrimJournalStartsANewTimelineOnceTheJournalOutgrowsThePods) {
  // A long-lived snapshot (serve) assumes, confirms and deletes pods for ever: without trimming,
  // its journal would keep every pod it ever held.
  Snapshot snapshot({node("a")}, {pod("p", "a")});
  auto pending = pod("churn");
  uint64_t id = snapshot.journal().id();
  const std::weak_ptr<const Pod> first = snapshot.assume(*pending, "a");
  snapshot.remove(pending->uid());
  EXPECT_FALSE(first.expired());  // the journal holds it
  // One pod placed, so the bound is the slack: 2 changes per round trip.
  for (uint64_t k = 1; k < Snapshot::kJournalSlack / 2; ++k) {
    snapshot.assume(*pending, "a");
    snapshot.remove(pending->uid());
  }
  EXPECT_EQ(snapshot.journal().revision(), Snapshot::kJournalSlack);
  EXPECT_FALSE(snapshot.trim_journal());  // at the bound, not past it
  EXPECT_EQ(snapshot.journal().id(), id);
  snapshot.assume(*pending, "a");
  EXPECT_TRUE(snapshot.trim_journal());
  EXPECT_NE(snapshot.journal().id(), id);
  EXPECT_EQ(snapshot.journal().revision(), 0u);
  EXPECT_TRUE(first.expired());                 // released with the old timeline
  EXPECT_EQ(snapshot.at(0).pods().size(), 2u);  // the pods themselves stay placed
  EXPECT_FALSE(snapshot.trim_journal());
}

TEST(SnapshotTest, CopiesAreIndependent) {
  Snapshot snapshot({node("a")}, {pod("p", "a")});
  Snapshot copy = snapshot;
  copy.remove("uid-default-p");
  EXPECT_EQ(snapshot.at(0).pods().size(), 1u);
  EXPECT_TRUE(copy.at(0).pods().empty());
}

// The message of the std::invalid_argument fn throws, or "(no exception)".
template <class Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no exception)";
}

// The kinds of pods the nodes_with_pods lists tell apart.
enum class Kind { kPlain, kAffinity, kRequiredAntiAffinity };

std::shared_ptr<const Pod> make_pod(const std::string& name, const std::string& node_name,
                                    Kind kind, const std::string& cpu = "100m",
                                    const std::string& app = "web") {
  std::string affinity;
  if (kind == Kind::kAffinity) {
    affinity =
        ", affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
        "[{topologyKey: zone, labelSelector: {}}]}}";
  } else if (kind == Kind::kRequiredAntiAffinity) {
    affinity =
        ", affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
        "[{topologyKey: kubernetes.io/hostname, labelSelector: {}}]}}";
  }
  return std::make_shared<const Pod>(yaml("metadata: {name: " + name + ", labels: {app: " + app +
                                          "}}\nspec: {nodeName: \"" + node_name +
                                          "\", containers: [{resources: {requests: {cpu: " + cpu +
                                          "}}}]" + affinity + "}"));
}

std::shared_ptr<const Node> make_node(const std::string& name, const std::string& zone,
                                      const std::string& cpu, const std::string& images = "[]") {
  return std::make_shared<const Node>(yaml("metadata: {name: " + name + ", labels: {zone: " + zone +
                                           "}}\nstatus: {allocatable: {cpu: " + cpu +
                                           "}, images: " + images + "}"));
}

TEST(SnapshotTest, AddNodeAppendsItAndStartsANewTimeline) {
  Snapshot snapshot({node("a"), node("b")}, {pod("a1", "a")});
  snapshot.assume(*pod("x"), "b");
  const uint64_t id = snapshot.journal().id();
  EXPECT_EQ(snapshot.journal().revision(), 1u);
  EXPECT_EQ(snapshot.generation(), 1u);

  auto c = node("c");
  snapshot.add_node(c);
  ASSERT_EQ(snapshot.size(), 3u);
  EXPECT_EQ(snapshot.at(2).node_ptr(), c);
  EXPECT_EQ(snapshot.index_of("c"), 2u);
  EXPECT_EQ(snapshot.find("c"), &snapshot.node_infos()[2]);
  EXPECT_TRUE(snapshot.at(2).pods().empty());
  EXPECT_EQ(snapshot.index_of("a"), 0u);
  EXPECT_EQ(snapshot.node_of_pod("uid-default-x"), &snapshot.at(1));
  EXPECT_EQ(snapshot.nodes_with_pods(Snapshot::NodePods::kAny), (std::vector<size_t>{0, 1}));
  EXPECT_NE(snapshot.journal().id(), id);
  EXPECT_EQ(snapshot.journal().revision(), 0u);
  EXPECT_EQ(snapshot.generation(), 2u);

  // Positions in the new timeline count from the new node list.
  const auto y = snapshot.assume(*pod("y"), "c");
  ASSERT_EQ(snapshot.journal().revision(), 1u);
  EXPECT_EQ(snapshot.journal().at(0).pod, y);
  EXPECT_EQ(snapshot.journal().at(0).node_index, 2u);
  EXPECT_EQ(snapshot.nodes_with_pods(Snapshot::NodePods::kAny), (std::vector<size_t>{0, 1, 2}));

  // A refused node changes nothing, not even the timeline.
  const uint64_t id2 = snapshot.journal().id();
  EXPECT_EQ(error_of([&] { snapshot.add_node(node("a")); }), "Snapshot: duplicate node \"a\"");
  EXPECT_EQ(error_of([&] { snapshot.add_node(nullptr); }), "Snapshot: null node");
  EXPECT_EQ(snapshot.size(), 3u);
  EXPECT_EQ(snapshot.journal().id(), id2);
  EXPECT_EQ(snapshot.journal().revision(), 1u);
  EXPECT_EQ(snapshot.generation(), 3u);

  Snapshot empty;
  empty.add_node(node("only"));
  EXPECT_EQ(empty.index_of("only"), 0u);
  EXPECT_EQ(empty.generation(), 1u);
}

TEST(SnapshotTest, UpdateNodeKeepsItsPodsAndStartsANewTimeline) {
  auto a1 = make_pod("a1", "a", Kind::kPlain, "300m");
  auto a2 = make_pod("a2", "a", Kind::kRequiredAntiAffinity, "200m");
  Snapshot snapshot({make_node("a", "z1", "2"), make_node("b", "z1", "2")}, {a1, a2});
  const auto x = snapshot.assume(*make_pod("x", "", Kind::kAffinity, "1"), "a");
  const uint64_t id = snapshot.journal().id();
  const uint64_t node_generation = snapshot.at(0).generation();

  auto a = make_node("a", "z2", "8");
  snapshot.update_node(a);
  ASSERT_EQ(snapshot.size(), 2u);
  EXPECT_EQ(snapshot.at(0).node_ptr(), a);
  EXPECT_EQ(*snapshot.at(0).node().labels().find("zone"), "z2");
  EXPECT_EQ(snapshot.at(0).allocatable(), (ResourceList{{"cpu", 8000}}));
  EXPECT_EQ(snapshot.at(0).pods(), (std::vector<NodeInfo::PodPtr>{a1, a2, x}));
  EXPECT_EQ(snapshot.at(0).pods_with_affinity(), (std::vector<NodeInfo::PodPtr>{a2, x}));
  EXPECT_EQ(snapshot.at(0).pods_with_required_anti_affinity(), (std::vector<NodeInfo::PodPtr>{a2}));
  EXPECT_EQ(snapshot.at(0).requested(), (ResourceList{{"cpu", 1500}}));
  EXPECT_NE(snapshot.at(0).generation(), node_generation);  // plugins caching by it see a change
  EXPECT_EQ(snapshot.index_of("a"), 0u);
  EXPECT_EQ(snapshot.node_of_pod("uid-default-x"), &snapshot.at(0));
  EXPECT_EQ(snapshot.nodes_with_pods(Snapshot::NodePods::kAny), (std::vector<size_t>{0}));
  EXPECT_EQ(snapshot.nodes_with_pods(Snapshot::NodePods::kWithAffinity), (std::vector<size_t>{0}));
  EXPECT_NE(snapshot.journal().id(), id);
  EXPECT_EQ(snapshot.journal().revision(), 0u);
  EXPECT_EQ(snapshot.generation(), 2u);

  // Its pods come and go as before.
  EXPECT_TRUE(snapshot.remove("uid-default-a1"));
  EXPECT_EQ(snapshot.at(0).requested(), (ResourceList{{"cpu", 1200}}));

  const uint64_t id2 = snapshot.journal().id();
  EXPECT_EQ(error_of([&] { snapshot.update_node(node("nope")); }),
            "Snapshot: cannot update unknown node \"nope\"");
  EXPECT_EQ(error_of([&] { snapshot.update_node(nullptr); }), "Snapshot: null node");
  EXPECT_EQ(snapshot.journal().id(), id2);
  EXPECT_EQ(snapshot.journal().revision(), 1u);
  EXPECT_EQ(snapshot.generation(), 3u);
}

TEST(SnapshotTest, RemoveNodeShiftsTheNodesAfterIt) {
  using Kind = Snapshot::NodePods;
  Snapshot snapshot(
      {node("a"), node("b"), node("c"), node("d"), node("e")},
      {pod("a1", "a"), anti_affinity_pod("b1", "b"), pod("b2", "b"),
       make_pod("c1", "c", ::schedhost::cluster::Kind::kAffinity), anti_affinity_pod("e1", "e")});
  EXPECT_EQ(snapshot.nodes_with_pods(Kind::kAny), (std::vector<size_t>{0, 1, 2, 4}));
  EXPECT_EQ(snapshot.nodes_with_pods(Kind::kWithAffinity), (std::vector<size_t>{1, 2, 4}));
  EXPECT_EQ(snapshot.nodes_with_pods(Kind::kWithRequiredAntiAffinity), (std::vector<size_t>{1, 4}));
  snapshot.assume(*pod("x"), "b");
  const uint64_t id = snapshot.journal().id();

  EXPECT_TRUE(snapshot.remove_node("b"));
  ASSERT_EQ(snapshot.size(), 4u);
  EXPECT_EQ(snapshot.at(0).name(), "a");
  EXPECT_EQ(snapshot.at(1).name(), "c");
  EXPECT_EQ(snapshot.at(2).name(), "d");
  EXPECT_EQ(snapshot.at(3).name(), "e");
  EXPECT_EQ(snapshot.index_of("b"), std::nullopt);
  EXPECT_EQ(snapshot.find("b"), nullptr);
  EXPECT_EQ(snapshot.index_of("c"), 1u);
  EXPECT_EQ(snapshot.index_of("e"), 3u);
  EXPECT_EQ(snapshot.find("e"), &snapshot.at(3));
  EXPECT_EQ(snapshot.node_of_pod("uid-default-a1"), &snapshot.at(0));
  EXPECT_EQ(snapshot.node_of_pod("uid-default-c1"), &snapshot.at(1));
  EXPECT_EQ(snapshot.node_of_pod("uid-default-e1"), &snapshot.at(3));
  EXPECT_EQ(snapshot.node_of_pod("uid-default-b1"), nullptr);
  EXPECT_EQ(snapshot.node_of_pod("uid-default-x"), nullptr);
  EXPECT_EQ(snapshot.nodes_with_pods(Kind::kAny), (std::vector<size_t>{0, 1, 3}));
  EXPECT_EQ(snapshot.nodes_with_pods(Kind::kWithAffinity), (std::vector<size_t>{1, 3}));
  EXPECT_EQ(snapshot.nodes_with_pods(Kind::kWithRequiredAntiAffinity), (std::vector<size_t>{3}));
  // The lost pods are not journaled: revision 0 of the new timeline is the cluster without them.
  EXPECT_NE(snapshot.journal().id(), id);
  EXPECT_EQ(snapshot.journal().revision(), 0u);
  EXPECT_EQ(snapshot.generation(), 2u);

  // Their uids are free again; unknown names change nothing.
  EXPECT_FALSE(snapshot.remove("uid-default-b1"));
  const auto b1 = snapshot.assume(*anti_affinity_pod("b1", ""), "d");
  ASSERT_EQ(snapshot.journal().revision(), 1u);
  EXPECT_EQ(snapshot.journal().at(0).pod, b1);
  EXPECT_EQ(snapshot.journal().at(0).node_index, 2u);
  EXPECT_EQ(snapshot.nodes_with_pods(Kind::kWithRequiredAntiAffinity), (std::vector<size_t>{2, 3}));
  const uint64_t id2 = snapshot.journal().id();
  EXPECT_FALSE(snapshot.remove_node("b"));
  EXPECT_EQ(snapshot.journal().id(), id2);
  EXPECT_EQ(snapshot.generation(), 3u);

  // The last node, then every node.
  EXPECT_TRUE(snapshot.remove_node("e"));
  EXPECT_EQ(snapshot.nodes_with_pods(Kind::kAny), (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(snapshot.nodes_with_pods(Kind::kWithRequiredAntiAffinity), (std::vector<size_t>{2}));
  for (const char* name : {"a", "c", "d"})
    EXPECT_TRUE(snapshot.remove_node(name));
  EXPECT_EQ(snapshot.size(), 0u);
  EXPECT_TRUE(snapshot.nodes_with_pods(Kind::kAny).empty());
  EXPECT_TRUE(snapshot.nodes_with_pods(Kind::kWithAffinity).empty());
  EXPECT_EQ(snapshot.node_of_pod("uid-default-b1"), nullptr);
  EXPECT_EQ(snapshot.generation(), 7u);
}

TEST(SnapshotTest, AddPodPlacesABoundPodAsIs) {
  using Kind = Snapshot::NodePods;
  Snapshot snapshot({node("a"), node("b")}, {});
  const uint64_t id = snapshot.journal().id();
  auto p = anti_affinity_pod("p", "b");
  snapshot.add_pod(p);
  EXPECT_EQ(snapshot.at(1).pods(), (std::vector<NodeInfo::PodPtr>{p}));  // the object, no copy
  EXPECT_EQ(snapshot.node_of_pod("uid-default-p"), &snapshot.at(1));
  EXPECT_EQ(snapshot.nodes_with_pods(Kind::kAny), (std::vector<size_t>{1}));
  EXPECT_EQ(snapshot.nodes_with_pods(Kind::kWithRequiredAntiAffinity), (std::vector<size_t>{1}));
  EXPECT_EQ(snapshot.journal().id(), id);
  ASSERT_EQ(snapshot.journal().revision(), 1u);
  EXPECT_EQ(snapshot.journal().at(0).pod, p);
  EXPECT_EQ(snapshot.journal().at(0).node_index, 1u);
  EXPECT_EQ(snapshot.journal().at(0).delta, +1);
  auto q = pod("q", "a");
  snapshot.add_pod(q);
  EXPECT_EQ(snapshot.at(0).requested(), (ResourceList{{"cpu", 100}}));
  EXPECT_EQ(snapshot.generation(), 2u);

  EXPECT_EQ(error_of([&] { snapshot.add_pod(pod("r")); }),
            "Snapshot: pod \"default/r\" is not bound to a node");
  EXPECT_EQ(error_of([&] { snapshot.add_pod(pod("r", "nope")); }),
            "Snapshot: pod \"default/r\" is bound to unknown node \"nope\"");
  EXPECT_EQ(error_of([&] { snapshot.add_pod(pod("q", "b")); }),
            "Snapshot: pod uid \"uid-default-q\" is already placed");
  snapshot.assume(*pod("s"), "a");  // an assumed pod is placed too
  EXPECT_EQ(error_of([&] { snapshot.add_pod(pod("s", "a")); }),
            "Snapshot: pod uid \"uid-default-s\" is already placed");
  EXPECT_EQ(error_of([&] { snapshot.add_pod(nullptr); }), "Snapshot: null pod");
  EXPECT_EQ(snapshot.at(0).pods().size(), 2u);
  EXPECT_EQ(snapshot.at(1).pods().size(), 1u);
  EXPECT_EQ(snapshot.journal().revision(), 3u);
  EXPECT_EQ(snapshot.generation(), 3u);
}

TEST(SnapshotTest, ReplacePodSwapsTheObjectAndJournalsBoth) {
  using NodePods = Snapshot::NodePods;
  auto p1 = make_pod("p1", "a", Kind::kPlain, "100m");
  auto p2 = make_pod("p2", "a", Kind::kPlain, "200m");
  Snapshot snapshot({node("a"), node("b")}, {p1, p2});
  const uint64_t id = snapshot.journal().id();

  // New labels, requests and affinity on the same node: the node's sums follow.
  auto p1_new = make_pod("p1", "a", Kind::kRequiredAntiAffinity, "500m", "db");
  EXPECT_TRUE(snapshot.replace_pod(p1_new));
  EXPECT_EQ(snapshot.at(0).pods(), (std::vector<NodeInfo::PodPtr>{p2, p1_new}));
  EXPECT_EQ(snapshot.at(0).pods_with_required_anti_affinity(),
            (std::vector<NodeInfo::PodPtr>{p1_new}));
  EXPECT_EQ(snapshot.at(0).requested(), (ResourceList{{"cpu", 700}}));
  EXPECT_EQ(snapshot.at(0).nonzero_requested(),
            (ResourceList{{"cpu", 700}, {"memory", 2 * 200 * 1024 * 1024}}));
  EXPECT_EQ(snapshot.node_of_pod("uid-default-p1"), &snapshot.at(0));
  EXPECT_EQ(snapshot.nodes_with_pods(NodePods::kWithAffinity), (std::vector<size_t>{0}));
  EXPECT_EQ(snapshot.nodes_with_pods(NodePods::kWithRequiredAntiAffinity),
            (std::vector<size_t>{0}));
  EXPECT_EQ(snapshot.journal().id(), id);  // pods only: the same timeline
  ASSERT_EQ(snapshot.journal().revision(), 2u);
  EXPECT_EQ(snapshot.journal().at(0).pod, p1);
  EXPECT_EQ(snapshot.journal().at(0).node_index, 0u);
  EXPECT_EQ(snapshot.journal().at(0).delta, -1);
  EXPECT_EQ(snapshot.journal().at(1).pod, p1_new);
  EXPECT_EQ(snapshot.journal().at(1).node_index, 0u);
  EXPECT_EQ(snapshot.journal().at(1).delta, +1);
  EXPECT_EQ(snapshot.generation(), 1u);

  // Back to a plain pod: the node leaves the affinity lists.
  auto p1_plain = make_pod("p1", "a", Kind::kPlain, "0");
  EXPECT_TRUE(snapshot.replace_pod(p1_plain));
  EXPECT_EQ(snapshot.at(0).requested(), (ResourceList{{"cpu", 200}}));
  EXPECT_TRUE(snapshot.nodes_with_pods(NodePods::kWithAffinity).empty());
  EXPECT_TRUE(snapshot.nodes_with_pods(NodePods::kWithRequiredAntiAffinity).empty());
  EXPECT_EQ(snapshot.nodes_with_pods(NodePods::kAny), (std::vector<size_t>{0}));
  EXPECT_EQ(snapshot.journal().revision(), 4u);

  // The informer's copy of an assumed pod confirms it.
  const auto assumed = snapshot.assume(*pod("web"), "b");
  auto informed = pod("web", "b");
  EXPECT_TRUE(snapshot.replace_pod(informed));
  EXPECT_EQ(snapshot.at(1).pods(), (std::vector<NodeInfo::PodPtr>{informed}));
  ASSERT_EQ(snapshot.journal().revision(), 7u);
  EXPECT_EQ(snapshot.journal().at(5).pod, assumed);
  EXPECT_EQ(snapshot.journal().at(5).delta, -1);
  EXPECT_EQ(snapshot.journal().at(6).pod, informed);
  EXPECT_EQ(snapshot.journal().at(6).delta, +1);
  EXPECT_EQ(snapshot.generation(), 4u);

  // Unknown uids and moves change nothing.
  EXPECT_FALSE(snapshot.replace_pod(pod("ghost", "a")));
  EXPECT_EQ(error_of([&] { snapshot.replace_pod(pod("web", "a")); }),
            "Snapshot: pod \"default/web\" is on node \"b\", its update names node \"a\"");
  EXPECT_EQ(error_of([&] { snapshot.replace_pod(pod("web")); }),
            "Snapshot: pod \"default/web\" is on node \"b\", its update names node \"\"");
  EXPECT_EQ(error_of([&] { snapshot.replace_pod(nullptr); }), "Snapshot: null pod");
  EXPECT_EQ(snapshot.at(1).pods(), (std::vector<NodeInfo::PodPtr>{informed}));
  EXPECT_EQ(snapshot.journal().revision(), 7u);
  EXPECT_EQ(snapshot.generation(), 4u);
}

TEST(SnapshotTest, NodeChangesCountImagesAsUpstreamsCacheDoes) {
  const std::string nginx = R"([{names: ["nginx:1.25"], sizeBytes: 100}])";
  Snapshot snapshot({node("a", nginx), node("b", nginx)}, {});
  EXPECT_EQ(snapshot.at(0).image_states(), (ImageStates{{"nginx:1.25", 100, 2}}));

  // The new node counts itself; the others keep their (now stale) counts.
  snapshot.add_node(node("c", nginx));
  EXPECT_EQ(snapshot.at(2).image_states(), (ImageStates{{"nginx:1.25", 100, 3}}));
  EXPECT_EQ(snapshot.at(0).image_states(), (ImageStates{{"nginx:1.25", 100, 2}}));

  // A removed node no longer counts for the nodes added or updated after.
  EXPECT_TRUE(snapshot.remove_node("a"));
  snapshot.add_node(node("d", R"([{names: ["nginx:1.25", redis], sizeBytes: 100}])"));
  EXPECT_EQ(snapshot.at(2).image_states(),
            (ImageStates{{"nginx:1.25", 100, 3}, {"redis", 100, 1}}));
  EXPECT_EQ(snapshot.at(1).image_states(), (ImageStates{{"nginx:1.25", 100, 3}}));  // c: stale

  // An update recounts the node's own images, without it counting twice.
  snapshot.update_node(node("b", R"([{names: ["nginx:1.25"], sizeBytes: 90},
                                     {names: [redis, "redis:7"], sizeBytes: 7}])"));
  EXPECT_EQ(snapshot.at(0).image_states(),
            (ImageStates{{"nginx:1.25", 90, 3}, {"redis", 7, 2}, {"redis:7", 7, 1}}));
  snapshot.update_node(node("b"));
  EXPECT_TRUE(snapshot.at(0).image_states().empty());
  snapshot.update_node(node("c", nginx));
  EXPECT_EQ(snapshot.at(1).image_states(), (ImageStates{{"nginx:1.25", 100, 2}}));  // c and d

  // A copy counts on its own.
  Snapshot copy = snapshot;
  copy.add_node(node("e", R"([{names: [redis], sizeBytes: 7}])"));
  snapshot.add_node(node("e", R"([{names: ["nginx:1.25"], sizeBytes: 100}])"));
  EXPECT_EQ(copy.at(3).image_states(), (ImageStates{{"redis", 7, 2}}));
  EXPECT_EQ(snapshot.at(3).image_states(), (ImageStates{{"nginx:1.25", 100, 3}}));
}

TEST(SnapshotTest, GenerationCountsEveryChange) {
  Snapshot snapshot({node("a"), node("b")}, {pod("a1", "a")});
  EXPECT_EQ(snapshot.generation(), 0u);
  snapshot.set_namespaces({});
  EXPECT_EQ(snapshot.generation(), 1u);
  snapshot.set_pod_disruption_budgets({});
  EXPECT_EQ(snapshot.generation(), 2u);
  snapshot.assume(*pod("x"), "b");
  EXPECT_EQ(snapshot.generation(), 3u);
  EXPECT_TRUE(snapshot.remove("uid-default-x"));
  EXPECT_FALSE(snapshot.remove("uid-default-x"));
  EXPECT_EQ(snapshot.generation(), 4u);
  snapshot.add_pod(pod("y", "b"));
  EXPECT_TRUE(snapshot.replace_pod(pod("y", "b")));
  EXPECT_FALSE(snapshot.replace_pod(pod("z", "b")));
  EXPECT_EQ(snapshot.generation(), 6u);
  snapshot.add_node(node("c"));
  snapshot.update_node(node("c"));
  EXPECT_TRUE(snapshot.remove_node("c"));
  EXPECT_FALSE(snapshot.remove_node("c"));
  EXPECT_EQ(snapshot.generation(), 9u);

  // A copy starts where its source is, then each counts its own changes.
  Snapshot copy = snapshot;
  EXPECT_EQ(copy.generation(), 9u);
  copy.remove_node("a");
  EXPECT_EQ(copy.generation(), 10u);
  EXPECT_EQ(snapshot.generation(), 9u);
  EXPECT_EQ(snapshot.size(), 2u);
}

// A plugin's data kept across cycles, the way PodTopologySpread keeps its counts: per node, how
// many pods are labeled app=web, tagged (journal id, revision); brought up to date by replaying
// the journal, or recounted when the journal is another timeline.
struct KeptWebCounts {
  uint64_t id = 0;
  uint64_t revision = 0;
  std::vector<int64_t> per_node;
  int recounts = 0;

  static bool is_web(const Pod& pod) {
    const std::string* app = pod.labels().find("app");
    return app != nullptr && *app == "web";
  }

  void catch_up(const Snapshot& snapshot) {
    const SnapshotJournal& journal = snapshot.journal();
    if (journal.id() != id) {
      per_node.assign(snapshot.size(), 0);
      for (size_t i = 0; i < snapshot.size(); ++i) {
        for (const auto& pod : snapshot.at(i).pods())
          per_node[i] += is_web(*pod) ? 1 : 0;
      }
      id = journal.id();
      ++recounts;
    } else {
      for (uint64_t k = revision; k < journal.revision(); ++k) {
        const SnapshotJournal::Change& change = journal.at(k);
        if (is_web(*change.pod)) per_node.at(change.node_index) += change.delta;
      }
    }
    revision = journal.revision();
  }
};

// The cluster the property test expects: nodes in order, each node's pods in order.
struct Model {
  std::vector<std::shared_ptr<const Node>> nodes;
  std::map<std::string, std::vector<NodeInfo::PodPtr>> pods;  // by node name

  std::optional<size_t> position(const std::string& name) const {
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (nodes[i]->name() == name) return i;
    }
    return std::nullopt;
  }
  // The node holding that uid, "" when none.
  std::string node_of(const std::string& uid) const {
    for (const auto& [name, list] : pods) {
      for (const auto& pod : list) {
        if (pod->uid() == uid) return name;
      }
    }
    return "";
  }
  void erase_pod(const std::string& uid) {
    for (auto& [name, list] : pods) {
      std::erase_if(list, [&](const NodeInfo::PodPtr& p) { return p->uid() == uid; });
    }
  }
  Snapshot rebuild() const {
    std::vector<NodeInfo::PodPtr> all;
    for (const auto& node : nodes) {
      auto it = pods.find(node->name());
      if (it != pods.end()) all.insert(all.end(), it->second.begin(), it->second.end());
    }
    return Snapshot(nodes, all);
  }
};

void expect_same_cluster(const Snapshot& live, const Snapshot& rebuilt,
                         const std::set<std::string>& uids) {
  ASSERT_EQ(live.size(), rebuilt.size());
  for (size_t i = 0; i < live.size(); ++i) {
    const NodeInfo& a = live.at(i);
    const NodeInfo& b = rebuilt.at(i);
    SCOPED_TRACE("node " + a.name());
    EXPECT_EQ(a.node_ptr(), b.node_ptr());
    EXPECT_EQ(live.index_of(a.name()), i);
    EXPECT_EQ(live.find(a.name()), &a);
    EXPECT_EQ(a.pods(), b.pods());
    EXPECT_EQ(a.pods_with_affinity(), b.pods_with_affinity());
    EXPECT_EQ(a.pods_with_required_anti_affinity(), b.pods_with_required_anti_affinity());
    EXPECT_EQ(a.requested(), b.requested());
    EXPECT_EQ(a.nonzero_requested(), b.nonzero_requested());
    EXPECT_EQ(a.allocatable(), b.allocatable());
  }
  for (auto which : {Snapshot::NodePods::kAny, Snapshot::NodePods::kWithAffinity,
                     Snapshot::NodePods::kWithRequiredAntiAffinity}) {
    EXPECT_EQ(live.nodes_with_pods(which), rebuilt.nodes_with_pods(which));
  }
  for (const std::string& uid : uids) {
    const NodeInfo* a = live.node_of_pod(uid);
    const NodeInfo* b = rebuilt.node_of_pod(uid);
    ASSERT_EQ(a == nullptr, b == nullptr) << uid;
    if (a != nullptr) {
      EXPECT_EQ(a->name(), b->name()) << uid;
    }
  }
}

TEST(SnapshotTest, MutationsMatchARebuildFromScratch) {
  constexpr int kNodeNames = 8;  // a small pool, so names collide and come back
  constexpr int kSteps = 300;
  const std::vector<std::string> images = {
      "[]", R"([{names: [nginx], sizeBytes: 10}])",
      R"([{names: [nginx, redis], sizeBytes: 10}, {names: [redis], sizeBytes: 5}])"};
  const std::vector<std::string> cpus = {"0", "100m", "250m", "1"};
  int operations[7] = {};
  int refused = 0;
  for (uint32_t seed = 1; seed <= 10; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    auto pick = [&rng](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
    auto node_name = [&] { return "n" + std::to_string(pick(kNodeNames)); };
    auto random_node = [&](const std::string& name) {
      return make_node(name, "z" + std::to_string(pick(3)), std::to_string(1 + pick(4)),
                       images[pick(images.size())]);
    };
    int next_pod = 0;
    std::set<std::string> uids;  // every uid used, placed or not
    // A placed pod's name, or a never-used one (so the operation is refused).
    auto placed_or_ghost = [&](const Model& model) -> std::string {
      std::vector<std::string> names;
      for (const auto& [node, list] : model.pods) {
        for (const auto& pod : list)
          names.push_back(pod->name());
      }
      if (names.empty() || pick(8) == 0) return "ghost";
      return names[pick(names.size())];
    };
    auto random_pod = [&](const std::string& name, const std::string& node) {
      uids.insert("uid-default-" + name);
      return make_pod(name, node, static_cast<Kind>(pick(3)), cpus[pick(cpus.size())],
                      pick(2) == 0 ? "web" : "db");
    };

    Model model;
    for (int i = 0; i < 3; ++i)
      model.nodes.push_back(random_node("n" + std::to_string(i)));
    for (int i = 0; i < 4; ++i) {
      const std::string name = "p" + std::to_string(next_pod++);
      model.pods["n" + std::to_string(i % 3)].push_back(
          random_pod(name, "n" + std::to_string(i % 3)));
    }
    Snapshot live = model.rebuild();
    KeptWebCounts kept;
    kept.catch_up(live);
    uint64_t generation = live.generation();

    for (int step = 0; step < kSteps; ++step) {
      SCOPED_TRACE("step " + std::to_string(step));
      const uint64_t id = live.journal().id();
      const uint64_t revision = live.journal().revision();
      const size_t op = pick(7);
      ++operations[op];
      bool changed = true;
      bool nodes_changed = false;
      uint64_t entries = 1;  // journal entries a pod change adds
      switch (op) {
        case 0: {  // add_node
          const std::string name = node_name();
          if (model.position(name)) {
            EXPECT_EQ(error_of([&] { live.add_node(random_node(name)); }),
                      "Snapshot: duplicate node \"" + name + "\"");
            changed = false;
            break;
          }
          model.nodes.push_back(random_node(name));
          live.add_node(model.nodes.back());
          nodes_changed = true;
          break;
        }
        case 1: {  // update_node
          const std::string name = node_name();
          auto position = model.position(name);
          if (!position) {
            EXPECT_THROW(live.update_node(random_node(name)), std::invalid_argument);
            changed = false;
            break;
          }
          model.nodes[*position] = random_node(name);
          live.update_node(model.nodes[*position]);
          nodes_changed = true;
          break;
        }
        case 2: {  // remove_node
          const std::string name = node_name();
          auto position = model.position(name);
          EXPECT_EQ(live.remove_node(name), position.has_value());
          if (!position) {
            changed = false;
            break;
          }
          model.nodes.erase(model.nodes.begin() + static_cast<std::ptrdiff_t>(*position));
          model.pods.erase(name);
          nodes_changed = true;
          break;
        }
        case 3: {  // add_pod: a new pod, or a placed uid (refused)
          std::string name =
              pick(6) == 0 ? placed_or_ghost(model) : "p" + std::to_string(next_pod++);
          const std::string node = node_name();
          auto pod = random_pod(name, node);
          if (!model.position(node) || !model.node_of(pod->uid()).empty()) {
            EXPECT_THROW(live.add_pod(pod), std::invalid_argument);
            changed = false;
            break;
          }
          model.pods[node].push_back(pod);
          live.add_pod(pod);
          break;
        }
        case 4: {  // replace_pod: same node, or another node now and then (refused)
          const std::string name = placed_or_ghost(model);
          const std::string uid = "uid-default-" + name;
          const std::string node = model.node_of(uid);
          const std::string target = node.empty() || pick(6) == 0 ? node_name() : node;
          auto pod = random_pod(name, target);
          if (node.empty()) {
            EXPECT_FALSE(live.replace_pod(pod));
            changed = false;
          } else if (target != node) {
            EXPECT_THROW(live.replace_pod(pod), std::invalid_argument);
            changed = false;
          } else {
            model.erase_pod(uid);
            model.pods[node].push_back(pod);
            EXPECT_TRUE(live.replace_pod(pod));
            entries = 2;
          }
          break;
        }
        case 5: {  // remove
          const std::string uid = "uid-default-" + placed_or_ghost(model);
          const bool placed = !model.node_of(uid).empty();
          EXPECT_EQ(live.remove(uid), placed);
          model.erase_pod(uid);
          changed = placed;
          break;
        }
        case 6: {  // assume a pending pod
          const std::string name = "p" + std::to_string(next_pod++);
          const std::string node = node_name();
          auto pending = random_pod(name, "");
          if (!model.position(node)) {
            EXPECT_THROW(live.assume(*pending, node), std::invalid_argument);
            changed = false;
            break;
          }
          model.pods[node].push_back(live.assume(*pending, node));
          break;
        }
      }
      if (!changed) ++refused;

      // The snapshot's own bookkeeping: generation, and which timeline it is on.
      if (changed) ++generation;
      EXPECT_EQ(live.generation(), generation);
      if (nodes_changed) {
        EXPECT_NE(live.journal().id(), id);
        EXPECT_EQ(live.journal().revision(), 0u);
      } else {
        EXPECT_EQ(live.journal().id(), id);
        EXPECT_EQ(live.journal().revision(), revision + (changed ? entries : 0));
      }

      // The same cluster as a rebuild, and a plugin replaying the journal counts as a recount.
      const Snapshot rebuilt = model.rebuild();
      expect_same_cluster(live, rebuilt, uids);
      kept.catch_up(live);
      KeptWebCounts fresh;
      fresh.catch_up(rebuilt);
      EXPECT_EQ(kept.per_node, fresh.per_node);
      if (HasFailure()) return;
    }
    EXPECT_LT(kept.recounts, kSteps);  // most steps were replayed, not recounted
  }
  for (int count : operations)
    EXPECT_GT(count, 100);  // every operation was exercised
  EXPECT_GT(refused, 100);  // and refused operations too
}

TEST(SnapshotTest, RefusesInconsistentInput) {
  EXPECT_THROW(Snapshot({node("a"), node("a")}, {}), std::invalid_argument);
  EXPECT_THROW(Snapshot({node("a")}, {pod("p", "b")}), std::invalid_argument);
  EXPECT_THROW(Snapshot({node("a")}, {pod("p", "a"), pod("p", "a")}), std::invalid_argument);
}

}  // namespace
}  // namespace schedhost::cluster
