// framework::exercise_plugin in process: real plugin libraries, a cluster read from YAML, and
// exactly what each hook returned.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cluster/cluster_file.hpp"
#include "cluster/yaml_to_json.hpp"
#include "exercise_fixtures.hpp"
#include "framework/plugin_exerciser.hpp"
#include "loader/plugin_registry.hpp"

namespace schedhost {
namespace {

using framework::ExerciseOptions;
using framework::ExerciseResult;
using framework::PerNode;
using framework::Status;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Optional;
using ::testing::Pair;

// "Code" or "Code: reason, reason".
std::string show(const Status& s) {
  std::string out(framework::code_name(s.code));
  return s.reasons.empty() ? out : out + ": " + s.message();
}
std::optional<std::string> show(const std::optional<Status>& s) {
  return s ? std::optional(show(*s)) : std::nullopt;
}
std::vector<std::pair<std::string, std::string>> show(const PerNode<Status>& statuses) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [node, s] : statuses)
    out.emplace_back(node, show(s));
  return out;
}
std::optional<std::vector<std::pair<std::string, std::string>>> show(
    const std::optional<PerNode<Status>>& statuses) {
  return statuses ? std::optional(show(*statuses)) : std::nullopt;
}

constexpr const char* kMissingLabel =
    "UnschedulableAndUnresolvable: node(s) didn't have label gpu-type=nvidia";

class PluginExerciser : public ::testing::Test {
 protected:
  PluginExerciser() {
    registry_.load_file(testing::example_plugin_dir() + "/sample_plugin.so");
    registry_.load_file(testing::example_plugin_dir() + "/example_filter.so");
    registry_.load_file(testing::cycle_plugins_library());
    registry_.load_file(testing::wrapper_fixture_library());
    registry_.load_file(testing::staged_library());
    cluster_ = cluster::load_cluster(files_.write("cluster.yaml", testing::kExerciseCluster));
    snapshot_ = cluster_.snapshot();
    pod_ = std::make_shared<const cluster::Pod>(
        cluster::yaml_to_json(YAML::Load(testing::kExercisePod), "pod.yaml"));
  }

  ExerciseResult exercise(const std::string& plugin, const std::string& args = "{}",
                          ExerciseOptions options = {}) {
    EXPECT_THAT(registry_.failures(), IsEmpty());
    const loader::PluginDefinition* definition = registry_.find(plugin);
    if (definition == nullptr) throw std::logic_error(plugin + " is not loaded");
    const auto instance = framework::PluginInstance::create(*definition, args);
    return framework::exercise_plugin(*instance, snapshot_, *pod_, options);
  }

  static ExerciseOptions framework_order() {
    ExerciseOptions options;
    options.framework_order = true;
    return options;
  }

  testing::ScratchDir files_;
  loader::PluginRegistry registry_;
  cluster::Cluster cluster_;
  cluster::Snapshot snapshot_;
  std::shared_ptr<const cluster::Pod> pod_;
};

TEST_F(PluginExerciser, SamplePluginFiltersAndScoresEveryNodeInSnapshotOrder) {
  const ExerciseResult r = exercise("SamplePlugin");
  EXPECT_EQ(r.pre_enqueue, std::nullopt);
  EXPECT_EQ(r.pre_filter, std::nullopt);
  EXPECT_EQ(r.node_names, std::nullopt);
  EXPECT_THAT(show(r.filter),
              Optional(ElementsAre(Pair("node-a", "Success"),
                                   Pair("node-b", "Unschedulable: Insufficient nvidia.com/gpu"),
                                   Pair("worker-c", kMissingLabel))));
  EXPECT_EQ(r.pre_score, std::nullopt);
  // 100 - requested cpu %, scored on every node (not only the feasible one).
  EXPECT_THAT(r.scores,
              Optional(ElementsAre(Pair("node-a", 75), Pair("node-b", 50), Pair("worker-c", 25))));
  EXPECT_THAT(r.score_errors, IsEmpty());
  EXPECT_EQ(r.normalize_score, std::nullopt);
  EXPECT_EQ(r.normalized_scores, std::nullopt);
}

TEST_F(PluginExerciser, ArgsReachThePlugin) {
  const ExerciseResult r = exercise("SamplePlugin", R"({"whitelistZones":["z1"]})");
  EXPECT_THAT(r.scores,
              Optional(ElementsAre(Pair("node-a", 95), Pair("node-b", 50), Pair("worker-c", 25))));
}

TEST_F(PluginExerciser, WithFrameworkOrderOnlyFeasibleNodesAreScored) {
  const ExerciseResult r = exercise("SamplePlugin", "{}", framework_order());
  EXPECT_EQ(show(r.filter)->size(), 3U);
  EXPECT_THAT(r.scores, Optional(ElementsAre(Pair("node-a", 75))));
}

TEST_F(PluginExerciser, ScoreNodesPickTheNodesScoredInSnapshotOrder) {
  ExerciseOptions options;
  options.score_nodes = {"worker-c", "node-a", "worker-c"};
  const ExerciseResult r = exercise("SamplePlugin", "{}", options);
  EXPECT_THAT(r.scores, Optional(ElementsAre(Pair("node-a", 75), Pair("worker-c", 25))));
  // Filter still sees every node.
  EXPECT_EQ(show(r.filter)->size(), 3U);
}

TEST_F(PluginExerciser, ScoreNodesWinOverFrameworkOrdersFeasibleNodes) {
  ExerciseOptions options = framework_order();
  options.score_nodes = {"node-b"};
  EXPECT_THAT(exercise("SamplePlugin", "{}", options).scores,
              Optional(ElementsAre(Pair("node-b", 50))));
}

TEST_F(PluginExerciser, AScoreNodeOutsideTheSnapshotIsRefused) {
  ExerciseOptions options;
  options.score_nodes = {"node-z"};
  EXPECT_THROW(exercise("SamplePlugin", "{}", options), std::invalid_argument);
}

TEST_F(PluginExerciser, ACPluginsFilter) {
  const ExerciseResult r = exercise("ExampleFilter");
  EXPECT_THAT(
      show(r.filter),
      Optional(ElementsAre(Pair("node-a", "Unschedulable: node name does not contain 'worker'"),
                           Pair("node-b", "Unschedulable: node name does not contain 'worker'"),
                           Pair("worker-c", "Success"))));
  EXPECT_EQ(r.scores, std::nullopt);
}

TEST_F(PluginExerciser, PreFilterWritesWhatFilterReadsInOneCycleState) {
  const ExerciseResult r = exercise("StateCounter", R"({"start":7})");
  EXPECT_EQ(show(r.pre_filter), "Success");
  EXPECT_EQ(r.node_names, std::nullopt);
  EXPECT_THAT(show(r.filter), Optional(ElementsAre(Pair("node-a", "Unschedulable: counter 7"),
                                                   Pair("node-b", "Unschedulable: counter 7"),
                                                   Pair("worker-c", "Unschedulable: counter 7"))));
}

TEST_F(PluginExerciser, PreFilterSkipStillRunsFilterAsUpstreamUnitTestsDo) {
  const ExerciseResult r = exercise("PreFilterRules", R"({"code":"Skip"})");
  EXPECT_EQ(show(r.pre_filter), "Skip");
  const std::string ran = "UnschedulableAndUnresolvable: PreFilterRules' Filter ran";
  EXPECT_THAT(show(r.filter), Optional(ElementsAre(Pair("node-a", ran), Pair("node-b", ran),
                                                   Pair("worker-c", ran))));
}

TEST_F(PluginExerciser, PreFilterSkipSkipsFilterInFrameworkOrder) {
  const ExerciseResult r = exercise("PreFilterRules", R"({"code":"Skip"})", framework_order());
  EXPECT_EQ(show(r.pre_filter), "Skip");
  EXPECT_EQ(r.filter, std::nullopt);
}

TEST_F(PluginExerciser, APreFilterRejectionStillRunsFilter) {
  const ExerciseResult r = exercise(
      "PreFilterRules", R"({"code":"UnschedulableAndUnresolvable","reasons":["no volume"]})");
  EXPECT_EQ(show(r.pre_filter), "UnschedulableAndUnresolvable: no volume");
  EXPECT_EQ(show(r.filter)->size(), 3U);
}

TEST_F(PluginExerciser, APreFilterRejectionStopsInFrameworkOrder) {
  const ExerciseResult r = exercise(
      "PreFilterRules", R"({"code":"Unschedulable","reasons":["no volume"]})", framework_order());
  EXPECT_EQ(show(r.pre_filter), "Unschedulable: no volume");
  EXPECT_EQ(r.filter, std::nullopt);
}

TEST_F(PluginExerciser, NarrowingIsReportedAsGivenAndFilterStillSeesEveryNode) {
  const ExerciseResult r =
      exercise("PreFilterRules", R"({"nodes":["worker-c","node-x","node-a"]})");
  EXPECT_EQ(show(r.pre_filter), "Success");
  EXPECT_THAT(r.node_names, Optional(ElementsAre("worker-c", "node-x", "node-a")));
  EXPECT_EQ(show(r.filter)->size(), 3U);
}

TEST_F(PluginExerciser, NarrowingLimitsFilterInFrameworkOrder) {
  const ExerciseResult r =
      exercise("PreFilterRules", R"({"nodes":["worker-c","node-x","node-a"]})", framework_order());
  const std::string ran = "UnschedulableAndUnresolvable: PreFilterRules' Filter ran";
  EXPECT_THAT(show(r.filter), Optional(ElementsAre(Pair("node-a", ran), Pair("worker-c", ran))));
}

TEST_F(PluginExerciser, NarrowingToNoNodeStopsInFrameworkOrder) {
  const ExerciseResult r = exercise("PreFilterRules", R"({"nodes":["node-x"]})", framework_order());
  EXPECT_THAT(r.node_names, Optional(ElementsAre("node-x")));
  EXPECT_EQ(r.filter, std::nullopt);
}

TEST_F(PluginExerciser, EveryHookOfAPluginThatHasThemAll) {
  ExerciseOptions options;
  options.score_nodes = {"node-b", "worker-c"};
  const ExerciseResult r =
      exercise("Scripted", R"({"score":30,"nodes":["node-b"],"reasons":["fine"]})", options);
  EXPECT_EQ(show(r.pre_enqueue), "Success: fine");
  EXPECT_EQ(show(r.pre_filter), "Success: fine");
  EXPECT_THAT(r.node_names, Optional(ElementsAre("node-b")));
  EXPECT_THAT(show(r.filter),
              Optional(ElementsAre(Pair("node-a", "Success: fine"), Pair("node-b", "Success: fine"),
                                   Pair("worker-c", "Success: fine"))));
  // PreScore saw the two score nodes.
  EXPECT_EQ(show(r.pre_score), "Success: fine, 2 nodes");
  EXPECT_THAT(r.scores, Optional(ElementsAre(Pair("node-b", 30), Pair("worker-c", 30))));
  EXPECT_EQ(show(r.normalize_score), "Success: fine");
  // Scripted's NormalizeScore doubles.
  EXPECT_THAT(r.normalized_scores, Optional(ElementsAre(Pair("node-b", 60), Pair("worker-c", 60))));
}

TEST_F(PluginExerciser, ErrorsEverywhereAreRecordedWithoutFrameworkOrder) {
  const ExerciseResult r = exercise("Scripted", R"({"code":"Error","reasons":["boom"]})");
  EXPECT_EQ(show(r.pre_enqueue), "Error: boom");
  EXPECT_EQ(show(r.pre_filter), "Error: boom");
  EXPECT_EQ(show(r.filter)->size(), 3U);
  EXPECT_EQ(show(r.pre_score), "Error: boom, 3 nodes");
  EXPECT_THAT(r.scores, Optional(IsEmpty()));
  EXPECT_THAT(show(r.score_errors),
              ElementsAre(Pair("node-a", "Error: boom"), Pair("node-b", "Error: boom"),
                          Pair("worker-c", "Error: boom")));
  // NormalizeScore runs over the nodes that scored: none.
  EXPECT_EQ(show(r.normalize_score), "Error: boom");
  EXPECT_EQ(r.normalized_scores, std::nullopt);
}

TEST_F(PluginExerciser, APreEnqueueRejectionStopsInFrameworkOrder) {
  const ExerciseResult r =
      exercise("Scripted", R"({"code":"Unschedulable","reasons":["gated"]})", framework_order());
  EXPECT_EQ(show(r.pre_enqueue), "Unschedulable: gated");
  EXPECT_EQ(r.pre_filter, std::nullopt);
  EXPECT_EQ(r.filter, std::nullopt);
}

TEST_F(PluginExerciser, AFilterErrorStopsBeforeScoringInFrameworkOrder) {
  const std::string args = R"({"filter":{"node-b":{"code":"Error","reasons":["disk gone"]}},
                               "score":{"node-a":10}})";
  const ExerciseResult all = exercise("Staged", args);
  EXPECT_THAT(show(all.filter),
              Optional(ElementsAre(Pair("node-a", "Success"), Pair("node-b", "Error: disk gone"),
                                   Pair("worker-c", "Success"))));
  EXPECT_EQ(show(all.pre_score), "Success: 3 nodes");

  const ExerciseResult ordered = exercise("Staged", args, framework_order());
  EXPECT_EQ(show(ordered.filter), show(all.filter));
  EXPECT_EQ(ordered.pre_score, std::nullopt);
  EXPECT_EQ(ordered.scores, std::nullopt);
}

TEST_F(PluginExerciser, FrameworkOrderScoresTheNodesThatPassedFilter) {
  const ExerciseResult r =
      exercise("Staged",
               R"({"filter":{"node-b":{"code":"Unschedulable","reasons":["full"]}},
          "score":{"node-a":10,"worker-c":30},"normalizeScore":{"add":5}})",
               framework_order());
  EXPECT_EQ(show(r.pre_score), "Success: 2 nodes");
  EXPECT_THAT(r.scores, Optional(ElementsAre(Pair("node-a", 10), Pair("worker-c", 30))));
  EXPECT_THAT(r.normalized_scores, Optional(ElementsAre(Pair("node-a", 15), Pair("worker-c", 35))));
}

TEST_F(PluginExerciser, NoFeasibleNodeStopsBeforePreScoreInFrameworkOrder) {
  const ExerciseResult r =
      exercise("Staged",
               R"({"preFilter":{"nodes":["node-b"]},"filter":{"node-b":{"code":"Unschedulable"}}})",
               framework_order());
  EXPECT_THAT(show(r.filter), Optional(ElementsAre(Pair("node-b", "Unschedulable"))));
  EXPECT_EQ(r.pre_score, std::nullopt);
}

TEST_F(PluginExerciser, AScoreErrorIsRecordedPerNodeAndNormalizeScoreSeesTheOthers) {
  const std::string args = R"({"score":{"node-a":10,"node-b":{"code":"Error","reasons":["nan"]},
                                        "worker-c":30},"normalizeScore":{"add":1}})";
  const ExerciseResult r = exercise("Staged", args);
  EXPECT_THAT(r.scores, Optional(ElementsAre(Pair("node-a", 10), Pair("worker-c", 30))));
  EXPECT_THAT(show(r.score_errors), ElementsAre(Pair("node-b", "Error: nan")));
  EXPECT_THAT(r.normalized_scores, Optional(ElementsAre(Pair("node-a", 11), Pair("worker-c", 31))));

  const ExerciseResult ordered = exercise("Staged", args, framework_order());
  EXPECT_THAT(show(ordered.score_errors), ElementsAre(Pair("node-b", "Error: nan")));
  EXPECT_EQ(ordered.normalize_score, std::nullopt);
  EXPECT_EQ(ordered.normalized_scores, std::nullopt);
}

TEST_F(PluginExerciser, AFailedNormalizeScoreHasNoNormalizedScores) {
  const ExerciseResult r =
      exercise("Staged", R"({"normalizeScore":{"code":"Error","reasons":["cannot normalize"]}})");
  EXPECT_EQ(show(r.normalize_score), "Error: cannot normalize");
  EXPECT_EQ(r.normalized_scores, std::nullopt);
}

TEST_F(PluginExerciser, APreScoreFailureStopsInFrameworkOrder) {
  const ExerciseResult r = exercise(
      "Staged", R"({"preScore":{"code":"Error","reasons":["no data"]}})", framework_order());
  EXPECT_EQ(show(r.pre_score), "Error: no data, 3 nodes");
  EXPECT_EQ(r.scores, std::nullopt);
}

TEST_F(PluginExerciser, NormalizeScoreRewritesTheScores) {
  const ExerciseResult r =
      exercise("NormalizedRules", R"({"scores":{"node-a":20,"node-b":40},"default":10})");
  EXPECT_EQ(r.filter, std::nullopt);
  EXPECT_THAT(r.scores,
              Optional(ElementsAre(Pair("node-a", 20), Pair("node-b", 40), Pair("worker-c", 10))));
  EXPECT_EQ(show(r.normalize_score), "Success");
  EXPECT_THAT(r.normalized_scores,
              Optional(ElementsAre(Pair("node-a", 50), Pair("node-b", 100), Pair("worker-c", 25))));
}

TEST_F(PluginExerciser, PreScoreSkipStillRunsScoreWithoutFrameworkOrder) {
  const ExerciseResult r = exercise("PreScoreRules", R"({"code":"Skip"})");
  EXPECT_EQ(show(r.pre_score), "Skip");
  EXPECT_THAT(r.scores, Optional(IsEmpty()));
  EXPECT_EQ(show(r.score_errors).size(), 3U);
  EXPECT_EQ(show(r.score_errors)[0].second, "Error: PreScoreRules' Score ran");
}

TEST_F(PluginExerciser, PreScoreSkipSkipsScoreInFrameworkOrder) {
  const ExerciseResult r = exercise("PreScoreRules", R"({"code":"Skip"})", framework_order());
  EXPECT_EQ(show(r.pre_score), "Skip");
  EXPECT_EQ(r.scores, std::nullopt);
  EXPECT_THAT(r.score_errors, IsEmpty());
}

TEST_F(PluginExerciser, PreEnqueueAlone) {
  pod_ = std::make_shared<const cluster::Pod>(cluster::yaml_to_json(
      YAML::Load("kind: Pod\nmetadata: {name: gated, labels: {gated: 'true'}}\n"), "pod.yaml"));
  const ExerciseResult r = exercise("GateRules");
  EXPECT_EQ(show(r.pre_enqueue),
            "UnschedulableAndUnresolvable: waiting for scheduling gates: [example.com/gate]");
  EXPECT_EQ(r.pre_filter, std::nullopt);
  EXPECT_EQ(r.filter, std::nullopt);
  EXPECT_EQ(r.scores, std::nullopt);
}

}  // namespace
}  // namespace schedhost
