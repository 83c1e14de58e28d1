// serve with an `extenders:` entry, against the real API server and a real HTTP extender in the
// test: the extender's filter narrows the nodes, its failures are the FailedScheduling message,
// and its bind verb binds the pod through the API server in place of DefaultBinder.
#include <gtest/gtest.h>

#include "serve/serve_support.hpp"
#include "support/test_extender.hpp"

namespace schedhost::testing::serve_extender_test {

using nlohmann::json;

TEST(ServeExtenders, FilterAndBindVerbsWorkAgainstTheRealApiServer) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  create_node(client, test_node("n1", "2"));
  create_node(client, test_node("n2", "2"));
  // The filter keeps n2 for every pod but "stuck", for which it rejects both.
  TestExtender ext;
  ext.on("filter", [](const json& args) {
    json failed = {{"n1", "extender says no"}};
    json names = json::array({"n2"});
    if (args["Pod"]["metadata"]["name"] == "stuck") {
      failed["n2"] = "extender says no";
      names = json::array();
    }
    return std::make_pair(200, json{{"NodeNames", names}, {"FailedNodes", failed}}.dump());
  });
  // The bind verb writes the Binding itself, as a binding extender does.
  kube::ApiClient binder(plane->admin_config());
  ext.on("bind", [&binder](const json& args) {
    const std::string ns = args["PodNamespace"];
    const std::string name = args["PodName"];
    binder.create("/api/v1/namespaces/" + ns + "/pods/" + name + "/binding",
                  {{"apiVersion", "v1"},
                   {"kind", "Binding"},
                   {"metadata", {{"name", name}, {"namespace", ns}}},
                   {"target", {{"kind", "Node"}, {"name", args["Node"]}}}});
    return std::make_pair(200, std::string(R"({"Error": ""})"));
  });
  ScratchDir dir;
  const std::string config = dir.write(
      "extender.yaml",
      "apiVersion: kubescheduler.config.k8s.io/v1\n"
      "kind: KubeSchedulerConfiguration\n"
      "leaderElection: {leaderElect: false}\n"
      "profiles:\n- schedulerName: default-scheduler\n"
      "extenders:\n- urlPrefix: " +
          ext.url() + "\n  filterVerb: filter\n  bindVerb: bind\n  nodeCacheCapable: true\n");
  client.create(ns_path("default") + "/pods", test_pod("web", "100m"));
  client.create(ns_path("default") + "/pods", test_pod("stuck", "100m"));
  ServeProcess serve(*plane, config);

  ASSERT_TRUE(eventually([&] { return live_decisions(client)["default/web"].node == "n2"; }))
      << serve.log();
  const std::vector<json> binds = ext.requests_at("bind");
  ASSERT_EQ(binds.size(), 1u);
  EXPECT_EQ(binds[0]["PodName"], "web");
  EXPECT_EQ(binds[0]["Node"], "n2");
  EXPECT_TRUE(
      eventually([&] { return events_about(client, "default", "web", "Scheduled").size() == 1u; }));
  // The extender's reasons in upstream's FitError (what preemption adds after it is its own).
  ASSERT_TRUE(eventually([&] {
    return first_failure_message(client, "default", "stuck")
        .starts_with("0/2 nodes are available: 2 extender says no.");
  })) << first_failure_message(client, "default", "stuck")
      << serve.log();
  EXPECT_EQ(live_decisions(client)["default/stuck"].result, "Unschedulable");
  EXPECT_TRUE(serve.process().running());
}

}  // namespace schedhost::testing::serve_extender_test
