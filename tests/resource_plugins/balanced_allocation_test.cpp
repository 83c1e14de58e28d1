// NodeResourcesBalancedAllocation (plugins/node_resources_balanced_allocation), the real built-in
// .so: the cases of upstream v1.28's balanced_allocation_test.go (inputs and expected scores) and
// the args validation messages of ValidateNodeResourcesBalancedAllocationArgs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "case_name.hpp"
#include "resource_harness.hpp"

namespace schedhost {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using testing::node;
using testing::NodePtr;
using testing::PodBuilder;
using testing::PodPtr;
using J = nlohmann::json;

constexpr const char* kBalancedAllocation = "NodeResourcesBalancedAllocation";

class BalancedAllocationTest : public ::testing::Test {
 protected:
  testing::PluginHarness harness_{"node_resources_balanced_allocation.so"};

  std::unique_ptr<framework::PluginInstance> create(const std::string& args = "{}") const {
    return harness_.create(kBalancedAllocation, args);
  }
  std::string error(const std::string& args) const {
    return harness_.create_error(kBalancedAllocation, args);
  }
};

TEST_F(BalancedAllocationTest, ImplementsPreScoreAndScoreOnly) {
  const auto& vtable = harness_.definition(kBalancedAllocation).vtable;
  EXPECT_NE(vtable.pre_score, nullptr);
  EXPECT_NE(vtable.score, nullptr);
  EXPECT_EQ(vtable.normalize_score, nullptr);
  EXPECT_EQ(vtable.pre_filter, nullptr);
  EXPECT_EQ(vtable.filter, nullptr);
}

// upstream makeNode(name, milliCPU, memory, extended)
NodePtr make_node(const std::string& name, std::int64_t milli_cpu, std::int64_t memory,
                  const J& extended = J::object()) {
  J allocatable = {{"cpu", std::to_string(milli_cpu) + "m"}, {"memory", std::to_string(memory)}};
  for (const auto& [k, v] : extended.items())
    allocatable[k] = std::to_string(v.get<std::int64_t>());
  return node(name, allocatable);
}

// upstream's pod specs
PodPtr cpu_and_memory(const std::string& name, const std::string& on = "") {
  PodBuilder b(name);
  b.container({{"cpu", "1000m"}, {"memory", "2000"}})
      .container({{"cpu", "2000m"}, {"memory", "3000"}});
  if (!on.empty()) b.on(on);
  return b.build();
}
PodPtr cpu_only(const std::string& name, const std::string& on = "") {
  PodBuilder b(name);
  b.container({{"cpu", "1000m"}, {"memory", "0"}}).container({{"cpu", "2000m"}, {"memory", "0"}});
  if (!on.empty()) b.on(on);
  return b.build();
}
PodPtr cpu_memory_and_gpu(const std::string& name, const std::string& on) {
  return PodBuilder(name)
      .container({{"cpu", "1000m"}, {"memory", "2000"}})
      .container({{"cpu", "2000m"}, {"memory", "3000"}, {"nvidia.com/gpu", "3"}})
      .on(on)
      .build();
}

struct BalancedScoreCase {
  std::string name;
  std::string args;
  PodPtr pod;
  std::vector<NodePtr> nodes;
  std::vector<PodPtr> existing;
  // Empty: a best-effort pod, skipped at PreScore (v1.35), and 0 from Score without PreScore.
  std::vector<std::int64_t> scores;
};

std::vector<BalancedScoreCase> balanced_score_cases() {
  const PodPtr empty = PodBuilder("p").build();
  const J gpu8 = {{"nvidia.com/gpu", 8}};
  const std::string cpu_memory_gpu =
      R"({"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}, {"name": "nvidia.com/gpu", "weight": 1}]})";
  return {
      {"nothing scheduled, nothing requested, skip in PreScore",
       "{}",
       empty,
       {make_node("node1", 4000, 10000), make_node("node2", 4000, 10000)},
       {},
       {}},
      {"nothing scheduled, resources requested, differently sized nodes",
       "{}",
       cpu_and_memory("p"),
       {make_node("node1", 4000, 10000), make_node("node2", 6000, 10000)},
       {},
       {87, 100}},
      {"no resources requested, pods without container scheduled",
       "{}",
       empty,
       {make_node("node1", 4000, 10000), make_node("node2", 4000, 10000)},
       {PodBuilder("e1").on("node1").build(), PodBuilder("e2").on("node1").build(),
        PodBuilder("e3").on("node2").build(), PodBuilder("e4").on("node2").build()},
       {}},
      {"no resources requested, pods with container scheduled",
       "{}",
       empty,
       {make_node("node1", 250, 1000 * 1024 * 1024), make_node("node2", 250, 1000 * 1024 * 1024)},
       {PodBuilder("e1").on("node1").build(), PodBuilder("e2").on("node1").build()},
       {}},
      {"no resources requested, pods scheduled with resources",
       "{}",
       empty,
       {make_node("node1", 10000, 20000), make_node("node2", 10000, 20000)},
       {cpu_only("e1", "node1"), cpu_only("e2", "node1"), cpu_only("e3", "node2"),
        cpu_and_memory("e4", "node2")},
       {}},
      {"resources requested, pods scheduled with resources",
       "{}",
       cpu_and_memory("p"),
       {make_node("node1", 10000, 20000), make_node("node2", 10000, 20000)},
       {cpu_only("e1", "node1"), cpu_and_memory("e2", "node2")},
       {82, 95}},
      {"resources requested, pods scheduled with resources, differently sized nodes",
       "{}",
       cpu_and_memory("p"),
       {make_node("node1", 10000, 20000), make_node("node2", 10000, 50000)},
       {cpu_only("e1", "node1"), cpu_and_memory("e2", "node2")},
       {82, 80}},
      {"requested resources at node capacity",
       "{}",
       cpu_only("p"),
       {make_node("node1", 6000, 10000), make_node("node2", 6000, 10000)},
       {cpu_only("e1", "node1"), cpu_and_memory("e2", "node2")},
       {50, 75}},
      {"zero node resources, pods scheduled with resources",
       "{}",
       empty,
       {make_node("node1", 0, 0), make_node("node2", 0, 0)},
       {cpu_only("e1", "node1"), cpu_and_memory("e2", "node2")},
       {}},
      {"include scalar resource on a node for balanced resource allocation",
       cpu_memory_gpu,
       PodBuilder("p").container({{"memory", "0"}, {"nvidia.com/gpu", "1"}}).build(),
       {make_node("node1", 3500, 40000, gpu8), make_node("node2", 3500, 40000, gpu8)},
       {cpu_and_memory("e1", "node2"), cpu_memory_and_gpu("e2", "node1")},
       {70, 65}},
      {"node without the scalar resource results to a higher score",
       R"({"resources": [{"name": "cpu", "weight": 1}, {"name": "nvidia.com/gpu", "weight": 1}]})",
       empty,
       {make_node("node1", 3500, 40000, gpu8), make_node("node2", 3500, 40000)},
       {cpu_only("e1", "node1"), cpu_only("e2", "node2")},
       {}},
      // Beyond upstream's table: actual requests, never the 100m / 200Mi scoring defaults
      // (cpu 600m of 1000m, memory 0 of 1000Mi: std 0.3; with the defaults it would be 0.2).
      {"uses actual requests, not the non-zero defaults",
       "{}",
       PodBuilder("p").container({{"cpu", "100m"}}).build(),
       {make_node("node1", 1000, 1000 * 1024 * 1024)},
       {PodBuilder("e1").container({{"cpu", "500m"}}).on("node1").build()},
       {70}},
      // A weight of 0 is defaulted to 1; a resource the scheduler does not account is skipped.
      {"weight zero defaults to one, unknown names skipped",
       R"({"resources": [{"name": "cpu"}, {"name": "memory", "weight": 0}, {"name": "pods", "weight": 1}]})",
       cpu_and_memory("p"),
       {make_node("node1", 4000, 10000)},
       {},
       {87}},
  };
}

class BalancedAllocationScoreTest : public BalancedAllocationTest,
                                    public ::testing::WithParamInterface<BalancedScoreCase> {};

TEST_P(BalancedAllocationScoreTest, ScoreAfterPreScore) {
  const BalancedScoreCase& c = GetParam();
  const cluster::Snapshot snapshot(c.nodes, c.existing);
  const auto plugin = create(c.args);
  EXPECT_THAT(testing::prescore_and_score(*plugin, snapshot, *c.pod), ElementsAreArray(c.scores));
}

TEST_P(BalancedAllocationScoreTest, ScoreWithoutPreScore) {
  const BalancedScoreCase& c = GetParam();
  const cluster::Snapshot snapshot(c.nodes, c.existing);
  const auto plugin = create(c.args);
  const std::vector<std::int64_t> expected =
      c.scores.empty() ? std::vector<std::int64_t>(c.nodes.size(), 0) : c.scores;
  EXPECT_THAT(testing::prescore_and_score(*plugin, snapshot, *c.pod, false),
              ElementsAreArray(expected));
}

INSTANTIATE_TEST_SUITE_P(Upstream, BalancedAllocationScoreTest,
                         ::testing::ValuesIn(balanced_score_cases()),
                         [](const auto& info) { return testing::case_name(info.param.name); });

TEST_F(BalancedAllocationTest, StandardDeviationOverThreeOrMoreResources) {
  // cpu 3/4, memory 1/4, example.com/gpu 2/4: mean 0.5, std sqrt((1/16 + 1/16 + 0) / 3) = 0.2041
  const auto plugin = create(
      R"({"resources": [{"name": "cpu"}, {"name": "memory"}, {"name": "example.com/gpu"}]})");
  const cluster::Snapshot snapshot(
      {node("node1", {{"cpu", "4"}, {"memory", "4"}, {"example.com/gpu", "4"}})}, {});
  const PodPtr pod =
      PodBuilder("p").container({{"cpu", "3"}, {"memory", "1"}, {"example.com/gpu", "2"}}).build();
  EXPECT_THAT(testing::prescore_and_score(*plugin, snapshot, *pod), ElementsAre(79));
}

TEST_F(BalancedAllocationTest, AcceptsValidArgs) {
  EXPECT_EQ(error("{}"), "<no error>");
  EXPECT_EQ(error(R"({"resources": []})"), "<no error>");
  EXPECT_EQ(error(R"({"resources": [{"name": "cpu", "weight": 1}, {"name": "nvidia.com/gpu"}]})"),
            "<no error>");
}

TEST_F(BalancedAllocationTest, RefusesDuplicateResourcesAndWeightsOtherThanOne) {
  const std::string p = "plugin \"NodeResourcesBalancedAllocation\": ";
  EXPECT_EQ(error(R"({"resources": [{"name": "cpu", "weight": 1}, {"name": "cpu", "weight": 1}]})"),
            p + "resources[1].name: Duplicate value: \"cpu\"");
  EXPECT_EQ(error(R"({"resources": [{"name": "cpu", "weight": 2}]})"),
            p + "resources[0].weight: Invalid value: 2: must be 1");
  EXPECT_EQ(
      error(R"({"resources": [{"name": "cpu", "weight": 1}, {"name": "cpu", "weight": -1}]})"),
      p + "[resources[1].name: Duplicate value: \"cpu\", resources[1].weight: Invalid value: "
          "-1: must be 1]");
}

TEST_F(BalancedAllocationTest, RefusesUnknownFieldsAndWrongTypes) {
  const std::string p = "plugin \"NodeResourcesBalancedAllocation\": ";
  EXPECT_EQ(error(R"({"resource": []})"), p + "strict decoding error: unknown field \"resource\"");
  EXPECT_EQ(error(R"({"resources": [{"name": "cpu", "weight": 1, "x": 1}]})"),
            p + "strict decoding error: unknown field \"resources[0].x\"");
  EXPECT_EQ(error(R"({"resources": {"name": "cpu"}})"),
            p + "resources: must be a list, got {\"name\":\"cpu\"}");
  EXPECT_EQ(error(R"({"resources": [{"name": 1}]})"),
            p + "resources[0].name: must be a string, got 1");
}

}  // namespace
}  // namespace schedhost
