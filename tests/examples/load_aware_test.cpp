// LoadAware (plugins/examples/load_aware) through the host: scores from measured utilisation
// (node annotations), from requests when a node has none, and the pods it placed during the run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "example_run.hpp"
#include "support/fixtures.hpp"

namespace schedhost {
namespace {

using testing::Decision;
using ::testing::ElementsAre;
using testing::example_data;
using testing::run_example;

const std::string kLoadAwareProfile = example_data("load-aware-profile.yaml");
const std::string kCluster = example_data("load-aware-cluster.yaml");
const std::string kExamplesDir = SCHEDHOST_EXAMPLE_PLUGIN_DIR;

// node -> LoadAware's score in the explanation of one pod.
std::map<std::string, int> scores(const testing::ExampleRun& run, const std::string& pod) {
  std::map<std::string, int> out;
  for (const auto& [node, e] : run.explain(pod).items()) {
    EXPECT_EQ(e.at("filter").at("code"), "Success") << node;
    out[node] = e.at("scores").at("LoadAware");
    EXPECT_EQ(e.at("total"), e.at("scores").at("LoadAware")) << "weight 1";
  }
  return out;
}

using Scores = std::map<std::string, int>;

TEST(LoadAware, PrefersTheLeastUtilisedNodeAndCountsThePodsItPlaced) {
  const auto run = run_example(kLoadAwareProfile, kCluster, kExamplesDir, {"--explain"});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  EXPECT_EQ(run.process.err, "");
  EXPECT_THAT(run.decisions(), ElementsAre(Decision{"default/p1", "Scheduled", "node-b", ""},
                                           Decision{"default/p2", "Scheduled", "node-c", ""},
                                           Decision{"default/p3", "Scheduled", "node-b", ""}));
  // score = floor(100 - (2 * cpu% + memory%) / 3); the arithmetic is in load-aware-cluster.yaml.
  // node-a and node-b: annotations; node-c: requests (the running pod, then p2 too).
  EXPECT_EQ(scores(run, "default/p1"), (Scores{{"node-a", 40}, {"node-b", 75}, {"node-c", 58}}));
  // p1 on node-b adds 25% cpu and 12.5% memory to its measurement: 37.5% and 62.5% -> 54.
  EXPECT_EQ(scores(run, "default/p2"), (Scores{{"node-a", 40}, {"node-b", 54}, {"node-c", 58}}));
  // p2 on node-c: requests 3 cpu and 3Gi, 75% and 37.5% -> 37.
  EXPECT_EQ(scores(run, "default/p3"), (Scores{{"node-a", 40}, {"node-b", 54}, {"node-c", 37}}));
}

TEST(LoadAware, WithoutArgsCpuAndMemoryWeighTheSame) {
  testing::ScratchDir dir;
  std::string profile = testing::read_file(kLoadAwareProfile);
  const std::string args = "        args:\n          resourceWeights: {cpu: 2, memory: 1}\n";
  ASSERT_NE(profile.find(args), std::string::npos);
  profile.replace(profile.find(args), args.size(), "        args: {}\n");
  const auto run =
      run_example(dir.write("profile.yaml", profile), kCluster, kExamplesDir, {"--explain"});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  // node-a (80 + 20) / 2 = 50; node-b (12.5 + 50) / 2 = 31.25 -> 68; node-c (50 + 25) / 2 -> 62.
  EXPECT_EQ(scores(run, "default/p1"), (Scores{{"node-a", 50}, {"node-b", 68}, {"node-c", 62}}));
}

TEST(LoadAware, AnAnnotationThatIsNotAPercentageFallsBackToRequestsWithAWarning) {
  testing::ScratchDir dir;
  std::string cluster = testing::read_file(kCluster);
  const std::string from = "schedhost.io/cpu-utilization: \"80\"";
  ASSERT_NE(cluster.find(from), std::string::npos);
  cluster.replace(cluster.find(from), from.size(), "schedhost.io/cpu-utilization: \"120\"");
  const auto run = run_example(kLoadAwareProfile, dir.write("cluster.yaml", cluster), kExamplesDir,
                               {"--explain"});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  // node-a: cpu from requests (nothing on it: 0%), memory still measured 20% -> 100 - 20/3 = 93.
  EXPECT_EQ(scores(run, "default/p1"), (Scores{{"node-a", 93}, {"node-b", 75}, {"node-c", 58}}));
  EXPECT_THAT(run.process.err,
              ::testing::HasSubstr("node node-a: annotation schedhost.io/cpu-utilization=\"120\" "
                                   "is not a percentage from 0 to 100: using its requests"));
}

TEST(LoadAware, BadWeightsStopTheRunWithOneLine) {
  testing::ScratchDir dir;
  std::string profile = testing::read_file(kLoadAwareProfile);
  const std::string from = "resourceWeights: {cpu: 2, memory: 1}";
  profile.replace(profile.find(from), from.size(), "resourceWeights: {cpu: 0, gpu: 1}");
  const std::string config = dir.write("profile.yaml", profile);
  const auto run = run_example(config, kCluster, kExamplesDir);
  EXPECT_EQ(run.process.exit_code, 2);
  EXPECT_EQ(run.process.out, "");
  EXPECT_EQ(run.process.err, "error: " + config +
                                 ":29:15: plugin \"LoadAware\": resourceWeights: unknown resource "
                                 "\"gpu\": only cpu and memory are measured\n");
}

}  // namespace
}  // namespace schedhost
