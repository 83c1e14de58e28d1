// Extenders as kube-scheduler calls them, through `run`'s cycle against a real HTTP server in the
// test: filter (failed and unresolvable nodes in the FitError), prioritize (weight x 10 added to
// the totals), nodeCacheCapable, managedResources and ignoredByScheduler, bind, and each failure
// (a 500, garbage, a timeout, nothing listening) with the message upstream gives, ignorable or not.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "common/input_error.hpp"
#include "scheduler_harness.hpp"
#include "support/test_extender.hpp"

namespace schedhost::extender_test {

using nlohmann::json;
using scheduler::PodResult;
using scheduler::RunResult;
using ::testing::ElementsAre;
using testing::node_yaml;
using ::testing::Pair;
using testing::pod_yaml;
using testing::profile_with;
using testing::TestExtender;

std::string four_nodes() {
  return node_yaml("node-a") + node_yaml("node-b") + node_yaml("node-c") + node_yaml("node-d");
}

// FilterRules rejects node-d for "Insufficient cpu"; the extenders see the other three.
const std::string kFilterProfile = profile_with(R"(    filter:
      enabled: [{name: FilterRules}]
  pluginConfig:
  - name: FilterRules
    args:
      nodes:
        node-d: {code: Unschedulable, reasons: [Insufficient cpu]}
)");

std::string with_extender(const std::string& profile, const std::string& fields) {
  return profile + "extenders:\n- " + fields + "\n";
}

const PodResult& only(const RunResult& r) {
  EXPECT_EQ(r.pods.size(), 1u);
  return r.pods.front();
}

class Extenders : public ::testing::Test {
 protected:
  testing::SchedulerHarness harness_;
  TestExtender ext_;
};

TEST_F(Extenders, FilterFailedAndUnresolvableNodesMakeUpstreamsFitError) {
  // node-c is in both maps: unresolvable wins.
  ext_.answer("filter", 200, R"({"Nodes": null, "NodeNames": null,
    "FailedNodes": {"node-a": "extender says no", "node-c": "ignored"},
    "FailedAndUnresolvableNodes": {"node-b": "gpu missing", "node-c": "gpu missing"},
    "Error": ""})");
  const RunResult r = harness_.run(
      with_extender(kFilterProfile, "{urlPrefix: " + ext_.url() + ", filterVerb: filter}"),
      four_nodes() + pod_yaml("web"));
  const PodResult& p = only(r);
  EXPECT_EQ(p.result, "Unschedulable");
  EXPECT_EQ(p.message,
            "0/4 nodes are available: 1 Insufficient cpu, 1 extender says no, 2 gpu missing.");
  // What it was sent: the pod, and the three nodes the plugins passed as objects.
  const std::vector<json> sent = ext_.requests_at("filter");
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0]["Pod"]["metadata"]["name"], "web");
  EXPECT_TRUE(sent[0]["NodeNames"].is_null());
  EXPECT_THAT(testing::node_names_of(sent[0]), ElementsAre("node-a", "node-b", "node-c"));
  EXPECT_EQ(sent[0]["Nodes"]["items"][0]["status"]["allocatable"]["cpu"], "4");
  // --explain names the extender where a plugin's name goes.
  const auto& nodes = p.explain->nodes;
  ASSERT_EQ(nodes.size(), 4u);
  EXPECT_EQ(nodes[0].second.filter.code, "Unschedulable");
  EXPECT_EQ(nodes[0].second.filter.plugin, "extender " + ext_.url());
  EXPECT_THAT(nodes[0].second.filter.reasons, ElementsAre("extender says no"));
  EXPECT_EQ(nodes[2].second.filter.code, "UnschedulableAndUnresolvable");
  EXPECT_EQ(nodes[3].second.filter.plugin, "FilterRules");
}

TEST_F(Extenders, FilterPassesTheNodesItListsInNodeListMode) {
  ext_.on("filter", [](const json& args) {
    json items = json::array();
    for (const json& n : args["Nodes"]["items"]) {
      if (n["metadata"]["name"] == "node-c") items.push_back(n);
    }
    return std::make_pair(200, json{{"Nodes", {{"items", items}}}}.dump());
  });
  const RunResult r = harness_.run(
      with_extender(kFilterProfile, "{urlPrefix: " + ext_.url() + ", filterVerb: filter}"),
      four_nodes() + pod_yaml("web"));
  EXPECT_EQ(only(r).result, "Scheduled");
  EXPECT_EQ(only(r).node, "node-c");
}

TEST_F(Extenders, NodeCacheCapableSendsAndTakesNodeNames) {
  ext_.answer("filter", 200, R"({"NodeNames": ["node-b"]})");
  const std::string profile =
      with_extender(kFilterProfile,
                    "{urlPrefix: " + ext_.url() + ", filterVerb: filter, nodeCacheCapable: true}");
  const RunResult r = harness_.run(profile, four_nodes() + pod_yaml("web"));
  EXPECT_EQ(only(r).node, "node-b");
  const std::vector<json> sent = ext_.requests_at("filter");
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_TRUE(sent[0]["Nodes"].is_null());
  EXPECT_EQ(sent[0]["NodeNames"], json({"node-a", "node-b", "node-c"}));

  // A name it was not given is an Error, worded as upstream's.
  ext_.answer("filter", 200, R"({"NodeNames": ["node-z"]})");
  const RunResult bad = harness_.run(profile, four_nodes() + pod_yaml("web"));
  EXPECT_EQ(only(bad).result, "Error");
  EXPECT_EQ(only(bad).message, "extender \"" + ext_.url() +
                                   "\" claims a filtered node \"node-z\" which is not found in "
                                   "the input node list");
}

TEST_F(Extenders, PrioritizeScoresTimesWeightTimesTenAreAddedToThePluginTotals) {
  const std::string profile = profile_with(R"(    score:
      enabled: [{name: ScoreRules}]
  pluginConfig:
  - name: ScoreRules
    args: {scores: {node-a: 100, node-b: 0, node-c: 50}}
)");
  ext_.answer("prioritize", 200,
              R"([{"Host": "node-a", "Score": 1}, {"Host": "node-b", "Score": 9},
                  {"Host": "node-c", "Score": 4}])");
  TestExtender second;
  second.answer("rank", 200, R"([{"Host": "node-c", "Score": 2}])");
  const RunResult r = harness_.run(
      with_extender(profile,
                    "{urlPrefix: " + ext_.url() + ", prioritizeVerb: prioritize, weight: 2}") +
          "- {urlPrefix: " + second.url() + ", prioritizeVerb: rank, weight: 1}\n",
      node_yaml("node-a") + node_yaml("node-b") + node_yaml("node-c") + pod_yaml("web"));
  const PodResult& p = only(r);
  // a: 100 + 1x2x10 = 120; b: 0 + 9x2x10 = 180; c: 50 + 4x2x10 + 2x1x10 = 150.
  EXPECT_EQ(p.node, "node-b");
  const auto& nodes = p.explain->nodes;
  EXPECT_THAT(nodes[0].second.scores,
              ElementsAre(Pair("ScoreRules", 100), Pair("extender " + ext_.url(), 20),
                          Pair("extender " + second.url(), 0)));
  EXPECT_EQ(nodes[0].second.total, 120);
  EXPECT_EQ(nodes[1].second.total, 180);
  EXPECT_EQ(nodes[2].second.total, 150);

  // A prioritize that fails leaves its scores out (upstream ignores it, ignorable or not).
  ext_.answer("prioritize", 500, "");
  const RunResult failed =
      harness_.run(with_extender(profile, "{urlPrefix: " + ext_.url() +
                                              ", prioritizeVerb: prioritize, weight: 2}"),
                   node_yaml("node-a") + node_yaml("node-b") + pod_yaml("web"));
  EXPECT_EQ(only(failed).node, "node-a");
}

// A pod requesting a managed resource is the extender's; others never reach it. With
// ignoredByScheduler, NodeResourcesFit no longer counts that resource.
TEST_F(Extenders, ManagedResourcesChooseThePodsAndIgnoredBySchedulerReachesNodeResourcesFit) {
  ext_.answer("filter", 200, R"({"NodeNames": ["node-b"]})");
  const std::string profile = profile_with(R"(    filter:
      enabled: [{name: NodeResourcesFit}]
    preFilter:
      enabled: [{name: NodeResourcesFit}]
)");
  const std::string gpu_pod =
      "apiVersion: v1\nkind: Pod\nmetadata: {name: trainer, namespace: default}\n"
      "spec:\n  containers:\n  - name: c\n    image: busybox\n"
      "    resources: {limits: {example.com/gpu: '1'}, requests: {example.com/gpu: '1'}}\n---\n";
  const std::string cluster = node_yaml("node-a") + node_yaml("node-b") + pod_yaml("web") + gpu_pod;
  const std::string extender = "{urlPrefix: " + ext_.url() +
                               ", filterVerb: filter, nodeCacheCapable: true, managedResources: "
                               "[{name: example.com/gpu, ignoredByScheduler: ";
  RunResult r = harness_.run(with_extender(profile, extender + "false}]}"), cluster);
  ASSERT_EQ(r.pods.size(), 2u);
  EXPECT_EQ(r.pods[0].result, "Scheduled");  // web: the extender is not asked
  EXPECT_EQ(r.pods[1].result, "Unschedulable");
  EXPECT_EQ(r.pods[1].message, "0/2 nodes are available: 2 Insufficient example.com/gpu.");
  EXPECT_EQ(ext_.requests_at("filter").size(), 0u);  // Filter rejected every node first

  r = harness_.run(with_extender(profile, extender + "true}]}"), cluster);
  EXPECT_EQ(r.pods[1].result, "Scheduled");
  EXPECT_EQ(r.pods[1].node, "node-b");
  const std::vector<json> sent = ext_.requests_at("filter");
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0]["Pod"]["metadata"]["name"], "trainer");
}

TEST_F(Extenders, ABindVerbBindsInsteadOfTheBindPlugins) {
  ext_.answer("bind", 200, R"({"Error": ""})");
  const std::string profile =
      with_extender(profile_with(""), "{urlPrefix: " + ext_.url() + ", bindVerb: bind}");
  const RunResult r = harness_.run(profile, node_yaml("node-a") + pod_yaml("web"));
  EXPECT_EQ(only(r).result, "Scheduled");
  const std::vector<json> sent = ext_.requests_at("bind");
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0]["PodName"], "web");
  EXPECT_EQ(sent[0]["PodNamespace"], "default");
  EXPECT_EQ(sent[0]["Node"], "node-a");
  EXPECT_TRUE(sent[0].contains("PodUID"));

  ext_.answer("bind", 200, R"({"Error": "the node's device plugin is gone"})");
  const RunResult failed = harness_.run(profile, node_yaml("node-a") + pod_yaml("web"));
  EXPECT_EQ(only(failed).result, "Error");
  EXPECT_EQ(only(failed).message, "the node's device plugin is gone");
}

// Each failure, as upstream words it; a non-ignorable one fails the pod with it, an ignorable
// one is skipped and the pod scheduled as if the extender were not there.
TEST_F(Extenders, FailuresAreTheCyclesErrorUnlessIgnorable) {
  const std::string url = ext_.url() + "/filter";
  struct Case {
    std::string name;
    std::function<void()> arrange;
    std::string extra;  // more extender fields
    std::string message;
  };
  const int closed_port = testing::unused_loopback_port();
  const std::vector<Case> cases = {
      {"500", [&] { ext_.answer("filter", 500, "boom"); }, "",
       "failed filter with extender at URL " + url + ", code 500"},
      {"garbage", [&] { ext_.answer("filter", 200, "garbage"); }, "",
       "invalid character 'g' looking for beginning of value"},
      {"empty body", [&] { ext_.answer("filter", 200, ""); }, "", "EOF"},
      {"wrong type", [&] { ext_.answer("filter", 200, "[1]"); }, "",
       "json: cannot unmarshal array into Go value of type v1.ExtenderFilterResult"},
      {"Error field", [&] { ext_.answer("filter", 200, R"({"Error": "quota service down"})"); }, "",
       "quota service down"},
      {"timeout",
       [&] {
         ext_.on("filter", [](const json&) {
           std::this_thread::sleep_for(std::chrono::milliseconds(800));
           return std::make_pair(200, std::string("{}"));
         });
       },
       ", httpTimeout: 200ms",
       "Post \"" + url +
           "\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)"},
  };
  for (const Case& c : cases) {
    c.arrange();
    for (const bool ignorable : {false, true}) {
      const std::string profile = with_extender(
          kFilterProfile, "{urlPrefix: " + ext_.url() + ", filterVerb: filter, ignorable: " +
                              (ignorable ? "true" : "false") + c.extra + "}");
      const RunResult r = harness_.run(profile, four_nodes() + pod_yaml("web"));
      if (ignorable) {
        EXPECT_EQ(only(r).result, "Scheduled") << c.name;
      } else {
        EXPECT_EQ(only(r).result, "Error") << c.name;
        EXPECT_EQ(only(r).message, c.message) << c.name;
      }
    }
  }
  // Nothing listening.
  const std::string down = "http://127.0.0.1:" + std::to_string(closed_port) + "/ext";
  const RunResult r =
      harness_.run(with_extender(kFilterProfile, "{urlPrefix: " + down + ", filterVerb: filter}"),
                   four_nodes() + pod_yaml("web"));
  EXPECT_EQ(only(r).message, "Post \"" + down + "/filter\": dial tcp 127.0.0.1:" +
                                 std::to_string(closed_port) + ": connect: connection refused");
}

// Refused at load, as upstream's validation refuses them, with the file position.
TEST(ExtenderConfig, BadExtendersAreRefusedWithFileLineAndColumn) {
  const std::string head =
      "apiVersion: kubescheduler.config.k8s.io/v1\n"
      "kind: KubeSchedulerConfiguration\n"
      "extenders:\n";
  auto error_of = [&](const std::string& extenders) -> std::string {
    try {
      config::parse_configuration(head + extenders, "sched.yaml");
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(error_of("- urlPrefix: http://x\n  prioritizeVerb: p\n  weight: 0\n"),
            "sched.yaml:6:11: extenders[0].weight: Invalid value: 0: must have a positive weight "
            "applied to it: set a weight of 1 or more (its 0-10 scores are multiplied by weight x "
            "10)");
  EXPECT_EQ(
      error_of("- {urlPrefix: http://x, bindVerb: b}\n- {urlPrefix: http://y, bindVerb: b}\n"),
      "sched.yaml:5:3: extenders: Invalid value: \"found 2 extenders implementing bind\": "
      "only one extender can implement bind: keep bindVerb on one extender");
  EXPECT_EQ(error_of("- urlPrefix: http://x\n  managedResources: [{name: cpu}]\n"),
            "sched.yaml:5:29: extenders[0].managedResources[0].name: Invalid value: \"cpu\": is an "
            "invalid extended resource name: name a resource of the form example.com/device");
  EXPECT_EQ(
      error_of("- urlPrefix: http://x\n  managedResources: [{name: a.com/g}, {name: a.com/g}]\n"),
      "sched.yaml:5:46: extenders[0].managedResources[1].name: Invalid value: \"a.com/g\": "
      "duplicate extender managed resource name: list each resource under one extender "
      "only");
  EXPECT_EQ(error_of("- urlPrefix: http://x\n  httpTimeout: soon\n"),
            "sched.yaml:5:16: extenders[0].httpTimeout: time: invalid duration \"soon\": write a "
            "duration such as 5s or 500ms");
  EXPECT_EQ(error_of("- filterVerb: filter\n"),
            "sched.yaml:4:3: extenders[0] has no urlPrefix: set the extender's base URL, e.g. "
            "http://127.0.0.1:8888/scheduler (verbs are appended to it)");
  EXPECT_EQ(error_of("- urlPrefix: http://x\n  tlsConfig: {caData: '%%%'}\n"),
            "sched.yaml:5:23: extenders[0].tlsConfig.caData is not base64: encode the PEM (base64 "
            "-w0 file)");
  EXPECT_NE(error_of("- urlPrefix: http://x\n  filterVerbs: f\n").find("filterVerb"),
            std::string::npos);
}

}  // namespace schedhost::extender_test

namespace schedhost::extender_test {

// configs/extender-client.yaml, the tutorial's extender block, pointed at a test extender.
TEST(ExtenderConfig, TheExampleExtenderProfileLoadsAndSchedules) {
  TestExtender ext("/scheduler");
  ext.answer("filter", 200,
             R"({"NodeNames": null, "Nodes": {"items": [{"metadata": {"name": "node-b"}}]}})");
  ext.answer("prioritize", 200, R"([{"Host": "node-b", "Score": 10}])");
  std::string profile =
      testing::read_file(std::string(SCHEDHOST_SOURCE_DIR) + "/configs/extender-client.yaml");
  const std::string written = "127.0.0.1:8888";
  // In a comment too: every occurrence.
  for (std::size_t at = profile.find(written); at != std::string::npos;
       at = profile.find(written, at + 1)) {
    profile.replace(at, written.size(), "127.0.0.1:" + std::to_string(ext.port()));
  }
  testing::SchedulerHarness harness;
  const RunResult r =
      harness.run(profile, node_yaml("node-a") + node_yaml("node-b") + pod_yaml("web"));
  EXPECT_EQ(only(r).node, "node-b");
  EXPECT_EQ(ext.requests_at("filter").size(), 1u);
  EXPECT_EQ(only(r).message, "");
}

}  // namespace schedhost::extender_test
