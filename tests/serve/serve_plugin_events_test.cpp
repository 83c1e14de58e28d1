// ABI 1.9 record_event in serve, against the real API server: the Events a plugin records from
// Filter and PostBind are events.k8s.io/v1 Events about the pod, from the pod's profile (its
// schedulerName the reportingController), "Scheduling" from the scheduling cycle's hooks and
// "Binding" from the binding cycle's; the events the host refuses are not written.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "kube/event_recorder.hpp"
#include "serve/serve_support.hpp"

namespace schedhost::testing::serve_plugin_events_test {

using nlohmann::json;

// Eventful (tests/plugin_events/fixtures) in a profile of its own name.
const char* const kEventfulProfile =
    "apiVersion: kubescheduler.config.k8s.io/v1\n"
    "kind: KubeSchedulerConfiguration\n"
    "leaderElection: {leaderElect: false}\n"
    "profiles:\n- schedulerName: eventful-scheduler\n"
    "  plugins:\n"
    "    multiPoint:\n      disabled: [{name: '*'}]\n"
    "    queueSort:\n      enabled: [{name: PrioritySort}]\n"
    "    preFilter:\n      enabled: [{name: Eventful}]\n"
    "    filter:\n      enabled: [{name: Eventful}]\n"
    "    postBind:\n      enabled: [{name: Eventful}]\n"
    "    bind:\n      enabled: [{name: DefaultBinder}]\n";

json sized_node(const std::string& name, const std::string& size) {
  json node = test_node(name, "4");
  node["metadata"]["labels"]["size"] = size;
  return node;
}

// Every events.k8s.io/v1 Event about default/<pod>, whatever its reason.
std::vector<json> all_events_about(kube::ApiClient& client, const std::string& pod) {
  std::vector<json> out;
  const json events = client.get("/apis/events.k8s.io/v1/namespaces/default/events");
  for (const json& e : events["items"]) {
    if (e["regarding"].value("name", "") == pod) out.push_back(e);
  }
  return out;
}

TEST(ServePluginEvents, APluginsEventsAreEventsAboutThePodFromItsProfile) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  create_node(client, sized_node("big-1", "big"));
  create_node(client, sized_node("small-1", "small"));
  json web = test_pod("web", "100m");
  web["spec"]["schedulerName"] = "eventful-scheduler";
  client.create(ns_path("default") + "/pods", web);
  ScratchDir dir;
  ScratchDir plugins;  // only the fixture: a plugin directory must hold plugins alone
  plugins.copy_in(
      std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/plugin_events/plugin_events_fixture.so",
      "plugin_events_fixture.so");
  ServeProcess serve(*plane, dir.write("profile.yaml", kEventfulProfile),
                     {"--plugin-dir", plugins.path()});

  ASSERT_TRUE(eventually([&] { return live_decisions(client)["default/web"].node == "big-1"; }))
      << serve.log();
  ASSERT_TRUE(eventually([&] {
    return !events_about(client, "default", "web", "NodeTooSmall").empty() &&
           !events_about(client, "default", "web", "Placed").empty();
  })) << serve.log();
  const std::string uid = client.get(ns_path("default") + "/pods/web")["metadata"]["uid"];
  const std::string instance = kube::reporting_instance_for("eventful-scheduler");

  const std::vector<json> too_small = events_about(client, "default", "web", "NodeTooSmall");
  ASSERT_EQ(too_small.size(), 1u);
  const json& warning = too_small.front();
  EXPECT_EQ(warning.value("type", ""), "Warning");
  EXPECT_EQ(warning.value("note", ""), "node small-1 is too small for default/web");
  EXPECT_EQ(warning.value("action", ""), "Scheduling");
  EXPECT_EQ(warning.value("reportingController", ""), "eventful-scheduler");
  EXPECT_EQ(warning.value("reportingInstance", ""), instance);
  EXPECT_EQ(warning["regarding"].value("kind", ""), "Pod");
  EXPECT_EQ(warning["regarding"].value("namespace", ""), "default");
  EXPECT_EQ(warning["regarding"].value("uid", ""), uid);

  const std::vector<json> placed = events_about(client, "default", "web", "Placed");
  ASSERT_EQ(placed.size(), 1u);
  EXPECT_EQ(placed.front().value("type", ""), "Normal");
  EXPECT_EQ(placed.front().value("note", ""), "placed default/web on big-1");
  EXPECT_EQ(placed.front().value("action", ""), "Binding");
  EXPECT_EQ(placed.front().value("reportingController", ""), "eventful-scheduler");
  EXPECT_EQ(placed.front().value("reportingInstance", ""), instance);
  EXPECT_EQ(placed.front()["regarding"].value("uid", ""), uid);

  // The host's own Scheduled event comes from the same controller; the refused ones (type Info,
  // no reason) were never written.
  ASSERT_TRUE(eventually([&] {
    return !events_about(client, "default", "web", "Scheduled").empty();
  })) << serve.log();
  std::vector<std::string> reasons;
  for (const json& e : all_events_about(client, "web")) {
    reasons.push_back(e.value("reason", ""));
    EXPECT_EQ(e.value("reportingController", ""), "eventful-scheduler") << e.dump();
  }
  std::sort(reasons.begin(), reasons.end());
  EXPECT_EQ(reasons, (std::vector<std::string>{"NodeTooSmall", "Placed", "Scheduled"}));
  // The Scheduled event's reference, read from the text serve keeps of the pending pod.
  const json scheduled = events_about(client, "default", "web", "Scheduled").front()["regarding"];
  EXPECT_EQ(scheduled.value("kind", ""), "Pod");
  EXPECT_EQ(scheduled.value("apiVersion", ""), "v1");
  EXPECT_EQ(scheduled.value("namespace", ""), "default");
  EXPECT_EQ(scheduled.value("name", ""), "web");
  EXPECT_EQ(scheduled.value("uid", ""), uid);
  EXPECT_FALSE(scheduled.value("resourceVersion", "").empty()) << scheduled.dump();
  EXPECT_NE(serve.log().find("record_event refused type Info"), std::string::npos) << serve.log();
  EXPECT_NE(serve.log().find("record_event refused an empty reason"), std::string::npos)
      << serve.log();
  EXPECT_TRUE(serve.process().running());
}

}  // namespace schedhost::testing::serve_plugin_events_test
