// The SDK's Kubernetes helpers (sdk/include/schedhost/k8s/): label requirements and selectors
// with every operator (nil vs empty), node selectors (terms ORed, requirements ANDed, empty and
// unparsable terms, matchFields), preferred terms, tolerations against taints, the default score
// normalization and upstream-worded parse errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <schedhost/k8s/label_selector.hpp>
#include <schedhost/k8s/node_selector.hpp>
#include <schedhost/k8s/normalize_score.hpp>
#include <schedhost/k8s/toleration.hpp>
#include <schedhost/k8s/validation.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace schedhost::k8s {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using Json = nlohmann::json;
using Labels = std::map<std::string, std::string>;

// A node-like labels source: label(key) and name(), as schedhost::NodeInfo has.
struct FakeNode {
  std::string node_name;
  Labels labels;
  std::optional<std::string_view> label(std::string_view key) const {
    const auto it = labels.find(std::string(key));
    if (it == labels.end()) return std::nullopt;
    return std::string_view(it->second);
  }
  std::string_view name() const { return node_name; }
};

std::string parse_error(const Json& selector) {
  try {
    LabelSelector::parse(selector);
  } catch (const ParseError& e) {
    return e.what();
  }
  return "<no error>";
}

// ---------------------------------------------------------------------------------------------
// LabelSelector

TEST(LabelSelector, NilMatchesNothingAndEmptyMatchesEverything) {
  const Labels labels = {{"a", "1"}};
  EXPECT_FALSE(LabelSelector::parse(Json()).matches(labels));
  EXPECT_FALSE(LabelSelector::parse(Json()).matches(Labels{}));
  EXPECT_TRUE(LabelSelector::parse(Json()).matches_nothing());
  EXPECT_TRUE(LabelSelector::parse(Json::object()).matches(labels));
  EXPECT_TRUE(LabelSelector::parse(Json::object()).matches(Labels{}));
  EXPECT_TRUE(LabelSelector::parse(Json::object()).matches_everything());
  EXPECT_TRUE(
      LabelSelector::parse({{"matchLabels", Json::object()}, {"matchExpressions", Json::array()}})
          .matches_everything());
  EXPECT_FALSE(LabelSelector().matches(labels));  // a default LabelSelector is nil
  EXPECT_TRUE(LabelSelector::from_set(Labels{}).matches(labels));
}

TEST(LabelSelector, EveryOperator) {
  struct Case {
    const char* name;
    Json selector;
    Labels labels;
    bool want;
  };
  const std::vector<Case> cases = {
      {"matchLabels equal", {{"matchLabels", {{"app", "web"}}}}, {{"app", "web"}}, true},
      {"matchLabels different", {{"matchLabels", {{"app", "web"}}}}, {{"app", "db"}}, false},
      {"matchLabels absent", {{"matchLabels", {{"app", "web"}}}}, {}, false},
      {"matchLabels ANDed",
       {{"matchLabels", {{"app", "web"}, {"tier", "fe"}}}},
       {{"app", "web"}},
       false},
      {"In",
       {{"matchExpressions", {{{"key", "app"}, {"operator", "In"}, {"values", {"a", "web"}}}}}},
       {{"app", "web"}},
       true},
      {"In, other value",
       {{"matchExpressions", {{{"key", "app"}, {"operator", "In"}, {"values", {"a", "b"}}}}}},
       {{"app", "web"}},
       false},
      {"In, absent",
       {{"matchExpressions", {{{"key", "app"}, {"operator", "In"}, {"values", {"a"}}}}}},
       {},
       false},
      {"NotIn, other value",
       {{"matchExpressions", {{{"key", "app"}, {"operator", "NotIn"}, {"values", {"a", "b"}}}}}},
       {{"app", "web"}},
       true},
      {"NotIn, listed value",
       {{"matchExpressions", {{{"key", "app"}, {"operator", "NotIn"}, {"values", {"web"}}}}}},
       {{"app", "web"}},
       false},
      {"NotIn, absent label matches",
       {{"matchExpressions", {{{"key", "app"}, {"operator", "NotIn"}, {"values", {"web"}}}}}},
       {},
       true},
      {"Exists",
       {{"matchExpressions", {{{"key", "app"}, {"operator", "Exists"}}}}},
       {{"app", ""}},
       true},
      {"Exists, absent",
       {{"matchExpressions", {{{"key", "app"}, {"operator", "Exists"}}}}},
       {},
       false},
      {"DoesNotExist",
       {{"matchExpressions", {{{"key", "app"}, {"operator", "DoesNotExist"}}}}},
       {{"x", "1"}},
       true},
      {"DoesNotExist, present",
       {{"matchExpressions", {{{"key", "app"}, {"operator", "DoesNotExist"}}}}},
       {{"app", "1"}},
       false},
      {"matchLabels and matchExpressions ANDed",
       {{"matchLabels", {{"app", "web"}}},
        {"matchExpressions", {{{"key", "tier"}, {"operator", "Exists"}}}}},
       {{"app", "web"}},
       false},
      {"In with many values",
       {{"matchExpressions",
         {{{"key", "v"}, {"operator", "In"}, {"values", {"e", "d", "c", "b", "a", "f"}}}}}},
       {{"v", "c"}},
       true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(LabelSelector::parse(c.selector).matches(c.labels), c.want);
    // the same through every labels source
    const std::unordered_map<std::string, std::string> unordered(c.labels.begin(), c.labels.end());
    EXPECT_EQ(LabelSelector::parse(c.selector).matches(unordered), c.want);
    EXPECT_EQ(LabelSelector::parse(c.selector).matches(FakeNode{"n", c.labels}), c.want);
  }
}

TEST(LabelSelector, ParseErrorsAreWordedAsUpstream) {
  EXPECT_EQ(
      parse_error({{"matchExpressions", {{{"key", "a"}, {"operator", "Gt"}, {"values", {"1"}}}}}}),
      "matchExpressions[0].operator: Unsupported value: \"Gt\": \"Gt\" is not a valid label "
      "selector operator");
  EXPECT_EQ(parse_error({{"matchExpressions", {{{"key", "a"}, {"operator", "In"}}}}}),
            "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't "
            "be empty");
  EXPECT_EQ(parse_error({{"matchExpressions",
                          {{{"key", "a"}, {"operator", "Exists"}, {"values", {"x"}}}}}}),
            "values: Invalid value: []string{\"x\"}: values set must be empty for exists and does "
            "not exist");
  EXPECT_EQ(parse_error({{"matchLabels", {{"app", "a b"}}}}),
            "values[0][app]: Invalid value: \"a b\": a valid label must be an empty string or "
            "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
            "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
            "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
  EXPECT_EQ(parse_error({{"matchLabels", {{"-bad", "x"}}}}),
            "key: Invalid value: \"-bad\": name part must consist of alphanumeric characters, '-', "
            "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
            "'my.name',  or '123-abc', regex used for validation is "
            "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
  EXPECT_EQ(parse_error({{"matchLabels", 3}}),
            "matchLabels: Invalid value: 3: must be a map of strings");
  EXPECT_EQ(parse_error(Json::array()),
            "Invalid value: []: a label selector must be an object with matchLabels and "
            "matchExpressions");
  EXPECT_EQ(parse_error({{"matchLabels", {{"example.com/app", "x"}}}}), "<no error>");
}

TEST(Validation, QualifiedNamesAndLabelValues) {
  EXPECT_THAT(is_qualified_name("app"), IsEmpty());
  EXPECT_THAT(is_qualified_name("example.com/app"), IsEmpty());
  EXPECT_THAT(is_qualified_name("kubernetes.io/hostname"), IsEmpty());
  EXPECT_THAT(is_qualified_name("Example.com/app"),
              ElementsAre(::testing::StartsWith("prefix part a lowercase RFC 1123 subdomain")));
  EXPECT_THAT(is_qualified_name("/app"), ElementsAre("prefix part must be non-empty"));
  EXPECT_EQ(is_qualified_name("example.com/").size(), 2u);  // empty, and fails the regex
  EXPECT_EQ(is_qualified_name(std::string(64, 'a')).front(),
            "name part must be no more than 63 characters");
  EXPECT_THAT(is_valid_label_value(""), IsEmpty());
  EXPECT_THAT(is_valid_label_value("a.b_c-d"), IsEmpty());
  EXPECT_EQ(is_valid_label_value("_a").size(), 1u);
  EXPECT_EQ(is_valid_label_value(std::string(64, 'a')).front(),
            "must be no more than 63 characters");
  EXPECT_EQ(parse_int64("0204"), 204);
  EXPECT_EQ(parse_int64("-9223372036854775808"), INT64_MIN);
  EXPECT_EQ(parse_int64("9223372036854775808"), std::nullopt);
  EXPECT_EQ(parse_int64("+7"), 7);
  EXPECT_EQ(parse_int64("1e3"), std::nullopt);
  EXPECT_EQ(parse_int64(""), std::nullopt);
}

// ---------------------------------------------------------------------------------------------
// NodeSelector

Json expr(const char* key, const char* op, const std::vector<std::string>& values = {}) {
  Json e = {{"key", key}, {"operator", op}};
  if (!values.empty()) e["values"] = values;
  return e;
}
Json selector(Json terms) {
  return {{"nodeSelectorTerms", std::move(terms)}};
}

TEST(NodeSelector, EveryOperatorOnLabels) {
  struct Case {
    const char* name;
    Json expression;
    Labels labels;
    bool want;
  };
  const std::vector<Case> cases = {
      {"In", expr("k", "In", {"a", "b"}), {{"k", "b"}}, true},
      {"In, other", expr("k", "In", {"a", "b"}), {{"k", "c"}}, false},
      {"NotIn", expr("k", "NotIn", {"a"}), {{"k", "b"}}, true},
      {"NotIn, absent", expr("k", "NotIn", {"a"}), {}, true},
      {"NotIn, listed", expr("k", "NotIn", {"a"}), {{"k", "a"}}, false},
      {"Exists", expr("k", "Exists"), {{"k", ""}}, true},
      {"Exists, absent", expr("k", "Exists"), {}, false},
      {"DoesNotExist", expr("k", "DoesNotExist"), {}, true},
      {"DoesNotExist, present", expr("k", "DoesNotExist"), {{"k", "x"}}, false},
      {"Gt", expr("k", "Gt", {"0204"}), {{"k", "0206"}}, true},
      {"Gt, equal", expr("k", "Gt", {"5"}), {{"k", "5"}}, false},
      {"Lt, negative label", expr("k", "Lt", {"5"}), {{"k", "-4"}}, true},
      {"a negative value is not a label value: never parses",
       expr("k", "Gt", {"-5"}),
       {{"k", "-4"}},
       false},
      {"Gt, not a number", expr("k", "Gt", {"5"}), {{"k", "six"}}, false},
      {"Gt, absent", expr("k", "Gt", {"5"}), {}, false},
      {"Lt", expr("k", "Lt", {"5"}), {{"k", "4"}}, true},
      {"Lt, equal", expr("k", "Lt", {"5"}), {{"k", "5"}}, false},
      {"Gt with two values never parses", expr("k", "Gt", {"1", "2"}), {{"k", "3"}}, false},
      {"Gt with a non-integer value never parses", expr("k", "Gt", {"x"}), {{"k", "3"}}, false},
      {"an unknown operator never parses", expr("k", "Near", {"1"}), {{"k", "1"}}, false},
      {"an invalid value never parses", expr("k", "NotIn", {"a b"}), {{"k", "1"}}, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const NodeSelector s = NodeSelector::parse(selector({{{"matchExpressions", {c.expression}}}}));
    EXPECT_EQ(s.matches(c.labels, "node"), c.want);
    EXPECT_EQ(s.matches(FakeNode{"node", c.labels}), c.want);
  }
}

TEST(NodeSelector, TermsAreOredRequirementsAnded) {
  const NodeSelector s = NodeSelector::parse(
      selector({{{"matchExpressions", {expr("a", "Exists"), expr("b", "In", {"1"})}}},
                {{"matchExpressions", {expr("c", "Exists")}}}}));
  EXPECT_TRUE(s.matches(Labels{{"a", "x"}, {"b", "1"}}, "n"));
  EXPECT_FALSE(s.matches(Labels{{"a", "x"}, {"b", "2"}}, "n"));
  EXPECT_TRUE(s.matches(Labels{{"c", ""}}, "n"));
  EXPECT_FALSE(s.matches(Labels{}, "n"));
}

TEST(NodeSelector, EmptyTermsMatchNothing) {
  EXPECT_FALSE(NodeSelector::parse(selector({Json::object()})).matches(Labels{{"a", "1"}}, "n"));
  EXPECT_FALSE(NodeSelector::parse(selector({{{"matchExpressions", Json::array()}}}))
                   .matches(Labels{}, "n"));
  EXPECT_FALSE(NodeSelector::parse(selector(Json::array())).matches(Labels{}, "n"));
  EXPECT_FALSE(NodeSelector::parse(Json::object()).matches(Labels{}, "n"));
  // an empty term next to a matching one
  EXPECT_TRUE(
      NodeSelector::parse(selector({Json::object(), {{"matchExpressions", {expr("a", "Exists")}}}}))
          .matches(Labels{{"a", "1"}}, "n"));
  EXPECT_THAT(NodeSelector::parse(selector({Json::object()})).terms(), IsEmpty());
}

TEST(NodeSelector, MatchFieldsOnTheNodeName) {
  auto fields = [](Json f) {
    return NodeSelector::parse(selector({{{"matchFields", std::move(f)}}}));
  };
  EXPECT_TRUE(fields({expr("metadata.name", "In", {"n1"})}).matches(Labels{}, "n1"));
  EXPECT_FALSE(fields({expr("metadata.name", "In", {"n1"})}).matches(Labels{}, "n2"));
  EXPECT_TRUE(fields({expr("metadata.name", "NotIn", {"n1"})}).matches(Labels{}, "n2"));
  EXPECT_FALSE(fields({expr("metadata.name", "NotIn", {"n1"})}).matches(Labels{}, "n1"));
  // a node has no other field: it reads as ""
  EXPECT_FALSE(fields({expr("metadata.uid", "In", {"n1"})}).matches(Labels{}, "n1"));
  EXPECT_TRUE(fields({expr("metadata.uid", "NotIn", {"n1"})}).matches(Labels{}, "n1"));
  // a node without a name passes matchFields (upstream: no fields to match)
  EXPECT_TRUE(fields({expr("metadata.name", "In", {"n1"})}).matches(Labels{}, ""));
  // only In / NotIn with one value
  EXPECT_FALSE(fields({expr("metadata.name", "In", {"n1", "n2"})}).matches(Labels{}, "n1"));
  EXPECT_FALSE(fields({expr("metadata.name", "Exists")}).matches(Labels{}, "n1"));
  // matchFields and matchExpressions of one term are ANDed
  const NodeSelector both =
      NodeSelector::parse(selector({{{"matchFields", {expr("metadata.name", "In", {"n1"})}},
                                     {"matchExpressions", {expr("a", "Exists")}}}}));
  EXPECT_TRUE(both.matches(FakeNode{"n1", {{"a", "1"}}}));
  EXPECT_FALSE(both.matches(FakeNode{"n1", {}}));
  EXPECT_FALSE(both.matches(FakeNode{"n2", {{"a", "1"}}}));
}

TEST(NodeSelector, LazyAndStrictParsing) {
  const Json bad = selector({{{"matchExpressions", {expr("k", "Gt", {"x"})}}},
                             {{"matchFields", {expr("metadata.name", "Exists")}}},
                             {{"matchExpressions", {expr("ok", "Exists")}}}});
  const NodeSelector lazy = NodeSelector::parse(bad, FieldPath("spec"));
  EXPECT_TRUE(lazy.matches(Labels{{"ok", ""}, {"k", "5"}}, "n"));  // the valid term still matches
  EXPECT_FALSE(lazy.matches(Labels{{"k", "5"}}, "n"));
  ASSERT_EQ(lazy.errors().size(), 2u);
  EXPECT_EQ(lazy.errors()[0].to_string(),
            "spec.nodeSelectorTerms[0].matchExpressions[0].values[0]: Invalid value: \"x\": for "
            "'Gt', 'Lt' operators, the value must be an integer");
  EXPECT_EQ(lazy.errors()[1].to_string(),
            "spec.nodeSelectorTerms[1].matchFields[0].operator: Unsupported value: \"Exists\": "
            "supported values: \"In\", \"NotIn\"");
  try {
    NodeSelector::parse_strict(bad);
    FAIL() << "parse_strict accepted an invalid selector";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.errors().size(), 2u);
    EXPECT_THAT(e.what(), ::testing::StartsWith("[nodeSelectorTerms[0].matchExpressions[0]"));
  }
}

TEST(PreferredSchedulingTerms, SumsTheWeightsOfMatchingTerms) {
  const PreferredSchedulingTerms terms = PreferredSchedulingTerms::parse(
      {{{"weight", 2}, {"preference", {{"matchExpressions", {expr("foo", "In", {"bar"})}}}}},
       {{"weight", 4}, {"preference", {{"matchExpressions", {expr("key", "In", {"value"})}}}}},
       {{"weight", 0}, {"preference", {{"matchExpressions", {expr("foo", "Exists")}}}}},
       {{"weight", 9}, {"preference", Json::object()}},
       {{"weight", 5},
        {"preference",
         {{"matchExpressions",
           {expr("foo", "In", {"bar"}), expr("key", "In", {"value"}),
            expr("az", "In", {"az1"})}}}}}});
  EXPECT_EQ(terms.size(), 3u);
  EXPECT_EQ(terms.score(Labels{{"foo", "bar"}}, "n"), 2);
  EXPECT_EQ(terms.score(Labels{{"key", "value"}}, "n"), 4);
  EXPECT_EQ(terms.score(Labels{{"foo", "bar"}, {"key", "value"}, {"az", "az1"}}, "n"), 11);
  EXPECT_EQ(terms.score(Labels{}, "n"), 0);
  EXPECT_TRUE(PreferredSchedulingTerms::parse(Json()).empty());
  EXPECT_THROW(
      PreferredSchedulingTerms::parse(
          {{{"weight", 1}, {"preference", {{"matchExpressions", {expr("a", "Lt", {"z"})}}}}}}),
      ParseError);
  // a zero weight is not even parsed (upstream skips it)
  EXPECT_NO_THROW(PreferredSchedulingTerms::parse(
      {{{"weight", 0}, {"preference", {{"matchExpressions", {expr("a", "Lt", {"z"})}}}}}}));
}

TEST(RequiredNodeAffinity, NodeSelectorAndAffinityAnded) {
  const auto a = RequiredNodeAffinity::parse(
      {{"disk", "ssd"}}, selector({{{"matchExpressions", {expr("zone", "In", {"a", "b"})}}}}));
  EXPECT_TRUE(a.matches(Labels{{"disk", "ssd"}, {"zone", "a"}}, "n"));
  EXPECT_FALSE(a.matches(Labels{{"disk", "hdd"}, {"zone", "a"}}, "n"));
  EXPECT_FALSE(a.matches(Labels{{"disk", "ssd"}}, "n"));
  EXPECT_TRUE(RequiredNodeAffinity::parse(Json(), Json()).matches(Labels{}, "n"));
  EXPECT_TRUE(RequiredNodeAffinity::parse(Json::object(), Json()).matches(Labels{}, "n"));
  EXPECT_TRUE(RequiredNodeAffinity::parse_texts(std::string_view(R"({"a":"1"})"), std::nullopt)
                  .matches(Labels{{"a", "1"}}, "n"));
  // a required affinity without terms matches no node
  EXPECT_FALSE(RequiredNodeAffinity::parse(Json(), selector(Json::array())).matches(Labels{}, "n"));
}

// ---------------------------------------------------------------------------------------------
// Tolerations

TEST(Toleration, ToleratesTaintTable) {
  struct Case {
    const char* name;
    OwnedToleration toleration;
    OwnedTaint taint;
    bool want;
  };
  const std::vector<Case> cases = {
      {"empty key with Exists tolerates every taint",
       {"", "Exists", "", ""},
       {"a", "b", "NoSchedule"},
       true},
      {"empty key with Exists and an effect tolerates that effect only",
       {"", "Exists", "", "NoExecute"},
       {"a", "b", "NoSchedule"},
       false},
      {"key with Exists tolerates any value",
       {"a", "Exists", "", ""},
       {"a", "anything", "NoExecute"},
       true},
      {"key with Exists, other key", {"a", "Exists", "", ""}, {"b", "", "NoSchedule"}, false},
      {"Equal with the same value",
       {"a", "Equal", "1", "NoSchedule"},
       {"a", "1", "NoSchedule"},
       true},
      {"Equal with another value",
       {"a", "Equal", "2", "NoSchedule"},
       {"a", "1", "NoSchedule"},
       false},
      {"an empty operator means Equal", {"a", "", "1", ""}, {"a", "1", "PreferNoSchedule"}, true},
      {"an empty operator, other value", {"a", "", "1", ""}, {"a", "2", "PreferNoSchedule"}, false},
      {"Equal and empty values", {"a", "Equal", "", ""}, {"a", "", "NoSchedule"}, true},
      {"empty effect matches every effect", {"a", "Equal", "1", ""}, {"a", "1", "NoExecute"}, true},
      {"another effect", {"a", "Equal", "1", "NoSchedule"}, {"a", "1", "NoExecute"}, false},
      {"empty key with Equal tolerates taints with that value",
       {"", "Equal", "1", ""},
       {"whatever", "1", "NoSchedule"},
       true},
      {"an unknown operator tolerates nothing",
       {"a", "Gt", "1", ""},
       {"a", "1", "NoSchedule"},
       false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(tolerates(c.toleration, c.taint), c.want);
  }
}

TEST(Toleration, FindsTheFirstUntoleratedTaintAmongTheFilteredOnes) {
  const std::vector<OwnedTaint> taints = {{"a", "1", "NoSchedule"},
                                          {"b", "2", "PreferNoSchedule"},
                                          {"c", "3", "NoExecute"},
                                          {"d", "4", "NoSchedule"}};
  const std::vector<OwnedToleration> tolerations = {{"a", "Exists", "", ""}};
  const auto first = find_untolerated_taint(taints, tolerations);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->key, "c");
  const auto any = find_untolerated_taint(taints, tolerations, AllTaints());
  ASSERT_TRUE(any.has_value());
  EXPECT_EQ(any->key, "b");
  const auto prefer = find_untolerated_taint(
      taints, tolerations, [](const OwnedTaint& t) { return t.effect == kEffectPreferNoSchedule; });
  ASSERT_TRUE(prefer.has_value());
  EXPECT_EQ(prefer->value, "2");
  EXPECT_FALSE(
      find_untolerated_taint(taints, std::vector<OwnedToleration>{{"", "Exists", "", ""}}));
  EXPECT_FALSE(find_untolerated_taint(std::vector<OwnedTaint>{}, std::vector<OwnedToleration>{}));
  EXPECT_TRUE(tolerations_tolerate_taint(tolerations, taints[0]));
  EXPECT_FALSE(tolerations_tolerate_taint(std::vector<OwnedToleration>{}, taints[0]));
}

// ---------------------------------------------------------------------------------------------
// DefaultNormalizeScore

struct Scores {
  std::vector<std::int64_t> values;
  std::size_t size() const { return values.size(); }
  std::int64_t& score(std::size_t i) { return values[i]; }
};

TEST(DefaultNormalizeScore, AsUpstream) {
  Scores s{{1, 2, 4}};
  default_normalize_score(s, false);
  EXPECT_THAT(s.values, ElementsAre(25, 50, 100));
  s = {{1, 2, 4}};
  default_normalize_score(s, true);
  EXPECT_THAT(s.values, ElementsAre(75, 50, 0));
  s = {{0, 0}};
  default_normalize_score(s, false);
  EXPECT_THAT(s.values, ElementsAre(0, 0));
  s = {{0, 0}};
  default_normalize_score(s, true);
  EXPECT_THAT(s.values, ElementsAre(100, 100));
  s = {{1, 3}};
  default_normalize_score(s, false, 10);
  EXPECT_THAT(s.values, ElementsAre(3, 10));
}

}  // namespace
}  // namespace schedhost::k8s
