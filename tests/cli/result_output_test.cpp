// The output formats of `schedhost run` (json, yaml, table), from hand-built results.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>

#include "cli/output_text.hpp"
#include "cli/result_json.hpp"
#include "cli/result_table.hpp"
#include "cli/result_yaml.hpp"
#include "cli/table.hpp"
#include "scheduler/run_result.hpp"

namespace schedhost::cli {
namespace {

using scheduler::Explanation;
using scheduler::FilterVerdict;
using scheduler::NodeExplanation;
using scheduler::PodResult;
using scheduler::RunResult;

NodeExplanation scored(std::vector<std::pair<std::string, std::int64_t>> scores,
                       std::int64_t total) {
  return NodeExplanation{FilterVerdict{"Success", "", {}}, std::move(scores), total};
}

NodeExplanation rejected(std::string code, std::string plugin, std::vector<std::string> reasons) {
  return NodeExplanation{
      FilterVerdict{std::move(code), std::move(plugin), std::move(reasons)}, {}, std::nullopt};
}

// The example of DESIGN.md "Output (-o json)".
RunResult design_example() {
  RunResult r;
  Explanation explain;
  explain.nodes.emplace_back("node-a",
                             scored({{"NodeResourcesFit", 87}, {"TaintToleration", 100}}, 187));
  explain.nodes.emplace_back("node-b",
                             rejected("Unschedulable", "NodeResourcesFit", {"Insufficient cpu"}));
  r.pods.push_back(
      PodResult{"default/web-1", "default-scheduler", "Scheduled", "node-a", "", explain, {}});
  return r;
}

// One pod of each result, explained where the scheduler would explain it.
RunResult mixed_result() {
  RunResult r = design_example();
  Explanation full;
  full.nodes.emplace_back("node-a", rejected("Unschedulable", "NodeResourcesFit",
                                             {"Insufficient cpu", "Insufficient memory"}));
  full.nodes.emplace_back("node-b",
                          rejected("UnschedulableAndUnresolvable", "NodeAffinity",
                                   {"node(s) didn't match Pod's node affinity/selector"}));
  full.nodes.emplace_back("node-c", rejected("NotEvaluated", "", {"excluded by PreFilter"}));
  r.pods.push_back(PodResult{"default/big",
                             "default-scheduler",
                             "Unschedulable",
                             "",
                             "0/3 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, "
                             "1 node(s) didn't match Pod's node affinity/selector.",
                             full,
                             {}});
  r.pods.push_back(PodResult{"batch/job-7",
                             "",
                             "Skipped",
                             "",
                             "no profile serves schedulerName \"gang\"",
                             std::nullopt,
                             {}});
  r.pods.push_back(PodResult{"default/db-0",
                             "default-scheduler",
                             "Error",
                             "",
                             "running Bind plugin \"DefaultBinder\": connection refused",
                             std::nullopt,
                             {}});
  return r;
}

std::string json_of(const RunResult& r) {
  std::ostringstream out;
  write_json(r, out);
  return out.str();
}
std::string yaml_of(const RunResult& r) {
  std::ostringstream out;
  write_yaml(r, out);
  return out.str();
}
std::string table_of(const RunResult& r) {
  std::ostringstream out;
  write_table(r, out);
  return out.str();
}

TEST(ResultJson, IsTheDocumentOfTheDesign) {
  EXPECT_EQ(nlohmann::json::parse(json_of(design_example())), nlohmann::json::parse(R"({
  "pods": [
    {"pod": "default/web-1", "profile": "default-scheduler", "result": "Scheduled", "node": "node-a", "message": "",
     "explain": {"nodes": {
        "node-a": {"filter": {"code": "Success"}, "scores": {"NodeResourcesFit": 87, "TaintToleration": 100}, "total": 187},
        "node-b": {"filter": {"code": "Unschedulable", "plugin": "NodeResourcesFit", "reasons": ["Insufficient cpu"]}}}}}
  ],
  "summary": {"scheduled": 1, "unschedulable": 0, "skipped": 0, "errors": 0, "preempted": 0}
})"));
}

TEST(ResultJson, KeepsTheContractOrderAndIndentsByTwo) {
  EXPECT_EQ(json_of(design_example()), R"({
  "pods": [
    {
      "pod": "default/web-1",
      "profile": "default-scheduler",
      "result": "Scheduled",
      "node": "node-a",
      "message": "",
      "explain": {
        "nodes": {
          "node-a": {
            "filter": {
              "code": "Success"
            },
            "scores": {
              "NodeResourcesFit": 87,
              "TaintToleration": 100
            },
            "total": 187
          },
          "node-b": {
            "filter": {
              "code": "Unschedulable",
              "plugin": "NodeResourcesFit",
              "reasons": [
                "Insufficient cpu"
              ]
            }
          }
        }
      }
    }
  ],
  "summary": {
    "scheduled": 1,
    "unschedulable": 0,
    "skipped": 0,
    "errors": 0,
    "preempted": 0
  }
}
)");
}

TEST(ResultJson, ExplainOnlyWhenPresentAndNodesInSnapshotOrder) {
  RunResult r = mixed_result();
  // Nodes named against alphabetical order: the output keeps the snapshot's order.
  r.pods[0].explain->nodes[0].first = "zeta";
  r.pods[0].explain->nodes[1].first = "alpha";
  const auto json = result_to_json(r);
  ASSERT_EQ(json["pods"].size(), 4u);
  std::vector<std::string> nodes;
  for (const auto& [name, node] : json["pods"][0]["explain"]["nodes"].items())
    nodes.push_back(name);
  EXPECT_THAT(nodes, ::testing::ElementsAre("zeta", "alpha"));
  EXPECT_EQ(json["pods"][1]["explain"]["nodes"]["node-c"].dump(),
            R"({"filter":{"code":"NotEvaluated","reasons":["excluded by PreFilter"]}})");
  EXPECT_EQ(json["pods"][2].dump(),
            R"({"pod":"batch/job-7","profile":"","result":"Skipped","node":"",)"
            R"("message":"no profile serves schedulerName \"gang\""})");
  EXPECT_FALSE(json["pods"][3].contains("explain"));
  EXPECT_EQ(json["summary"].dump(),
            R"({"scheduled":1,"unschedulable":1,"skipped":1,"errors":1,"preempted":0})");
}

TEST(ResultJson, AFilterVerdictWithAPluginButNoReasonsHasNoReasons) {
  RunResult r;
  Explanation e;
  e.nodes.emplace_back("n", rejected("Error", "Broken", {}));
  r.pods.push_back(PodResult{"d/p", "s", "Error", "", "boom", e, {}});
  EXPECT_EQ(result_to_json(r)["pods"][0]["explain"].dump(),
            R"({"nodes":{"n":{"filter":{"code":"Error","plugin":"Broken"}}}})");
}

// A preemptor lists its victims; each victim is an entry of its own, counted as preempted.
TEST(ResultJson, APreemptorListsItsVictims) {
  RunResult r;
  r.pods.push_back(PodResult{
      "d/low", "s", scheduler::kPreempted, "n", "Preempted by pod uid-high on node n", {}, {}});
  r.pods.push_back(PodResult{"d/high", "s", scheduler::kScheduled, "n", "", {}, {"d/low"}});
  const nlohmann::json json = result_to_json(r);
  EXPECT_EQ(json["pods"][0], nlohmann::json::parse(R"({"pod": "d/low", "profile": "s",
    "result": "Preempted", "node": "n", "message": "Preempted by pod uid-high on node n"})"));
  EXPECT_EQ(json["pods"][1]["preempted"], nlohmann::json::parse(R"(["d/low"])"));
  EXPECT_EQ(json["summary"], nlohmann::json::parse(R"({"scheduled": 1, "unschedulable": 0,
    "skipped": 0, "errors": 0, "preempted": 1})"));
  EXPECT_EQ(table_of(r),
            "POD     PROFILE  RESULT     NODE  MESSAGE\n"
            "d/low   s        Preempted  n     Preempted by pod uid-high on node n\n"
            "d/high  s        Scheduled  n     preempted: d/low\n"
            "\nscheduled: 1, unschedulable: 0, skipped: 0, errors: 0, preempted: 1\n");
}

TEST(ResultJson, GatedCountsAsUnschedulable) {
  RunResult r;
  r.pods.push_back(PodResult{"d/gated", "s", scheduler::kGated, "", "waiting for gates", {}, {}});
  EXPECT_EQ(result_to_json(r)["summary"].dump(),
            R"({"scheduled":0,"unschedulable":1,"skipped":0,"errors":0,"preempted":0})");
}

TEST(ResultJson, NoPodsIsAnEmptyList) {
  EXPECT_EQ(json_of(RunResult{}),
            "{\n  \"pods\": [],\n  \"summary\": {\n    \"scheduled\": 0,\n    \"unschedulable\": "
            "0,\n    \"skipped\": 0,\n    \"errors\": 0,\n    \"preempted\": 0\n  }\n}\n");
}

TEST(ResultJson, InvalidUtf8FromAPluginIsReplacedNotFatal) {
  RunResult r;
  Explanation e;
  e.nodes.emplace_back("n", rejected("Unschedulable", "Bytes", {std::string("bad \xff byte")}));
  r.pods.push_back(PodResult{"d/p", "s", "Unschedulable", "", std::string("m\xc3"), e, {}});
  const auto json = nlohmann::json::parse(json_of(r));
  EXPECT_EQ(json["pods"][0]["message"], "m\xEF\xBF\xBD");
  EXPECT_EQ(json["pods"][0]["explain"]["nodes"]["n"]["filter"]["reasons"][0],
            "bad \xEF\xBF\xBD byte");
}

// write_json streams the pods instead of building result_to_json's tree: the bytes must be the
// tree's, for every shape of entry and every character a string can hold.
TEST(ResultJson, TheStreamedDocumentIsTheTreesDump) {
  RunResult r = mixed_result();
  std::string every_byte;
  for (int c = 1; c < 0x80; ++c)
    every_byte.push_back(static_cast<char>(c));
  r.pods.push_back(PodResult{"d/\"quoted\"\\",
                             "s\tx",
                             "Unschedulable",
                             "",
                             every_byte + "caf\xc3\xa9 \xe2\x9c\x93 \xff",
                             std::nullopt,
                             {}});
  r.pods.push_back(PodResult{"d/high", "s", scheduler::kScheduled, "n", "", {}, {"d/low"}});
  PodResult with_events{"d/e", "s", scheduler::kScheduled, "n", "", {}, {}};
  with_events.events.push_back({"P", "Warning", "Why", "line\nbreak"});
  r.pods.push_back(with_events);
  r.written.push_back({"podgroups.v1alpha1.scheduling.x-k8s.io", "ns/g",
                       nlohmann::json{{"status", {{"phase", "Running"}}}}});
  r.written.push_back({"podgroups.v1alpha1.scheduling.x-k8s.io", "ns/gone", nullptr});
  EXPECT_EQ(json_of(r), result_to_json(r).dump(2, ' ', false,
                                               nlohmann::ordered_json::error_handler_t::replace) +
                            "\n");
}

TEST(ResultYaml, IsTheJsonDocumentInBlockStyle) {
  EXPECT_EQ(yaml_of(design_example()), R"(pods:
  - pod: default/web-1
    profile: default-scheduler
    result: Scheduled
    node: node-a
    message: ""
    explain:
      nodes:
        node-a:
          filter:
            code: Success
          scores:
            NodeResourcesFit: 87
            TaintToleration: 100
          total: 187
        node-b:
          filter:
            code: Unschedulable
            plugin: NodeResourcesFit
            reasons:
              - Insufficient cpu
summary:
  scheduled: 1
  unschedulable: 0
  skipped: 0
  errors: 0
  preempted: 0
)");
}

TEST(ResultYaml, NoPodsIsAnEmptyFlowList) {
  EXPECT_EQ(yaml_of(RunResult{}),
            "pods: []\nsummary:\n  scheduled: 0\n  unschedulable: 0\n  skipped: 0\n  errors: 0\n  "
            "preempted: 0\n");
}

// Parses YAML into JSON with the YAML 1.2 core schema's plain-scalar rules for the values the
// writer produces: quoted scalars are strings, plain integers are numbers.
nlohmann::json to_json(const YAML::Node& node) {
  if (node.IsMap()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& item : node)
      out[item.first.Scalar()] = to_json(item.second);
    return out;
  }
  if (node.IsSequence()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : node)
      out.push_back(to_json(item));
    return out;
  }
  if (node.Tag() == "!") return node.Scalar();
  try {
    std::size_t used = 0;
    const long long value = std::stoll(node.Scalar(), &used);
    if (used == node.Scalar().size()) return value;
  } catch (const std::exception&) {
  }
  return node.Scalar();
}

TEST(ResultYaml, ReadsBackAsTheJsonDocument) {
  RunResult r = mixed_result();
  // Names and reasons a YAML reader would take for numbers, booleans or null stay strings.
  r.pods[0].explain->nodes[0].first = "123";
  r.pods[0].explain->nodes[1].second.filter.reasons = {"true", "null", "yes", "-", "a: b", "#x"};
  r.pods[1].message = "multi\nline\t\"quoted\"";
  std::string yaml = yaml_of(r);
  EXPECT_THAT(yaml, ::testing::HasSubstr("\n        \"123\":\n"));
  EXPECT_THAT(yaml, ::testing::HasSubstr(
                        "- \"true\"\n              - \"null\"\n              - \"yes\"\n"));
  EXPECT_EQ(to_json(YAML::Load(yaml)), nlohmann::json::parse(result_to_json(r).dump()));
}

TEST(ResultTable, OneRowPerPodThenTheSummary) {
  RunResult r = mixed_result();
  for (auto& pod : r.pods)
    pod.explain.reset();
  EXPECT_EQ(table_of(r),
            "POD            PROFILE            RESULT         NODE    MESSAGE\n"
            "default/web-1  default-scheduler  Scheduled      node-a\n"
            "default/big    default-scheduler  Unschedulable  <none>  0/3 nodes are available: 1 "
            "Insufficient cpu, 1 Insufficient memory, 1 node(s) didn't match Pod's node "
            "affinity/selector.\n"
            "batch/job-7    <none>             Skipped        <none>  no profile serves "
            "schedulerName \"gang\"\n"
            "default/db-0   default-scheduler  Error          <none>  running Bind plugin "
            "\"DefaultBinder\": connection refused\n"
            "\n"
            "scheduled: 1, unschedulable: 1, skipped: 1, errors: 1, preempted: 0\n");
}

TEST(ResultTable, ExplainPutsEachPodsNodesUnderItsRow) {
  EXPECT_EQ(table_of(mixed_result()),
            "POD            PROFILE            RESULT         NODE    MESSAGE\n"
            "default/web-1  default-scheduler  Scheduled      node-a\n"
            "    NODE    FILTER         NodeResourcesFit  TaintToleration  TOTAL  REASON\n"
            "    node-a  Success        87                100              187\n"
            "    node-b  Unschedulable  -                 -                -      "
            "NodeResourcesFit: Insufficient cpu\n"
            "default/big    default-scheduler  Unschedulable  <none>  0/3 nodes are available: 1 "
            "Insufficient cpu, 1 Insufficient memory, 1 node(s) didn't match Pod's node "
            "affinity/selector.\n"
            "    NODE    FILTER                        REASON\n"
            "    node-a  Unschedulable                 NodeResourcesFit: Insufficient cpu; "
            "Insufficient memory\n"
            "    node-b  UnschedulableAndUnresolvable  NodeAffinity: node(s) didn't match Pod's "
            "node affinity/selector\n"
            "    node-c  NotEvaluated                  excluded by PreFilter\n"
            "batch/job-7    <none>             Skipped        <none>  no profile serves "
            "schedulerName \"gang\"\n"
            "default/db-0   default-scheduler  Error          <none>  running Bind plugin "
            "\"DefaultBinder\": connection refused\n"
            "\n"
            "scheduled: 1, unschedulable: 1, skipped: 1, errors: 1, preempted: 0\n");
}

TEST(ResultTable, AFeasibleNodeThatWasNotScoredShowsDashes) {
  RunResult r;
  Explanation e;
  e.nodes.emplace_back("only", NodeExplanation{FilterVerdict{"Success", "", {}}, {}, {}});
  r.pods.push_back(PodResult{"d/p", "s", "Scheduled", "only", "", e, {}});
  EXPECT_EQ(table_of(r),
            "POD  PROFILE  RESULT     NODE  MESSAGE\n"
            "d/p  s        Scheduled  only\n"
            "    NODE  FILTER   REASON\n"
            "    only  Success\n"
            "\n"
            "scheduled: 1, unschedulable: 0, skipped: 0, errors: 0, preempted: 0\n");
}

TEST(ResultTable, NoPodsIsTheHeaderAndTheSummary) {
  EXPECT_EQ(table_of(RunResult{}),
            "POD  PROFILE  RESULT  NODE  MESSAGE\n"
            "\n"
            "scheduled: 0, unschedulable: 0, skipped: 0, errors: 0, preempted: 0\n");
}

TEST(ResultTable, CellsStayOnOneLineAndAlignByCodePoint) {
  RunResult r;
  r.pods.push_back(PodResult{"d/été", "s", "Error", "", "first\nsecond\tthird", {}, {}});
  r.pods.push_back(PodResult{"d/abcd", "s", "Error", "", std::string("bad \xff"), {}, {}});
  EXPECT_EQ(table_of(r),
            "POD     PROFILE  RESULT  NODE    MESSAGE\n"
            "d/été   s        Error   <none>  first second third\n"
            "d/abcd  s        Error   <none>  bad \xEF\xBF\xBD\n"
            "\n"
            "scheduled: 0, unschedulable: 0, skipped: 0, errors: 2, preempted: 0\n");
}

TEST(OutputText, ValidUtf8KeepsWellFormedTextAndReplacesTheRest) {
  EXPECT_EQ(valid_utf8("plain ascii"), "plain ascii");
  EXPECT_EQ(valid_utf8("\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"),
            "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
  const std::string r = "\xEF\xBF\xBD";
  EXPECT_EQ(valid_utf8("\x80"), r);                          // stray continuation byte
  EXPECT_EQ(valid_utf8("a\xC3"), "a" + r);                   // truncated sequence
  EXPECT_EQ(valid_utf8("\xC0\xAF"), r + r);                  // overlong "/"
  EXPECT_EQ(valid_utf8("\xED\xA0\x80"), r + r + r);          // a surrogate
  EXPECT_EQ(valid_utf8("\xF4\x90\x80\x80"), r + r + r + r);  // past U+10FFFF
  EXPECT_EQ(valid_utf8(std::string("a\0b", 3)), std::string("a\0b", 3));
}

TEST(OutputText, OneLineTurnsControlCharactersIntoSpaces) {
  EXPECT_EQ(one_line("a\nb\r\tc\x7f"), "a b  c ");
  EXPECT_EQ(display_width("été"), 3u);
}

TEST(Table, LeavesNoBlanksAtTheEndOfALine) {
  Table t({"A", "B", "C"});
  t.add_row({"long value", "", ""});
  t.add_row({"x", "y", "z"});
  std::ostringstream out;
  t.print(out);
  EXPECT_EQ(out.str(),
            "A           B  C\n"
            "long value\n"
            "x           y  z\n");
}

}  // namespace
}  // namespace schedhost::cli
