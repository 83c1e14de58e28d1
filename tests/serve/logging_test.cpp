// serve's logs as klog users expect them (issue 17): -v 2 adds one line per bound pod, naming it
// ns/name; --logging-format json makes every line a JSON object with ts, v or level, and msg.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "serve/serve_support.hpp"

namespace schedhost::testing::logging_test {

const std::string kSource = SCHEDHOST_SOURCE_DIR;

TEST(ServeLogging, JsonLinesAndOneLinePerBoundPodAtV2) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  create_node(client, test_node("n1", "2"));
  client.create(ns_path("default") + "/pods", test_pod("a", "100m"));
  client.create(ns_path("default") + "/pods", test_pod("b", "100m"));
  ServeProcess serve(*plane, kSource + "/configs/default-profile.yaml",
                     {"-v", "2", "--logging-format", "json"});
  ASSERT_TRUE(eventually([&] {
    auto live = live_decisions(client);
    return live["default/a"].node == "n1" && live["default/b"].node == "n1";
  })) << serve.log();
  // serve logs a binding when its answer has come back to the scheduling thread, which can be
  // after the API server shows the pod bound.
  ASSERT_TRUE(eventually([&] {
    const std::string log = serve.log();
    return log.find("serve: bound default/a") != std::string::npos &&
           log.find("serve: bound default/b") != std::string::npos;
  })) << serve.log();

  std::istringstream lines(serve.log());
  std::map<std::string, int> bound;
  int parsed = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    json entry;
    ASSERT_NO_THROW(entry = json::parse(line)) << line;
    ASSERT_TRUE(entry["ts"].is_number()) << line;
    ASSERT_TRUE(entry["msg"].is_string()) << line;
    ASSERT_TRUE(entry.contains("v") || entry.contains("level")) << line;
    ++parsed;
    const std::string msg = entry["msg"];
    if (msg.rfind("serve: bound ", 0) == 0) ++bound[msg];
  }
  EXPECT_GT(parsed, 3);
  EXPECT_EQ(bound, (std::map<std::string, int>{{"serve: bound default/a to n1 (1 attempt)", 1},
                                               {"serve: bound default/b to n1 (1 attempt)", 1}}))
      << serve.log();
}

TEST(ServeLogging, WithoutV2NoLinePerPod) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  create_node(client, test_node("n1", "2"));
  client.create(ns_path("default") + "/pods", test_pod("a", "100m"));
  ServeProcess serve(*plane, kSource + "/configs/default-profile.yaml");
  ASSERT_TRUE(eventually([&] { return live_decisions(client)["default/a"].node == "n1"; }))
      << serve.log();
  EXPECT_EQ(serve.log().find("serve: bound "), std::string::npos) << serve.log();
  EXPECT_NE(serve.log().find("info: serve: connected to "), std::string::npos) << serve.log();
}

}  // namespace schedhost::testing::logging_test
