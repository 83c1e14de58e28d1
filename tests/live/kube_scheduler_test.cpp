// Upstream's kube-scheduler v1.35 beside the test API server, started by
// tests/controlplane/start-kube-scheduler.sh from a v1beta3 configuration: what the differential
// tests and the live benchmark compare schedhost serve against.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "kube/api_client.hpp"
#include "live/control_plane.hpp"

namespace schedhost::testing {
namespace {

using nlohmann::json;

void create_ready_node(kube::ApiClient& client, const std::string& name, const std::string& cpu) {
  const json resources = {{"cpu", cpu}, {"memory", "32Gi"}, {"pods", "110"}};
  client.create("/api/v1/nodes",
                {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", name}}}});
  client.patch("/api/v1/nodes/" + name + "/status",
               {{"status",
                 {{"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})},
                  {"capacity", resources},
                  {"allocatable", resources}}}},
               kube::PatchType::StrategicMerge);
}

json pod_requesting(const std::string& name, const std::string& cpu) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec",
           {{"containers", json::array({{{"name", "app"},
                                         {"image", "registry.k8s.io/pause:3.10"},
                                         {"resources", {{"requests", {{"cpu", cpu}}}}}}})}}}};
}

TEST(KubeScheduler, StartedByTheHelperScriptBindsPodsOfTheTestApiServer) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  if (plane->binaries().scheduler.empty()) {
    if (control_plane_required()) FAIL() << "no kube-scheduler beside " << plane->binaries().source;
    GTEST_SKIP() << "no kube-scheduler beside " << plane->binaries().source;
  }
  kube::ApiClient client(plane->admin_config());
  create_ready_node(client, "small", "1");
  create_ready_node(client, "large", "8");
  client.create("/api/v1/namespaces/default/pods", pod_requesting("needs-two", "2"));

  const std::string config = plane->dir() + "/profile.yaml";
  std::ofstream(config) << "apiVersion: kubescheduler.config.k8s.io/v1beta3\n"
                           "kind: KubeSchedulerConfiguration\n"
                           "profiles:\n- schedulerName: default-scheduler\n";
  ChildProcess scheduler(
      {"/bin/bash",
       std::string(SCHEDHOST_SOURCE_DIR) + "/tests/controlplane/start-kube-scheduler.sh",
       "--kubeconfig", plane->kubeconfig(), "--config", config, "--port",
       std::to_string(free_loopback_port()), "--workdir", plane->dir() + "/kube-scheduler"},
      plane->dir() + "/kube-scheduler.log");

  std::string node;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  while (node.empty() && std::chrono::steady_clock::now() < deadline && scheduler.running()) {
    const json pod = client.get("/api/v1/namespaces/default/pods/needs-two");
    node = pod["spec"].value("nodeName", "");
    if (node.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ASSERT_EQ(node, "large") << scheduler.log_tail();

  // Its Scheduled event, as events.k8s.io/v1 (the shape schedhost serve writes too).
  json scheduled;
  for (int i = 0; i < 50 && scheduled.is_null(); ++i) {
    const json events = client.get("/apis/events.k8s.io/v1/namespaces/default/events");
    for (const json& e : events["items"]) {
      if (e.value("reason", "") == "Scheduled") scheduled = e;
    }
    if (scheduled.is_null()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(scheduled.is_null()) << client.get("/apis/events.k8s.io/v1/events").dump() << "\n"
                                    << client.get("/api/v1/events").dump();
  EXPECT_EQ(scheduled["note"], "Successfully assigned default/needs-two to large");
  EXPECT_EQ(scheduled["action"], "Binding");
  EXPECT_EQ(scheduled["type"], "Normal");
  EXPECT_EQ(scheduled["reportingController"], "default-scheduler");
  EXPECT_EQ(scheduled["regarding"]["name"], "needs-two");
  scheduler.stop();
}

}  // namespace
}  // namespace schedhost::testing
