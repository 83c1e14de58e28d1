// The frozen ABI 1.0 fixture (fixtures/frozen_plugin.c, built against frozen/1.0/schedhost/abi.h)
// through the current bin/schedhost: listed with its extension points, and scheduling pods with
// its PreFilter state, Filter reasons, Score and NormalizeScore.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>

#include "support/fixtures.hpp"
#include "support/process.hpp"

namespace schedhost {
namespace {

const std::string kFixtures = std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/abi_compat";

TEST(FrozenAbi10, IsListedWithItsExtensionPoints) {
  const auto r = testing::run_schedhost({"plugins", "--plugin-dir", kFixtures, "-o", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  bool found = false;
  for (const auto& p : json["plugins"]) {
    if (p["name"] != "FrozenKind") continue;
    found = true;
    EXPECT_EQ(p["abi"], "1.0");
    EXPECT_EQ(p["library"], "frozen-abi-1.0");
    EXPECT_EQ(p["extensionPoints"],
              nlohmann::json::parse(R"(["PreFilter", "Filter", "Score", "NormalizeScore"])"));
  }
  EXPECT_TRUE(found) << r.out;
  EXPECT_EQ(json["failed"], nlohmann::json::array());
}

TEST(FrozenAbi10, SchedulesPodsInTheCurrentHost) {
  testing::ScratchDir dir;
  const std::string profile = dir.write("profile.yaml", R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      enabled: [{name: FrozenKind}]
      disabled: [{name: '*'}]
    queueSort:
      enabled: [{name: PrioritySort}]
    bind:
      enabled: [{name: DefaultBinder}]
)");
  auto node = [](const std::string& name, const std::string& kind, const std::string& cpu) {
    return "apiVersion: v1\nkind: Node\nmetadata: {name: " + name + ", labels: {kind: " + kind +
           "}}\nstatus: {allocatable: {cpu: '" + cpu + "', memory: 8Gi, pods: '110'}}\n---\n";
  };
  auto pod = [](const std::string& name, const std::string& labels) {
    return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", labels: " + labels +
           "}\nspec: {containers: [{name: c, image: x}]}\n---\n";
  };
  const std::string cluster =
      dir.write("cluster.yaml", node("small", "gpu", "2") + node("big", "gpu", "8") +
                                    node("other", "cpu", "16") + pod("gpu-job", "{want: gpu}") +
                                    pod("tpu-job", "{want: tpu}") + pod("any-job", "{}"));
  const auto r = testing::run_schedhost({"run", "--config", profile, "--cluster", cluster,
                                         "--plugin-dir", kFixtures, "-o", "json", "--explain"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  ASSERT_EQ(json["pods"].size(), 3u);
  const auto& gpu = json["pods"][0];
  EXPECT_EQ(gpu["pod"], "default/gpu-job");
  EXPECT_EQ(gpu["node"], "big");
  EXPECT_EQ(gpu["explain"]["nodes"]["big"]["scores"]["FrozenKind"], 100);
  EXPECT_EQ(gpu["explain"]["nodes"]["small"]["scores"]["FrozenKind"], 25);
  EXPECT_EQ(gpu["explain"]["nodes"]["other"]["filter"]["reasons"],
            nlohmann::json::parse(R"(["frozen: node kind is not gpu"])"));
  const auto& tpu = json["pods"][1];
  EXPECT_EQ(tpu["result"], "Unschedulable");
  EXPECT_EQ(tpu["message"], "0/3 nodes are available: 3 frozen: node kind is not tpu.");
  // No "want" label: PreFilter skips, so Filter is skipped too; the biggest node wins.
  const auto& any = json["pods"][2];
  EXPECT_EQ(any["node"], "other");
  EXPECT_EQ(any["explain"]["nodes"]["big"]["scores"]["FrozenKind"], 50);
}

}  // namespace
}  // namespace schedhost
