// `schedhost exercise` as a process: the JSON and table it prints for real plugins, exactly.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "exercise_inputs.hpp"

namespace schedhost {
namespace {

using testing::ExerciseInputs;
using testing::ProcessResult;

// stdout re-printed compactly, keys in the printed order, to compare with a one-line literal.
std::string compact(const ProcessResult& r) {
  return nlohmann::ordered_json::parse(r.out).dump();
}

TEST(ExerciseCommand, SamplePluginAsJsonByDefault) {
  ExerciseInputs in;
  const ProcessResult r = in.run("SamplePlugin");
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, R"({
  "plugin": "SamplePlugin",
  "filter": {
    "node-a": {
      "code": "Success",
      "reasons": []
    },
    "node-b": {
      "code": "Unschedulable",
      "reasons": [
        "Insufficient nvidia.com/gpu"
      ]
    },
    "worker-c": {
      "code": "UnschedulableAndUnresolvable",
      "reasons": [
        "node(s) didn't have label gpu-type=nvidia"
      ]
    }
  },
  "scores": {
    "node-a": 75,
    "node-b": 50,
    "worker-c": 25
  }
}
)");
}

// The page carries what the JSON says, node by node, in data- attributes (and escapes the text).
TEST(ExerciseCommand, SamplePluginAsAPage) {
  ExerciseInputs in;
  const ProcessResult r = in.run("SamplePlugin", {"-o", "html"});
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, ::testing::StartsWith("<!DOCTYPE html>"));
  EXPECT_THAT(r.out, ::testing::HasSubstr(
                         "<tr data-node=\"node-a\"><td>node-a</td><td data-filter=\"Success\">"
                         "Success</td><td data-score=\"75\""));
  EXPECT_THAT(r.out,
              ::testing::HasSubstr(
                  "<tr data-node=\"node-b\"><td>node-b</td><td data-filter=\"Unschedulable\">"
                  "Unschedulable: Insufficient nvidia.com/gpu</td><td data-score=\"50\""));
  EXPECT_THAT(r.out,
              ::testing::HasSubstr(
                  "<td data-filter=\"UnschedulableAndUnresolvable\">UnschedulableAndUnresolvable: "
                  "node(s) didn&#39;t have label gpu-type=nvidia</td><td data-score=\"25\""));
  EXPECT_EQ(r.out.find("<script"), std::string::npos);
}

TEST(ExerciseCommand, SamplePluginAsATable) {
  ExerciseInputs in;
  const ProcessResult r = in.run("SamplePlugin", {"-o", "table"});
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out,
            "plugin: SamplePlugin\n"
            "\n"
            "NODE      FILTER                        REASONS                                    "
            "SCORE\n"
            "node-a    Success                                                                  "
            "75\n"
            "node-b    Unschedulable                 Insufficient nvidia.com/gpu                "
            "50\n"
            "worker-c  UnschedulableAndUnresolvable  node(s) didn't have label gpu-type=nvidia  "
            "25\n");
}

TEST(ExerciseCommand, EveryHookAsATable) {
  ExerciseInputs in;
  const ProcessResult r =
      in.run("Staged", {"-o", "table", "--score-nodes", "node-a,node-b", "--args",
                        R"({"preFilter":{"nodes":["node-a","node-b"]},
           "filter":{"worker-c":{"code":"Unschedulable","reasons":["full"]}},
           "score":{"node-a":10,"node-b":{"code":"Error","reasons":["nan"]}},
           "normalizeScore":{"add":5}})"});
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out,
            "plugin: Staged\n"
            "\n"
            "POINT           CODE     REASONS\n"
            "PreEnqueue      Success\n"
            "PreFilter       Success\n"
            "PreScore        Success  2 nodes\n"
            "NormalizeScore  Success\n"
            "PreFilter kept nodes: node-a, node-b\n"
            "\n"
            "NODE      FILTER         REASONS  SCORE       NORMALIZED\n"
            "node-a    Success                 10          15\n"
            "node-b    Success                 Error: nan  -\n"
            "worker-c  Unschedulable  full     -           -\n");
}

TEST(ExerciseCommand, ACPluginBuiltIn) {
  ExerciseInputs in;
  const ProcessResult r = in.run("ExampleFilter");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(
      compact(r),
      R"({"plugin":"ExampleFilter","filter":{)"
      R"("node-a":{"code":"Unschedulable","reasons":["node name does not contain 'worker'"]},)"
      R"("node-b":{"code":"Unschedulable","reasons":["node name does not contain 'worker'"]},)"
      R"("worker-c":{"code":"Success","reasons":[]}}})");
}

TEST(ExerciseCommand, InlineArgs) {
  ExerciseInputs in;
  const ProcessResult r = in.run("SamplePlugin", {"--args", R"({"whitelistZones": ["z1"]})"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(r.out)["scores"].dump(),
            R"({"node-a":95,"node-b":50,"worker-c":25})");
}

TEST(ExerciseCommand, ArgsFromAJsonFile) {
  ExerciseInputs in;
  const std::string file = in.files.write("args.json", R"({"whitelistZones": ["z1"]})");
  const ProcessResult r = in.run("SamplePlugin", {"--args", "@" + file});
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(r.out)["scores"].dump(),
            R"({"node-a":95,"node-b":50,"worker-c":25})");
}

TEST(ExerciseCommand, ArgsFromAYamlFile) {
  ExerciseInputs in;
  const std::string file = in.files.write("args.yaml", "whitelistZones:\n  - z2\nthreshold: 50\n");
  const ProcessResult r = in.run("SamplePlugin", {"--args", "@" + file});
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.exit_code, 0);
  // node-b is at the threshold (50%): 0, no bonus.
  EXPECT_EQ(nlohmann::json::parse(r.out)["scores"].dump(),
            R"({"node-a":75,"node-b":0,"worker-c":0})");
}

TEST(ExerciseCommand, AnEmptyArgsFileIsNoArgs) {
  ExerciseInputs in;
  const std::string file = in.files.write("args.yaml", "");
  const ProcessResult r = in.run("ExampleFilter", {"--args", "@" + file});
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.exit_code, 0);
}

TEST(ExerciseCommand, PreFilterSkipStillRunsFilter) {
  ExerciseInputs in;
  const ProcessResult r = in.run("PreFilterRules", {"--args", R"({"code":"Skip"})"});
  EXPECT_EQ(r.exit_code, 0);
  const std::string ran =
      R"({"code":"UnschedulableAndUnresolvable","reasons":["PreFilterRules' Filter ran"]})";
  EXPECT_EQ(compact(r), R"({"plugin":"PreFilterRules",)"
                        R"("preFilter":{"code":"Skip","reasons":[]},)"
                        R"("filter":{"node-a":)" +
                            ran + R"(,"node-b":)" + ran + R"(,"worker-c":)" + ran + "}}");
}

TEST(ExerciseCommand, PreFilterSkipSkipsFilterInFrameworkOrder) {
  ExerciseInputs in;
  const ProcessResult r =
      in.run("PreFilterRules", {"--args", R"({"code":"Skip"})", "--framework-order"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(compact(r), R"({"plugin":"PreFilterRules","preFilter":{"code":"Skip","reasons":[]}})");
}

TEST(ExerciseCommand, APreFilterRejection) {
  ExerciseInputs in;
  const std::string args = R"({"code":"Unschedulable","reasons":["pvc \"data\" not found"]})";
  const ProcessResult all = in.run("PreFilterRules", {"--args", args});
  EXPECT_EQ(all.exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(all.out)["filter"].size(), 3U);
  const ProcessResult ordered = in.run("PreFilterRules", {"--args", args, "--framework-order"});
  EXPECT_EQ(ordered.exit_code, 0);
  EXPECT_EQ(compact(ordered), R"({"plugin":"PreFilterRules","preFilter":{"code":"Unschedulable",)"
                              R"("reasons":["pvc \"data\" not found"]}})");
}

TEST(ExerciseCommand, NarrowingShowsTheNodeNames) {
  ExerciseInputs in;
  const ProcessResult r = in.run(
      "PreFilterRules", {"--args", R"({"nodes":["worker-c","node-a"]})", "--framework-order"});
  EXPECT_EQ(r.exit_code, 0);
  const std::string ran =
      R"({"code":"UnschedulableAndUnresolvable","reasons":["PreFilterRules' Filter ran"]})";
  EXPECT_EQ(compact(r),
            R"({"plugin":"PreFilterRules",)"
            R"("preFilter":{"code":"Success","reasons":[],"nodeNames":["worker-c","node-a"]},)"
            R"("filter":{"node-a":)" +
                ran + R"(,"worker-c":)" + ran + "}}");
}

TEST(ExerciseCommand, ScoreNodesAndNormalizeScore) {
  ExerciseInputs in;
  const ProcessResult r =
      in.run("NormalizedRules", {"--args", R"({"scores":{"node-a":20,"node-b":40,"worker-c":80}})",
                                 "--score-nodes", "node-b,node-a"});
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(compact(r), R"({"plugin":"NormalizedRules","scores":{"node-a":20,"node-b":40},)"
                        R"("normalizedScores":{"node-a":50,"node-b":100}})");
}

TEST(ExerciseCommand, EveryHookWithScoreErrorsAndAFailedNormalizeScore) {
  ExerciseInputs in;
  const ProcessResult r =
      in.run("Staged", {"--args", R"({"preEnqueue":{"code":"Success","reasons":["not gated"]},
                               "score":{"node-a":10,"worker-c":{"code":"Error","reasons":["nan"]}},
                               "normalizeScore":{"code":"Error","reasons":["no max"]}})"});
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.exit_code, 0);
  const std::string ok = R"({"code":"Success","reasons":[]})";
  EXPECT_EQ(compact(r),
            R"({"plugin":"Staged","preEnqueue":{"code":"Success","reasons":["not gated"]},)"
            R"("preFilter":)" +
                ok + R"(,"filter":{"node-a":)" + ok + R"(,"node-b":)" + ok + R"(,"worker-c":)" +
                ok +
                R"(},"preScore":{"code":"Success","reasons":["3 nodes"]},)"
                R"("scores":{"node-a":10,"node-b":0},)"
                R"("scoreErrors":{"worker-c":{"code":"Error","reasons":["nan"]}},)"
                R"("normalizeScore":{"code":"Error","reasons":["no max"]}})");
}

TEST(ExerciseCommand, APodFileInJson) {
  ExerciseInputs in;
  in.pod = in.files.write(
      "pod.json", R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"prod"},
                      "spec":{"containers":[{"name":"c","image":"i"}]}})");
  const ProcessResult r = in.run("SamplePlugin", {"--args", R"({"whitelistZones":["z1"]})"});
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(r.out)["filter"]["node-a"]["code"], "Success");
  EXPECT_EQ(nlohmann::json::parse(r.out)["scores"]["node-a"], 95);
}

TEST(ExerciseCommand, APodWithANodeNameIsExercisedAsIs) {
  ExerciseInputs in;
  in.pod = in.files.write("pod.yaml",
                          "kind: Pod\nmetadata: {name: p}\nspec: {nodeName: somewhere-else}\n");
  const ProcessResult r = in.run("ExampleFilter");
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.exit_code, 0);
}

TEST(ExerciseCommand, APluginWithNothingToExerciseIsAWarning) {
  ExerciseInputs in;
  const ProcessResult r = in.run("DefaultBinder");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err,
            "warning: plugin \"DefaultBinder\" has none of PreEnqueue, PreFilter, Filter, PreScore "
            "and Score: there is nothing to exercise\n");
  EXPECT_EQ(compact(r), R"({"plugin":"DefaultBinder"})");
}

}  // namespace
}  // namespace schedhost
