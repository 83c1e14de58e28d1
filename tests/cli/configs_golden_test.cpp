// The example in configs/ (what `make run` shows), end to end, against a golden JSON file.
// After a deliberate change of behaviour, regenerate it from the repository root with:
//   build/bin/schedhost run --config configs/scheduler-config.yaml
//     --cluster configs/cluster.yaml -o json --explain > tests/cli/golden/configs-explain.json
// (one line).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>
#include <string>

#include "support/fixtures.hpp"
#include "support/process.hpp"

namespace schedhost {
namespace {

const std::string kSource = SCHEDHOST_SOURCE_DIR;

TEST(ConfigsExample, ExplainJsonMatchesTheGoldenFile) {
  const auto r =
      testing::run_schedhost({"run", "--config", kSource + "/configs/scheduler-config.yaml",
                              "--cluster", kSource + "/configs/cluster.yaml", "-o", "json",
                              "--explain", "--plugin-dir", testing::example_plugin_dir()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto golden =
      nlohmann::json::parse(testing::read_file(kSource + "/tests/cli/golden/configs-explain.json"));
  EXPECT_EQ(nlohmann::json::parse(r.out), golden);
}

TEST(ConfigsExample, EveryPendingPodAppearsExactlyOnce) {
  const auto r =
      testing::run_schedhost({"run", "--config", kSource + "/configs/scheduler-config.yaml",
                              "--cluster", kSource + "/configs/cluster.yaml", "-o", "json",
                              "--plugin-dir", testing::example_plugin_dir()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  std::multiset<std::string> pods;
  for (const auto& p : json["pods"])
    pods.insert(p["pod"].get<std::string>());
  EXPECT_EQ(pods, (std::multiset<std::string>{"batch/batch-1", "prod/train-prod", "dev/train-dev",
                                              "prod/train-big", "dev/notebook-dev", "default/web-1",
                                              "default/api-1"}));
  EXPECT_EQ(json["summary"],
            nlohmann::json::parse(
                R"({"scheduled":5,"unschedulable":1,"skipped":1,"errors":0,"preempted":0})"));
}

}  // namespace
}  // namespace schedhost
