// `schedhost run` with a plugin that records Events (tests/plugin_events/fixtures): each pending
// pod's result lists the events about it, from every cycle and hook, in order (a Filter's, which
// runs on many nodes at once, in node-name order), in -o json with and without --explain and in
// -o yaml; a pod without events has no `events` key; events about a running pod are only logged.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "support/fixtures.hpp"
#include "support/process.hpp"

namespace schedhost::plugin_events_test {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

const char* const kProfile = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: default-scheduler
    plugins:
      multiPoint:
        disabled:
          - name: '*'
      queueSort:
        enabled:
          - name: PrioritySort
      preFilter:
        enabled:
          - name: Eventful
      filter:
        enabled:
          - name: Eventful
      postBind:
        enabled:
          - name: Eventful
      bind:
        enabled:
          - name: DefaultBinder
)";

std::string node(const std::string& name, const std::string& size) {
  return "apiVersion: v1\nkind: Node\nmetadata:\n  name: " + name + "\n  labels: {size: " + size +
         "}\nstatus:\n  allocatable: {cpu: '4', memory: 8Gi, pods: '110'}\n---\n";
}

std::string pod(const std::string& name, const std::string& labels,
                const std::string& node_name = "") {
  return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name +
         "\n  namespace: default\n  labels: " + labels + "\nspec:\n" +
         (node_name.empty() ? "" : "  nodeName: " + node_name + "\n") +
         "  containers: [{name: c, image: busybox}]\n---\n";
}

// Three nodes (two too small for anyone, the big one too small for a huge pod), a chatty running
// pod on big-1, and three pending pods: web fits big-1, giant fits nowhere, quiet records nothing.
std::string cluster() {
  return node("small-2", "small") + node("big-1", "big") + node("small-1", "small") +
         pod("resident", "{chatty: 'true'}", "big-1") + pod("web", "{app: web}") +
         pod("giant", "{size: huge}") + pod("quiet", "{events: 'off'}");
}

json event(const std::string& type, const std::string& reason, const std::string& message) {
  return {{"plugin", "Eventful"}, {"type", type}, {"reason", reason}, {"message", message}};
}

const json kWebEvents = json::array({
    event("Warning", "NodeTooSmall", "node small-1 is too small for default/web"),
    event("Warning", "NodeTooSmall", "node small-2 is too small for default/web"),
    event("Normal", "Placed", "placed default/web on big-1"),
});
const json kGiantEvents = json::array({
    event("Warning", "NodeTooSmall", "node big-1 is too small for default/giant"),
    event("Warning", "NodeTooSmall", "node small-1 is too small for default/giant"),
    event("Warning", "NodeTooSmall", "node small-2 is too small for default/giant"),
});

class RunEvents : public ::testing::Test {
 protected:
  RunEvents() {
    plugins_.copy_in(
        std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/plugin_events/plugin_events_fixture.so",
        "plugin_events_fixture.so");
  }

  testing::ProcessResult run(std::vector<std::string> extra) {
    std::vector<std::string> args = {"run",
                                     "--config",
                                     files_.write("profile.yaml", kProfile),
                                     "--cluster",
                                     files_.write("cluster.yaml", cluster()),
                                     "--plugin-dir",
                                     plugins_.path()};
    args.insert(args.end(), extra.begin(), extra.end());
    return testing::run_schedhost(args, built_ins_.env());
  }

  // pod -> its entry of -o json.
  static std::map<std::string, json> entries(const json& result) {
    std::map<std::string, json> out;
    for (const json& p : result.at("pods"))
      out[p.at("pod")] = p;
    return out;
  }

  static void expect_events(const json& result) {
    const auto pods = entries(result);
    ASSERT_EQ(pods.size(), 3u) << result.dump(2);  // the pending pods; resident has no entry
    EXPECT_EQ(pods.at("default/web").at("result"), "Scheduled");
    EXPECT_EQ(pods.at("default/web").at("node"), "big-1");
    EXPECT_EQ(pods.at("default/web").at("events"), kWebEvents);
    EXPECT_EQ(pods.at("default/giant").at("result"), "Unschedulable");
    EXPECT_EQ(pods.at("default/giant").at("events"), kGiantEvents);
    EXPECT_EQ(pods.at("default/quiet").at("result"), "Scheduled");
    EXPECT_FALSE(pods.at("default/quiet").contains("events")) << pods.at("default/quiet").dump();
  }

  testing::ScratchDir files_;
  testing::ScratchDir plugins_;  // only the fixture: a plugin directory holds plugins alone
  testing::TwoBuiltIns built_ins_;
};

TEST_F(RunEvents, JsonListsEachPendingPodsEventsInOrder) {
  const testing::ProcessResult r = run({"-o", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_events(json::parse(r.out));
  // After what was decided (and before an explanation).
  std::vector<std::string> keys;
  const nlohmann::ordered_json ordered = nlohmann::ordered_json::parse(r.out);
  for (const auto& p : ordered.at("pods")) {
    if (p.at("pod") != "default/web") continue;
    for (const auto& [key, value] : p.items())
      keys.push_back(key);
  }
  EXPECT_EQ(keys,
            (std::vector<std::string>{"pod", "profile", "result", "node", "message", "events"}));
}

TEST_F(RunEvents, ExplainKeepsTheEvents) {
  const testing::ProcessResult r = run({"-o", "json", "--explain"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json result = json::parse(r.out);
  expect_events(result);
  EXPECT_TRUE(entries(result).at("default/web").contains("explain"));
}

TEST_F(RunEvents, YamlListsThemToo) {
  const testing::ProcessResult r = run({"-o", "yaml"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const YAML::Node result = YAML::Load(r.out);
  std::map<std::string, YAML::Node> pods;
  for (const YAML::Node& p : result["pods"])
    pods[p["pod"].as<std::string>()] = p;
  ASSERT_EQ(pods.size(), 3u) << r.out;
  const YAML::Node web = pods.at("default/web")["events"];
  ASSERT_EQ(web.size(), 3u) << r.out;
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(web[i]["plugin"].as<std::string>(), kWebEvents[i]["plugin"]);
    EXPECT_EQ(web[i]["type"].as<std::string>(), kWebEvents[i]["type"]);
    EXPECT_EQ(web[i]["reason"].as<std::string>(), kWebEvents[i]["reason"]);
    EXPECT_EQ(web[i]["message"].as<std::string>(), kWebEvents[i]["message"]);
  }
  EXPECT_EQ(pods.at("default/giant")["events"].size(), 3u);
  EXPECT_FALSE(pods.at("default/quiet")["events"].IsDefined()) << r.out;
}

// Each event is logged at info as it comes, those about pods that are not pending too; the host
// refused the fixture's bad type and empty reason (it would have failed the pods otherwise).
TEST_F(RunEvents, TheLogHasEveryEvent) {
  const testing::ProcessResult r = run({"-o", "json", "--log-level", "info"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_events(json::parse(r.out));
  EXPECT_THAT(r.err, HasSubstr("info: plugin \"Eventful\": event Warning NodeTooSmall about "
                               "default/web: node small-1 is too small for default/web\n"));
  EXPECT_THAT(r.err, HasSubstr("info: plugin \"Eventful\": event Normal Placed about default/web: "
                               "placed default/web on big-1\n"));
  EXPECT_THAT(r.err, HasSubstr("info: plugin \"Eventful\": event Normal Neighbour about "
                               "default/resident: default/web is looking at big-1\n"));
  EXPECT_THAT(r.err, HasSubstr("info: plugin \"Eventful\": record_event refused type Info\n"));
  EXPECT_THAT(r.err,
              HasSubstr("info: plugin \"Eventful\": record_event refused an empty reason\n"));
  EXPECT_THAT(r.err, Not(HasSubstr("BadType")));
}

// Without events, the outputs stay as they were: no `events` key anywhere.
TEST_F(RunEvents, APodWithoutEventsHasNoKey) {
  const testing::ProcessResult r = run({"-o", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("\"events\": []"), std::string::npos);
  const json quiet = entries(json::parse(r.out)).at("default/quiet");
  EXPECT_EQ(quiet, (json{{"pod", "default/quiet"},
                         {"profile", "default-scheduler"},
                         {"result", "Scheduled"},
                         {"node", "big-1"},
                         {"message", ""}}));
}

}  // namespace
}  // namespace schedhost::plugin_events_test
