// NodeAffinity: the real built-in .so, with the cases of upstream's unit tests (kubernetes 1.28
// pkg/scheduler/framework/plugins/nodeaffinity): PreFilter status and node narrowing, Filter
// verdicts and reasons (with and without PreFilter), the added affinity arg, normalized scores
// (with and without PreScore) and the messages args are refused with.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hook_runner.hpp"

namespace schedhost {
namespace {

using testing::Cycle;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::Json;
using testing::node_with;
using testing::PluginHarness;
using testing::pod_with_spec;

constexpr schedhost_code_t kSuccess = SCHEDHOST_SUCCESS;
constexpr schedhost_code_t kSkip = SCHEDHOST_SKIP;
constexpr schedhost_code_t kUU = SCHEDHOST_UNSCHEDULABLE_AND_UNRESOLVABLE;
constexpr const char* kErrReasonPod = "node(s) didn't match Pod's node affinity/selector";
constexpr const char* kErrReasonEnforced = "node(s) didn't match scheduler-enforced node affinity";
constexpr const char* kErrReasonConflict = "pod affinity terms conflict";

Json expr(const char* key, const char* op, const std::vector<std::string>& values = {}) {
  Json e = {{"key", key}, {"operator", op}};
  if (!values.empty()) e["values"] = values;
  return e;
}
Json name_in(const std::vector<std::string>& names) {
  return expr("metadata.name", "In", names);
}
Json term(Json expressions, Json fields = Json()) {
  Json t = Json::object();
  if (!expressions.is_null()) t["matchExpressions"] = std::move(expressions);
  if (!fields.is_null()) t["matchFields"] = std::move(fields);
  return t;
}
Json fields_term(Json fields) {
  return term(Json(), std::move(fields));
}
Json required(Json terms) {
  return {{"requiredDuringSchedulingIgnoredDuringExecution", {{"nodeSelectorTerms", terms}}}};
}
Json with_affinity(Json node_affinity, Json spec = Json::object()) {
  spec["affinity"] = {{"nodeAffinity", std::move(node_affinity)}};
  return spec;
}
Json node_selector(Json selector) {
  return {{"nodeSelector", std::move(selector)}};
}

struct FilterCase {
  FilterCase(const char* name_, Json pod_spec_, Json labels_, std::string node_name_,
             schedhost_code_t filter_code_ = kSuccess, const char* filter_reason_ = nullptr,
             schedhost_code_t pre_filter_code_ = kSuccess, const char* pre_filter_reason_ = nullptr,
             std::optional<std::vector<std::string>> pre_filter_nodes_ = std::nullopt,
             std::string args_ = "{}")
      : name(name_),
        pod_spec(std::move(pod_spec_)),
        labels(std::move(labels_)),
        node_name(std::move(node_name_)),
        filter_code(filter_code_),
        filter_reason(filter_reason_),
        pre_filter_code(pre_filter_code_),
        pre_filter_reason(pre_filter_reason_),
        pre_filter_nodes(std::move(pre_filter_nodes_)),
        args(std::move(args_)) {}

  const char* name;
  Json pod_spec;
  Json labels;
  std::string node_name;
  schedhost_code_t filter_code;
  const char* filter_reason;
  schedhost_code_t pre_filter_code;
  const char* pre_filter_reason;
  std::optional<std::vector<std::string>> pre_filter_nodes;
  std::string args;
  bool run_pre_filter = true;
};

class NodeAffinityTest : public ::testing::Test {
 protected:
  void check(const FilterCase& c) {
    SCOPED_TRACE(c.name);
    auto plugin = harness_.create("NodeAffinity", c.args);
    Cycle cycle(*plugin, cluster::Snapshot({node_with(c.node_name, c.labels)}, {}),
                pod_with_spec(c.pod_spec));
    if (c.run_pre_filter) {
      const auto pre = cycle.pre_filter();
      EXPECT_EQ(pre.code, c.pre_filter_code);
      if (c.pre_filter_reason != nullptr) {
        EXPECT_THAT(pre.reasons, ElementsAre(c.pre_filter_reason));
      } else {
        EXPECT_THAT(pre.reasons, IsEmpty());
      }
      EXPECT_EQ(pre.node_names, c.pre_filter_nodes);
    }
    const auto out = cycle.filter(c.node_name);
    EXPECT_EQ(out.code, c.filter_code);
    if (c.filter_reason != nullptr) {
      EXPECT_THAT(out.reasons, ElementsAre(c.filter_reason));
    } else {
      EXPECT_THAT(out.reasons, IsEmpty());
    }
  }

  PluginHarness harness_{"node_affinity.so"};
};

TEST_F(NodeAffinityTest, NodeSelector) {
  check({"missing labels", node_selector({{"foo", "bar"}}), Json::object(), "node1", kUU,
         kErrReasonPod});
  check({"same labels", node_selector({{"foo", "bar"}}), {{"foo", "bar"}}, "node1"});
  check({"node labels are superset",
         node_selector({{"foo", "bar"}}),
         {{"foo", "bar"}, {"baz", "blah"}},
         "node1"});
  check({"node labels are subset",
         node_selector({{"foo", "bar"}, {"baz", "blah"}}),
         {{"foo", "bar"}},
         "node1",
         kUU,
         kErrReasonPod});
}

TEST_F(NodeAffinityTest, MatchExpressions) {
  check({"In matches",
         with_affinity(required({term({expr("foo", "In", {"bar", "value2"})})})),
         {{"foo", "bar"}},
         "node1"});
  check({"Gt matches",
         with_affinity(required({term({expr("kernel-version", "Gt", {"0204"})})})),
         {{"kernel-version", "0206"}},
         "node1"});
  check({"NotIn matches",
         with_affinity(required({term({expr("mem-type", "NotIn", {"DDR", "DDR2"})})})),
         {{"mem-type", "DDR3"}},
         "node1"});
  check({"Exists matches",
         with_affinity(required({term({expr("GPU", "Exists")})})),
         {{"GPU", "NVIDIA-GRID-K1"}},
         "node1"});
  check({"affinity that doesn't match node's labels",
         with_affinity(required({term({expr("foo", "In", {"value1", "value2"})})})),
         {{"foo", "bar"}},
         "node1",
         kUU,
         kErrReasonPod});
  check({"empty MatchExpressions match no objects",
         with_affinity(required({term(Json::array())})),
         {{"foo", "bar"}},
         "node1",
         kUU,
         kErrReasonPod});
  check({"multiple matchExpressions ANDed that match",
         with_affinity(
             required({term({expr("GPU", "Exists"), expr("GPU", "NotIn", {"AMD", "INTER"})})})),
         {{"GPU", "NVIDIA-GRID-K1"}},
         "node1"});
  check({"multiple matchExpressions ANDed that don't match",
         with_affinity(
             required({term({expr("GPU", "Exists"), expr("GPU", "In", {"AMD", "INTER"})})})),
         {{"GPU", "NVIDIA-GRID-K1"}},
         "node1",
         kUU,
         kErrReasonPod});
  check({"multiple terms ORed",
         with_affinity(required({term({expr("foo", "In", {"bar", "value2"})}),
                                 term({expr("diffkey", "In", {"wrong", "value2"})})})),
         {{"foo", "bar"}},
         "node1"});
  check({"affinity and nodeSelector both satisfied",
         with_affinity(required({term({expr("foo", "Exists")})}), node_selector({{"foo", "bar"}})),
         {{"foo", "bar"}},
         "node1"});
  check({"affinity matches but nodeSelector doesn't",
         with_affinity(required({term({expr("foo", "Exists")})}), node_selector({{"foo", "bar"}})),
         {{"foo", "barrrrrr"}},
         "node1",
         kUU,
         kErrReasonPod});
  check({"an invalid value in a term: the term never matches",
         with_affinity(required({term({expr("foo", "NotIn", {"invalid value: ___@#$%^"})})})),
         {{"foo", "bar"}},
         "node1",
         kUU,
         kErrReasonPod});
  check({"an invalid term does not stop a valid one from matching",
         with_affinity(
             required({term({expr("foo", "Gt", {"ten"})}), term({expr("foo", "In", {"bar"})})})),
         {{"foo", "bar"}},
         "node1"});
  check({"DoesNotExist",
         with_affinity(required({term({expr("gpu", "DoesNotExist")})})),
         {{"foo", "bar"}},
         "node1"});
  check({"Lt with a label that is not a number",
         with_affinity(required({term({expr("foo", "Lt", {"10"})})})),
         {{"foo", "bar"}},
         "node1",
         kUU,
         kErrReasonPod});
}

TEST_F(NodeAffinityTest, SkipsPodsWithNothingToCheck) {
  check({"no affinity", Json::object(), {{"foo", "bar"}}, "node1", kSuccess, nullptr, kSkip});
  check({"affinity without a required node selector",
         with_affinity({{"requiredDuringSchedulingIgnoredDuringExecution", nullptr}}),
         {{"foo", "bar"}},
         "node1",
         kSuccess,
         nullptr,
         kSkip});
  check({"preferred terms only",
         with_affinity({{"preferredDuringSchedulingIgnoredDuringExecution",
                         {{{"weight", 1}, {"preference", term({expr("a", "Exists")})}}}}}),
         {{"foo", "bar"}},
         "node1",
         kSuccess,
         nullptr,
         kSkip});
  // upstream checks `pod.Spec.NodeSelector == nil`: an empty map is not nil
  check({"an empty nodeSelector is not skipped",
         node_selector(Json::object()),
         {{"foo", "bar"}},
         "node1"});
}

TEST_F(NodeAffinityTest, MatchFieldsNarrowTheNodes) {
  using Names = std::vector<std::string>;
  check({"matchFields In that matches the node",
         with_affinity(required({fields_term({name_in({"node1"})})})), Json::object(), "node1",
         kSuccess, nullptr, kSuccess, nullptr, Names{"node1"}});
  check({"matchFields In that doesn't match the node",
         with_affinity(required({fields_term({name_in({"node1"})})})), Json::object(), "node2", kUU,
         kErrReasonPod, kSuccess, nullptr, Names{"node1"}});
  check({"two terms: matchFields doesn't match, but matchExpressions does",
         with_affinity(required({fields_term({name_in({"node1"}), name_in({"node2"})}),
                                 term({expr("foo", "In", {"bar"})})})),
         {{"foo", "bar"}},
         "node2"});
  check({"one term: matchFields doesn't match, but matchExpressions does",
         with_affinity(required({term({expr("foo", "In", {"bar"})}, {name_in({"node1"})})})),
         {{"foo", "bar"}},
         "node2",
         kUU,
         kErrReasonPod,
         kSuccess,
         nullptr,
         Names{"node1"}});
  check({"one term: both matchFields and matchExpressions match",
         with_affinity(required({term({expr("foo", "In", {"bar"})}, {name_in({"node1"})})})),
         {{"foo", "bar"}},
         "node1",
         kSuccess,
         nullptr,
         kSuccess,
         nullptr,
         Names{"node1"}});
  check({"two terms: neither matchFields nor matchExpressions match",
         with_affinity(required(
             {fields_term({name_in({"node1"})}), term({expr("foo", "In", {"not-match-to-bar"})})})),
         {{"foo", "bar"}},
         "node2",
         kUU,
         kErrReasonPod});
  check({"two terms of node.Name affinity",
         with_affinity(
             required({fields_term({name_in({"node1"})}), fields_term({name_in({"node2"})})})),
         Json::object(), "node2", kSuccess, nullptr, kSuccess, nullptr, Names{"node1", "node2"}});
  check({"two conflicting matchFields requirements",
         with_affinity(required({fields_term({name_in({"node1"}), name_in({"node2"})})})),
         {{"foo", "bar"}},
         "node2",
         kUU,
         kErrReasonPod,
         kUU,
         kErrReasonConflict});
  check({"matchFields NotIn",
         with_affinity(required({fields_term({expr("metadata.name", "NotIn", {"node1"})})})),
         Json::object(), "node1", kUU, kErrReasonPod});
}

TEST_F(NodeAffinityTest, AddedAffinity) {
  const std::string added_node2 =
      Json{{"addedAffinity", required({fields_term({name_in({"node2"})})})}}.dump();
  check({"matches added affinity and the pod's node affinity",
         with_affinity(required({term({expr("zone", "In", {"foo"})})})),
         {{"zone", "foo"}},
         "node2",
         kSuccess,
         nullptr,
         kSuccess,
         nullptr,
         std::nullopt,
         added_node2});
  check({"matches added affinity but not the pod's node affinity",
         with_affinity(required({term({expr("zone", "In", {"bar"})})})),
         {{"zone", "foo"}},
         "node2",
         kUU,
         kErrReasonPod,
         kSuccess,
         nullptr,
         std::nullopt,
         added_node2});
  check({"doesn't match added affinity",
         Json::object(),
         {{"zone", "foo"}},
         "node2",
         kUU,
         kErrReasonEnforced,
         kSuccess,
         nullptr,
         std::nullopt,
         Json{{"addedAffinity", required({term({expr("zone", "In", {"bar"})})})}}.dump()});
}

TEST_F(NodeAffinityTest, FilterWithoutPreFilter) {
  FilterCase selector{"node selector matches even if PreFilter is not called",
                      node_selector({{"foo", "bar"}}),
                      {{"foo", "bar"}, {"baz", "blah"}},
                      "node1"};
  selector.run_pre_filter = false;
  check(selector);
  FilterCase affinity{"node affinity matches even if PreFilter is not called",
                      with_affinity(required(
                          {term({expr("GPU", "Exists"), expr("GPU", "NotIn", {"AMD", "INTER"})})})),
                      {{"GPU", "NVIDIA-GRID-K1"}},
                      "node1"};
  affinity.run_pre_filter = false;
  check(affinity);
  FilterCase mismatch{"a mismatch without PreFilter",
                      node_selector({{"foo", "bar"}}),
                      {{"foo", "baz"}},
                      "node1",
                      kUU,
                      kErrReasonPod};
  mismatch.run_pre_filter = false;
  check(mismatch);
}

// ---------------------------------------------------------------------------------------------
// Score

Json preferred(const std::vector<std::pair<int, Json>>& terms) {
  Json list = Json::array();
  for (const auto& [weight, t] : terms)
    list.push_back({{"weight", weight}, {"preference", t}});
  return {{"preferredDuringSchedulingIgnoredDuringExecution", list}};
}

struct ScoreCase {
  ScoreCase(const char* name_, Json pod_spec_, std::vector<std::pair<std::string, Json>> nodes_,
            std::vector<std::int64_t> scores_, std::string args_ = "{}", bool run_pre_score_ = true)
      : name(name_),
        pod_spec(std::move(pod_spec_)),
        nodes(std::move(nodes_)),
        scores(std::move(scores_)),
        args(std::move(args_)),
        run_pre_score(run_pre_score_) {}

  const char* name;
  Json pod_spec;
  std::vector<std::pair<std::string, Json>> nodes;  // name, labels
  std::vector<std::int64_t> scores;
  std::string args;
  bool run_pre_score;
};

TEST_F(NodeAffinityTest, ScoreLikeUpstream) {
  const Json label1 = {{"foo", "bar"}};
  const Json label2 = {{"key", "value"}};
  const Json label3 = {{"az", "az1"}};
  const Json label4 = {{"abc", "az11"}, {"def", "az22"}};
  const Json label5 = {{"foo", "bar"}, {"key", "value"}, {"az", "az1"}};
  const Json affinity1 = preferred({{2, term({expr("foo", "In", {"bar"})})}});
  const Json affinity2 =
      preferred({{2, term({expr("foo", "In", {"bar"})})},
                 {4, term({expr("key", "In", {"value"})})},
                 {5, term({expr("foo", "In", {"bar"}), expr("key", "In", {"value"}),
                           expr("az", "In", {"az1"})})}});
  const std::vector<ScoreCase> cases = {
      {"all nodes are same priority as NodeAffinity is nil",
       Json::object(),
       {{"node1", label1}, {"node2", label2}, {"node3", label3}},
       {0, 0, 0}},
      {"no node matches preferred scheduling requirements",
       with_affinity(affinity1),
       {{"node1", label4}, {"node2", label2}, {"node3", label3}},
       {0, 0, 0}},
      {"only node1 matches the preferred scheduling requirements of pod",
       with_affinity(affinity1),
       {{"node1", label1}, {"node2", label2}, {"node3", label3}},
       {100, 0, 0}},
      {"all nodes match the preferred scheduling requirements but with different priorities",
       with_affinity(affinity2),
       {{"node1", label1}, {"node5", label5}, {"node2", label2}},
       {18, 100, 36}},
      {"added affinity",
       Json::object(),
       {{"node1", label1}, {"node2", label2}},
       {100, 0},
       Json{{"addedAffinity", affinity1}}.dump()},
      {"added affinity and pod has default affinity",
       with_affinity(affinity1),
       {{"node1", label1}, {"node2", label2}, {"node3", label5}},
       {40, 60, 100},
       Json{{"addedAffinity", preferred({{3, term({expr("key", "In", {"value"})})}})}}.dump()},
      {"calculates the priorities correctly even if PreScore is not called",
       with_affinity(affinity2),
       {{"node1", label1}, {"node5", label5}, {"node2", label2}},
       {18, 100, 36},
       "{}",
       false},
      {"a zero weight and an empty preference are ignored",
       with_affinity(preferred({{0, term({expr("foo", "In", {"bar"})})},
                                {7, Json::object()},
                                {3, term({expr("key", "Exists")})}})),
       {{"node1", label1}, {"node2", label2}},
       {0, 100}},
      {"matchFields in a preferred term",
       with_affinity(
           preferred({{1, fields_term({name_in({"node2"})})}, {3, term({expr("foo", "Exists")})}})),
       {{"node1", label1}, {"node2", label1}},
       {75, 100}},
  };
  for (const ScoreCase& c : cases) {
    SCOPED_TRACE(c.name);
    auto plugin = harness_.create("NodeAffinity", c.args);
    std::vector<std::shared_ptr<const cluster::Node>> nodes;
    for (const auto& [name, labels] : c.nodes)
      nodes.push_back(node_with(name, labels));
    Cycle cycle(*plugin, cluster::Snapshot(nodes, {}), pod_with_spec(c.pod_spec));
    const auto out = cycle.scores(c.run_pre_score);
    ASSERT_EQ(out.code, kSuccess) << ::testing::PrintToString(out.reasons);
    EXPECT_THAT(out.scores, ElementsAreArray(c.scores));
  }
}

TEST_F(NodeAffinityTest, PreScoreRefusesUnparsablePreferredTerms) {
  auto plugin = harness_.create("NodeAffinity", "{}");
  Cycle cycle(
      *plugin, cluster::Snapshot({node_with("node1")}, {}),
      pod_with_spec(with_affinity(preferred(
          {{1, term({expr("foo", "In", {"bar"})})}, {2, term({expr("foo", "Gt", {"1", "2"})})}}))));
  const auto out = cycle.pre_score();
  EXPECT_EQ(out.code, SCHEDHOST_ERROR);
  EXPECT_THAT(out.reasons,
              ElementsAre("[1].matchExpressions[0].values: Invalid value: []string{\"1\", \"2\"}: "
                          "for 'Gt', 'Lt' operators, exactly one value is required"));
}

TEST_F(NodeAffinityTest, RefusesBadArgs) {
  EXPECT_EQ(harness_.create_error("NodeAffinity", R"({"addedAffinity":null})"), "<no error>");
  EXPECT_EQ(harness_.create_error("NodeAffinity", R"({"addedAfinity":{}})"),
            "plugin \"NodeAffinity\": unknown field \"addedAfinity\": NodeAffinity args have "
            "only addedAffinity");
  const Json bad = {
      {"addedAffinity",
       {{"requiredDuringSchedulingIgnoredDuringExecution",
         {{"nodeSelectorTerms", {term({expr("invalid/label/key", "In", {"label-1-val"})})}}}},
        {"preferredDuringSchedulingIgnoredDuringExecution",
         {{{"weight", 1}, {"preference", fields_term({name_in({"node-1", "node-2"})})}}}}}}};
  EXPECT_EQ(
      harness_.create_error("NodeAffinity", bad.dump()),
      "plugin \"NodeAffinity\": ["
      "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
      "matchExpressions[0].key: Invalid value: \"invalid/label/key\": a qualified name must "
      "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
      "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
      "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain "
      "prefix and '/' (e.g. 'example.com/MyName'), "
      "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].matchFields[0].values: "
      "Invalid value: []string{\"node-1\", \"node-2\"}: must have one element]");
  EXPECT_EQ(harness_.create_error(
                "NodeAffinity",
                Json{{"addedAffinity", required({term({expr("zone", "Near", {"a"})})})}}.dump()),
            "plugin \"NodeAffinity\": addedAffinity.requiredDuringSchedulingIgnoredDuringExecution."
            "nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: \"Near\": "
            "supported values: \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", \"Gt\", \"Lt\"");
  EXPECT_THAT(harness_.create_error("NodeAffinity", R"({"addedAffinity":[]})"),
              HasSubstr("addedAffinity must be a NodeAffinity object"));
}

TEST_F(NodeAffinityTest, ExtensionPoints) {
  const auto& def = harness_.definition("NodeAffinity");
  EXPECT_NE(def.vtable.pre_filter, nullptr);
  EXPECT_NE(def.vtable.filter, nullptr);
  EXPECT_NE(def.vtable.pre_score, nullptr);
  EXPECT_NE(def.vtable.score, nullptr);
  EXPECT_NE(def.vtable.normalize_score, nullptr);
  EXPECT_EQ(def.vtable.add_pod, nullptr);
}

}  // namespace
}  // namespace schedhost
