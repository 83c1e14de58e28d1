// ABI 1.8 in serve, against the real API server: the objects of other kinds reach plugins
// through serve's informers (a Service, then its update), and a PreBind writes through
// api_request with the scheduler's client, which Filter may not.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "serve/serve_support.hpp"

namespace schedhost::testing::serve_objects_test {

using nlohmann::json;

const char* const kApiWriterProfile =
    "apiVersion: kubescheduler.config.k8s.io/v1\n"
    "kind: KubeSchedulerConfiguration\n"
    "leaderElection: {leaderElect: false}\n"
    "profiles:\n- schedulerName: default-scheduler\n"
    "  plugins:\n    multiPoint:\n      enabled: [{name: ApiWriter}]\n";

json zoned_node(const std::string& name, const std::string& zone) {
  json node = test_node(name, "4");
  node["metadata"]["labels"]["zone"] = zone;
  return node;
}

json placement_service(const std::string& zone) {
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata", {{"name", "placement"}, {"labels", {{"zone", zone}}}}},
          {"spec", {{"ports", json::array({{{"port", 80}}})}}}};
}

std::string annotation(kube::ApiClient& client, const std::string& pod) {
  return client.get(ns_path("default") + "/pods/" + pod)
      .value("/metadata/annotations/schedhost.test~1written-by"_json_pointer, std::string());
}

TEST(ServeObjects, PluginsReadTheInformersObjectsAndPreBindWritesThroughTheApi) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  create_node(client, zoned_node("n1", "a"));
  create_node(client, zoned_node("n2", "b"));
  client.create(ns_path("default") + "/services", placement_service("b"));
  client.create(ns_path("default") + "/pods", test_pod("first", "100m"));
  ScratchDir dir;
  ScratchDir plugins;  // only the fixture: a plugin directory must hold plugins alone
  plugins.copy_in(std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/serve/serve_api_writer.so",
                  "serve_api_writer.so");
  ServeProcess serve(*plane, dir.write("profile.yaml", kApiWriterProfile),
                     {"--plugin-dir", plugins.path()});

  ASSERT_TRUE(eventually([&] { return live_decisions(client)["default/first"].node == "n2"; }))
      << serve.log();
  EXPECT_EQ(annotation(client, "first"), "ApiWriter on n2");

  // The Service moves to zone a: its informer's update reaches the next pod's Filter.
  json moved = client.get(ns_path("default") + "/services/placement");
  moved["metadata"]["labels"]["zone"] = "a";
  client.replace(ns_path("default") + "/services/placement", moved);
  // Services move no pod (upstream sends no event for them): the next pod created after the
  // watch has delivered the update is decided on it. Loopback watches deliver in milliseconds.
  std::this_thread::sleep_for(std::chrono::seconds(2));
  client.create(ns_path("default") + "/pods", test_pod("second", "100m"));
  ASSERT_TRUE(eventually([&] { return live_decisions(client)["default/second"].node == "n1"; }))
      << serve.log();
  EXPECT_EQ(annotation(client, "second"), "ApiWriter on n1");
  EXPECT_EQ(serve.log().find("api_request was allowed"), std::string::npos) << serve.log();
  EXPECT_TRUE(serve.process().running());
}

}  // namespace schedhost::testing::serve_objects_test
