// Unit tests of NodeLabelFilter on the SDK's fake host: no schedhost process, no .so. The
// plugin's source is compiled into this test, so schedhost_plugin_library_v1() is its own.
#include <gtest/gtest.h>
#include <schedhost/testing.hpp>

#include <string>
#include <vector>

namespace {

using schedhost::Code;
using namespace schedhost::testing;

constexpr const char* kArgs =
    R"({"requiredLabel": "example.com/pool", "scoreLabel": "example.com/rank"})";

class NodeLabelFilterTest : public ::testing::Test {
 protected:
  NodeLabelFilterTest() {
    host_.add_node(FakeNode("node-a").allocatable("cpu", "4"))
        .add_node(
            FakeNode("node-b").label("example.com/pool", "batch").label("example.com/rank", "20"))
        .add_node(
            FakeNode("node-c").label("example.com/pool", "batch").label("example.com/rank", "80"))
        .add_node(
            FakeNode("node-d").label("example.com/pool", "").label("example.com/rank", "high"))
        .add_node(
            FakeNode("node-e").label("example.com/pool", "x").label("example.com/rank", "250"));
  }
  FakeHost host_{schedhost_plugin_library_v1()};
  FakeCycleState state_;
  FakePod pod_ = FakePod("web-1").request("cpu", "500m");
};

TEST_F(NodeLabelFilterTest, ImplementsFilterAndScore) {
  FakePlugin plugin = host_.create("NodeLabelFilter", kArgs);
  EXPECT_EQ(plugin.extension_points(), (std::vector<std::string>{"Filter", "Score"}));
}

TEST_F(NodeLabelFilterTest, FilterRejectsNodesWithoutTheLabel) {
  FakePlugin plugin = host_.create("NodeLabelFilter", kArgs);
  const HookResult rejected = plugin.filter(state_, pod_, "node-a");
  EXPECT_EQ(rejected.code, Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(rejected.reasons,
            std::vector<std::string>{"node(s) didn't have label example.com/pool"});
  EXPECT_EQ(plugin.filter(state_, pod_, "node-b").code, Code::Success);
  EXPECT_EQ(plugin.filter(state_, pod_, "node-d").code, Code::Success);  // an empty value counts
}

TEST_F(NodeLabelFilterTest, ScoreIsTheClampedNumericLabel) {
  FakePlugin plugin = host_.create("NodeLabelFilter", kArgs);
  const HookResult r = plugin.scores(state_, pod_);
  ASSERT_TRUE(r.ok()) << r;
  EXPECT_EQ(r.scores,
            (std::vector<NodeScore>{
                {"node-a", 0}, {"node-b", 20}, {"node-c", 80}, {"node-d", 0}, {"node-e", 100}}));
}

TEST_F(NodeLabelFilterTest, WithoutScoreLabelEveryNodeScoresZero) {
  FakePlugin plugin = host_.create("NodeLabelFilter", R"({"requiredLabel": "example.com/pool"})");
  EXPECT_EQ(plugin.score(state_, pod_, "node-c").score, 0);
}

// A pod Filter rejected waits in `schedhost serve` until a node is added or relabelled...
TEST_F(NodeLabelFilterTest, RegistersNodeAddAndLabelChanges) {
  FakePlugin plugin = host_.create("NodeLabelFilter", kArgs);
  EXPECT_EQ(plugin.events(),
            (std::vector<EventRegistration>{
                {"Node", SCHEDHOST_ACTION_ADD | SCHEDHOST_ACTION_UPDATE_NODE_LABEL}}));
}

// ...and is tried again only when that node has the required label.
TEST_F(NodeLabelFilterTest, QueuesOnlyForANodeWithTheLabel) {
  FakePlugin plugin = host_.create("NodeLabelFilter", kArgs);
  EXPECT_EQ(plugin.queueing_hint(pod_, FakeClusterEvent::node_add("node-b")).answer,
            SCHEDHOST_QUEUE);
  EXPECT_EQ(plugin.queueing_hint(pod_, FakeClusterEvent::node_add("node-a")).answer,
            SCHEDHOST_QUEUE_SKIP);
  // node-a as it was, then as it is after someone labelled it.
  const FakeClusterEvent labelled =
      FakeClusterEvent::node_update(SCHEDHOST_ACTION_UPDATE_NODE_LABEL, FakeNode("node-a"),
                                    FakeNode("node-a").label("example.com/pool", "batch"));
  EXPECT_EQ(plugin.queueing_hint(pod_, labelled).answer, SCHEDHOST_QUEUE);
  const FakeClusterEvent unlabelled = FakeClusterEvent::node_update(
      SCHEDHOST_ACTION_UPDATE_NODE_LABEL, FakeNode("node-b").label("example.com/pool", "batch"),
      FakeNode("node-b"));
  EXPECT_EQ(plugin.queueing_hint(pod_, unlabelled).answer, SCHEDHOST_QUEUE_SKIP);
}

TEST_F(NodeLabelFilterTest, RefusesBadArgs) {
  EXPECT_EQ(host_.create_error("NodeLabelFilter", "{}"), "requiredLabel is required");
  EXPECT_EQ(host_.create_error("NodeLabelFilter", R"({"requiredLabel": 3})"),
            "requiredLabel must be a non-empty string, got 3");
  EXPECT_EQ(host_.create_error("NodeLabelFilter", R"({"requiredLabel": "a", "weight": 1})"),
            "unknown arg \"weight\": the args are requiredLabel and scoreLabel");
  EXPECT_EQ(host_.create_error("NodeLabelFilter", kArgs), "");
}

// Upstream-style typed args: the host (and so the fake host) checks apiVersion and kind and
// removes them before the plugin sees its args.
TEST_F(NodeLabelFilterTest, TypedArgsReachThePluginWithoutApiVersionAndKind) {
  EXPECT_EQ(host_.create_error("NodeLabelFilter",
                               R"({"apiVersion": "kubescheduler.config.k8s.io/v1",
                                   "kind": "NodeLabelFilterArgs", "requiredLabel": "a"})"),
            "");
  EXPECT_EQ(host_.create_error("NodeLabelFilter", R"({"kind": "LabelArgs", "requiredLabel": "a"})"),
            "args: kind \"LabelArgs\" does not match plugin \"NodeLabelFilter\", whose args are "
            "NodeLabelFilterArgs: write kind: NodeLabelFilterArgs, or leave kind out");
}

}  // namespace
