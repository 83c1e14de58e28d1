// ExampleFilter (plugins/examples/example_filter, plain C against abi.h), the real built-in .so:
// what the loader reads from its descriptors, its Filter verdicts and its refusal of args.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "plugin_harness.hpp"

namespace schedhost {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testing::make_node;
using testing::make_pod;
using testing::Outcome;
using testing::run_filter;

constexpr const char* kReason = "node name does not contain 'worker'";

class ExampleFilterTest : public ::testing::Test {
 protected:
  testing::PluginHarness harness_{"example_filter.so"};
};

TEST_F(ExampleFilterTest, IsOneFilterPluginInACLibrary) {
  const loader::PluginDefinition& def = harness_.definition("ExampleFilter");
  EXPECT_EQ(def.description, "Example in C: keeps pods on nodes whose name contains 'worker'");
  std::vector<std::string> points;
  for (ExtensionPoint p : kAllExtensionPoints) {
    if (def.points.contains(p)) points.emplace_back(to_string(p));
  }
  EXPECT_THAT(points, ElementsAre("Filter"));
  EXPECT_EQ(def.library->name, "example-filter");
  EXPECT_EQ(def.library->version, "1.0.0");
  EXPECT_EQ(def.library->build_info, "C99, written against schedhost/abi.h");
  EXPECT_EQ(def.library->abi_major, 1u);
  EXPECT_EQ(def.library->abi_minor, 9u);
  EXPECT_EQ(harness_.registry().plugins().size(), 1u);
}

TEST_F(ExampleFilterTest, PassesOnlyNodesWhoseNameContainsWorker) {
  const std::vector<std::string> names = {"worker-1", "gpu-worker-3", "node-worker", "gpu-node-3",
                                          "Worker-1", "work-er",      "worke",       "w"};
  std::vector<std::shared_ptr<const cluster::Node>> nodes;
  for (const std::string& name : names)
    nodes.push_back(make_node(name, nlohmann::json::object(), {{"cpu", "4"}}));
  const cluster::Snapshot snapshot(nodes, {});
  const auto pod = make_pod("default", "web", {{"cpu", "100m"}});
  auto p = harness_.create("ExampleFilter", "{}");

  for (const char* node : {"worker-1", "gpu-worker-3", "node-worker"}) {
    const Outcome out = run_filter(*p, snapshot, *pod, node);
    EXPECT_EQ(out.code, SCHEDHOST_SUCCESS) << node;
    EXPECT_THAT(out.reasons, IsEmpty()) << node;
  }
  // Case-sensitive, and the whole word.
  for (const char* node : {"gpu-node-3", "Worker-1", "work-er", "worke", "w"}) {
    const Outcome out = run_filter(*p, snapshot, *pod, node);
    EXPECT_EQ(out.code, SCHEDHOST_UNSCHEDULABLE) << node;
    EXPECT_THAT(out.reasons, ElementsAre(kReason)) << node;
  }
}

TEST_F(ExampleFilterTest, TakesNoArgs) {
  EXPECT_EQ(harness_.create_error("ExampleFilter", ""), "<no error>");  // the host passes {}
  EXPECT_EQ(harness_.create_error("ExampleFilter", "{}"), "<no error>");
  EXPECT_EQ(harness_.create_error("ExampleFilter", " { \n } "), "<no error>");  // read as JSON
  EXPECT_EQ(harness_.create_error("ExampleFilter", R"({"match":"gpu"})"),
            "plugin \"ExampleFilter\": this plugin takes no args");
  EXPECT_EQ(harness_.create_error("ExampleFilter", "[]"),
            "plugin \"ExampleFilter\": this plugin takes no args");
}

}  // namespace
}  // namespace schedhost
