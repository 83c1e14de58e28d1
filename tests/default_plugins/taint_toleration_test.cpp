// TaintToleration: the real built-in .so, with the cases of upstream's unit tests (kubernetes
// 1.28 pkg/scheduler/framework/plugins/tainttoleration): Filter verdicts and reasons, and the
// normalized scores of PreScore + Score + NormalizeScore.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hook_runner.hpp"

namespace schedhost {
namespace {

using testing::Cycle;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::IsEmpty;
using testing::Json;
using testing::node_with;
using testing::PluginHarness;
using testing::pod_with_spec;

Json taint(const char* key, const char* value, const char* effect) {
  return {{"key", key}, {"value", value}, {"effect", effect}};
}

Json tolerations(Json list) {
  return {{"tolerations", std::move(list)}};
}

std::shared_ptr<const cluster::Node> tainted(const std::string& name, Json taints) {
  return node_with(name, Json::object(), {{"taints", std::move(taints)}});
}

class TaintTolerationTest : public ::testing::Test {
 protected:
  PluginHarness harness_{"taint_toleration.so"};
  std::unique_ptr<framework::PluginInstance> plugin_ = harness_.create("TaintToleration", "{}");
};

TEST_F(TaintTolerationTest, FilterLikeUpstream) {
  struct Case {
    const char* name;
    Json pod_spec;
    Json taints;
    std::vector<std::string> reasons;  // empty: Success
  };
  const std::vector<Case> cases = {
      {"a pod having no tolerations can't be scheduled onto a node with nonempty taints",
       tolerations(Json::array()),
       {taint("dedicated", "user1", "NoSchedule")},
       {"node(s) had untolerated taint(s)"}},
      {"a pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule",
       tolerations({{{"key", "dedicated"}, {"value", "user1"}, {"effect", "NoSchedule"}}}),
       {taint("dedicated", "user1", "NoSchedule")},
       {}},
      {"a pod which can't be scheduled on a dedicated node assigned to user2 with effect "
       "NoSchedule",
       tolerations({{{"key", "dedicated"},
                     {"operator", "Equal"},
                     {"value", "user2"},
                     {"effect", "NoSchedule"}}}),
       {taint("dedicated", "user1", "NoSchedule")},
       {"node(s) had untolerated taint(s)"}},
      {"a toleration using operator Exists tolerates the taint",
       tolerations({{{"key", "foo"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}}),
       {taint("foo", "bar", "NoSchedule")},
       {}},
      {"multiple tolerations tolerate multiple taints",
       tolerations({{{"key", "dedicated"},
                     {"operator", "Equal"},
                     {"value", "user2"},
                     {"effect", "NoSchedule"}},
                    {{"key", "foo"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}}),
       {taint("dedicated", "user2", "NoSchedule"), taint("foo", "bar", "NoSchedule")},
       {}},
      {"key and value match but the (non-empty) effect doesn't",
       tolerations({{{"key", "foo"},
                     {"operator", "Equal"},
                     {"value", "bar"},
                     {"effect", "PreferNoSchedule"}}}),
       {taint("foo", "bar", "NoSchedule")},
       {"node(s) had untolerated taint(s)"}},
      {"an empty toleration effect matches NoSchedule",
       tolerations({{{"key", "foo"}, {"operator", "Equal"}, {"value", "bar"}}}),
       {taint("foo", "bar", "NoSchedule")},
       {}},
      {"a PreferNoSchedule taint never fails Filter",
       tolerations({{{"key", "dedicated"},
                     {"operator", "Equal"},
                     {"value", "user2"},
                     {"effect", "NoSchedule"}}}),
       {taint("dedicated", "user1", "PreferNoSchedule")},
       {}},
      {"no toleration, PreferNoSchedule taint",
       tolerations(Json::array()),
       {taint("dedicated", "user1", "PreferNoSchedule")},
       {}},
      {"NoExecute taints count; the first untolerated one in node order is reported",
       tolerations({{{"key", "a"}, {"operator", "Exists"}}}),
       {taint("a", "1", "NoExecute"), taint("b", "", "PreferNoSchedule"),
        taint("c", "", "NoExecute"), taint("d", "4", "NoSchedule")},
       {"node(s) had untolerated taint(s)"}},
      {"empty key with Exists tolerates everything",
       tolerations({{{"operator", "Exists"}}}),
       {taint("a", "1", "NoExecute"), taint("d", "4", "NoSchedule")},
       {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Cycle cycle(*plugin_, cluster::Snapshot({tainted("nodeA", c.taints)}, {}),
                pod_with_spec(c.pod_spec));
    const auto out = cycle.filter("nodeA");
    if (c.reasons.empty()) {
      EXPECT_EQ(out.code, SCHEDHOST_SUCCESS);
      EXPECT_THAT(out.reasons, IsEmpty());
    } else {
      EXPECT_EQ(out.code, SCHEDHOST_UNSCHEDULABLE_AND_UNRESOLVABLE);
      EXPECT_EQ(out.reasons, c.reasons);
    }
  }
}

TEST_F(TaintTolerationTest, ScoreLikeUpstream) {
  struct Case {
    const char* name;
    Json pod_spec;
    std::vector<Json> node_taints;  // nodeA, nodeB, ...
    std::vector<std::int64_t> scores;
  };
  const Json prefer_foo_bar = tolerations(
      {{{"key", "foo"}, {"operator", "Equal"}, {"value", "bar"}, {"effect", "PreferNoSchedule"}}});
  const std::vector<Case> cases = {
      {"a node with taints tolerated by the pod scores higher than one with intolerable taints",
       prefer_foo_bar,
       {{taint("foo", "bar", "PreferNoSchedule")}, {taint("foo", "blah", "PreferNoSchedule")}},
       {100, 0}},
      {"nodes whose taints are all tolerated score the same, however many they have",
       tolerations({{{"key", "cpu-type"},
                     {"operator", "Equal"},
                     {"value", "arm64"},
                     {"effect", "PreferNoSchedule"}},
                    {{"key", "disk-type"},
                     {"operator", "Equal"},
                     {"value", "ssd"},
                     {"effect", "PreferNoSchedule"}}}),
       {Json::array(),
        {taint("cpu-type", "arm64", "PreferNoSchedule")},
        {taint("cpu-type", "arm64", "PreferNoSchedule"),
         taint("disk-type", "ssd", "PreferNoSchedule")}},
       {100, 100, 100}},
      {"the more intolerable taints a node has, the lower it scores",
       prefer_foo_bar,
       {Json::array(),
        {taint("cpu-type", "arm64", "PreferNoSchedule")},
        {taint("cpu-type", "arm64", "PreferNoSchedule"),
         taint("disk-type", "ssd", "PreferNoSchedule")}},
       {100, 50, 0}},
      {"only PreferNoSchedule taints and tolerations count",
       tolerations({{{"key", "cpu-type"},
                     {"operator", "Equal"},
                     {"value", "arm64"},
                     {"effect", "NoSchedule"}},
                    {{"key", "disk-type"},
                     {"operator", "Equal"},
                     {"value", "ssd"},
                     {"effect", "NoSchedule"}}}),
       {Json::array(),
        {taint("cpu-type", "arm64", "NoSchedule")},
        {taint("cpu-type", "arm64", "PreferNoSchedule"),
         taint("disk-type", "ssd", "PreferNoSchedule")}},
       {100, 100, 0}},
      {"no taints and no tolerations: lands on the node with no taints",
       tolerations(Json::array()),
       {Json::array(), {taint("cpu-type", "arm64", "PreferNoSchedule")}},
       {100, 0}},
      {"a toleration with an empty effect counts for PreferNoSchedule",
       tolerations({{{"key", "cpu-type"}, {"operator", "Exists"}}}),
       {{taint("cpu-type", "arm64", "PreferNoSchedule")},
        {taint("cpu-type", "arm64", "PreferNoSchedule"), taint("x", "", "PreferNoSchedule"),
         taint("y", "", "PreferNoSchedule")},
        {taint("x", "", "PreferNoSchedule")}},
       {100, 0, 50}},
      {"three intolerable taints against one: 100 - 100*1/3",
       tolerations(Json::array()),
       {{taint("a", "", "PreferNoSchedule")},
        {taint("a", "", "PreferNoSchedule"), taint("b", "", "PreferNoSchedule"),
         taint("c", "", "PreferNoSchedule")}},
       {67, 0}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<std::shared_ptr<const cluster::Node>> nodes;
    for (std::size_t i = 0; i < c.node_taints.size(); ++i) {
      nodes.push_back(tainted(std::string("node") + static_cast<char>('A' + i), c.node_taints[i]));
    }
    Cycle cycle(*plugin_, cluster::Snapshot(nodes, {}), pod_with_spec(c.pod_spec));
    const auto out = cycle.scores();
    ASSERT_EQ(out.code, SCHEDHOST_SUCCESS) << ::testing::PrintToString(out.reasons);
    EXPECT_THAT(out.scores, ElementsAreArray(c.scores));
  }
}

TEST_F(TaintTolerationTest, ScoreWithoutPreScoreStateIsAnError) {
  Cycle cycle(*plugin_, cluster::Snapshot({tainted("n", Json::array())}, {}),
              pod_with_spec(Json::object()));
  const auto out = cycle.score("n");
  EXPECT_EQ(out.code, SCHEDHOST_ERROR);
  EXPECT_THAT(out.reasons,
              ElementsAre("failed to read \"PreScoreTaintToleration\" from cycleState: not found"));
}

TEST_F(TaintTolerationTest, ExtensionPointsAndArgs) {
  const auto& def = harness_.definition("TaintToleration");
  EXPECT_NE(def.vtable.filter, nullptr);
  EXPECT_NE(def.vtable.pre_score, nullptr);
  EXPECT_NE(def.vtable.score, nullptr);
  EXPECT_NE(def.vtable.normalize_score, nullptr);
  EXPECT_EQ(def.vtable.pre_filter, nullptr);
  EXPECT_EQ(harness_.create_error("TaintToleration", R"({"x":1})"),
            "plugin \"TaintToleration\": this plugin takes no args");
}

}  // namespace
}  // namespace schedhost
