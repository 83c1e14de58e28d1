// Upstream's kube-scheduler v1.35, beside the test API server, with an `extenders:` entry pointing
// at `schedhost extender` (a child process on a free loopback port) that serves SamplePlugin and
// ExampleFilter: it places the pods exactly where `schedhost run` places them with the same
// plugins in its profile, on the same cluster, with nodeCacheCapable true (NodeNames) and false
// (Nodes). The nodes differ only in what the plugins read (names, gpu-type and zone labels, and
// their load), and SamplePlugin's preference (its prod zone bonus, its own CPU measure) beats the
// default scores' differences by a margin, so neither scheduler's tie-break decides.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "serve/serve_support.hpp"

namespace schedhost::extender_test {

using nlohmann::json;
using testing::ChildProcess;
using testing::Decision;

json gpu_node(const std::string& name, const std::string& zone, bool gpu_label) {
  const json resources = {
      {"cpu", "8"}, {"memory", "16Gi"}, {"pods", "110"}, {"nvidia.com/gpu", "4"}};
  json labels = {{"kubernetes.io/hostname", name}, {"topology.kubernetes.io/zone", zone}};
  if (gpu_label) labels["gpu-type"] = "nvidia";
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", labels}}},
          {"status", {{"allocatable", resources}, {"capacity", resources}}}};
}

json gpu_pod(const std::string& name, const std::string& ns, const std::string& cpu,
             const std::string& node_name = {}) {
  json p = {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", name}, {"namespace", ns}}},
            {"spec",
             {{"containers", json::array({{{"name", "c"},
                                           {"image", "registry.k8s.io/pause:3.10"},
                                           {"resources",
                                            {{"requests", {{"cpu", cpu}, {"nvidia.com/gpu", "1"}}},
                                             {"limits", {{"nvidia.com/gpu", "1"}}}}}}})}}}};
  if (!node_name.empty()) p["spec"]["nodeName"] = node_name;
  return p;
}

// The running pods load worker-a1 62%, worker-a2 25%, worker-b1 12% (of 8 cpus); db-gpu is
// empty but ExampleFilter refuses its name; worker-plain has no gpu-type label (SamplePlugin
// refuses it). SamplePlugin's scores (100 - cpu %, +20 for prod pods in zone-a) send p1 to
// worker-a2, p2 to worker-b1, p3 to worker-a2, p4 to worker-b1, p5 to worker-a2, each ahead by
// 70 or more points (x10 in run, its weight; a whole bucket of 0..10, x10 x10, in kube-scheduler)
// where the default plugins differ by less than 30; p6 fits only db-gpu, which the extender
// refuses.
json base_cluster() {
  json items =
      json::array({{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "prod"}}}},
                   gpu_node("worker-a1", "zone-a", true),
                   gpu_node("worker-a2", "zone-a", true),
                   gpu_node("worker-b1", "zone-b", true),
                   gpu_node("db-gpu", "zone-b", true),
                   gpu_node("worker-plain", "zone-b", false),
                   gpu_pod("load-a1", "default", "5", "worker-a1"),
                   gpu_pod("load-a2", "default", "2", "worker-a2"),
                   gpu_pod("load-b1", "default", "1", "worker-b1")});
  return {{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}};
}

std::vector<json> pending_pods() {
  json p6 = gpu_pod("p6", "default", "1");
  p6["spec"]["nodeSelector"] = {{"kubernetes.io/hostname", "db-gpu"}};
  return {gpu_pod("p1", "prod", "1"),    gpu_pod("p2", "default", "2"), gpu_pod("p3", "prod", "1"),
          gpu_pod("p4", "default", "1"), gpu_pod("p5", "prod", "1"),    p6};
}

const char* const kSamplePluginArgs = R"(  pluginConfig:
  - name: SamplePlugin
    args: {whitelistZones: [zone-a]}
)";

// schedhost run's profile: upstream's defaults plus the two plugins, SamplePlugin's score x10.
std::string run_profile() {
  return std::string(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    filter:
      enabled: [{name: SamplePlugin}, {name: ExampleFilter}]
    score:
      enabled: [{name: SamplePlugin, weight: 10}]
)") + kSamplePluginArgs;
}

// The extender's profile, configs/extender-profile.yaml: only the two plugins (kube-scheduler
// runs the defaults itself), SamplePlugin's whitelistZones [zone-a] as above.
const std::string kExtenderProfile =
    std::string(SCHEDHOST_SOURCE_DIR) + "/configs/extender-profile.yaml";

// kube-scheduler's configuration: the default profile and the extender, weight 10.
std::string kube_scheduler_config(int extender_port, bool node_cache_capable) {
  return R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
extenders:
- urlPrefix: http://127.0.0.1:)" +
         std::to_string(extender_port) + R"(
  filterVerb: filter
  prioritizeVerb: prioritize
  weight: 10
  enableHTTPS: false
  nodeCacheCapable: )" +
         (node_cache_capable ? "true" : "false") + R"(
  ignorable: false
)";
}

void places_pods_as_run_does(bool node_cache_capable) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  if (plane->binaries().scheduler.empty()) {
    if (testing::control_plane_required()) {
      FAIL() << "no kube-scheduler beside " << plane->binaries().source;
    }
    GTEST_SKIP() << "no kube-scheduler beside " << plane->binaries().source;
  }
  const std::string dir = plane->dir();
  std::filesystem::create_directories(dir + "/cluster");
  const std::string base = dir + "/cluster/base.json";
  std::ofstream(base) << base_cluster().dump(2);
  std::ofstream(dir + "/cluster/pending.json")
      << json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", pending_pods()}}.dump(2);
  std::ofstream(dir + "/run-profile.yaml") << run_profile();
  const auto want = testing::run_decisions(dir + "/run-profile.yaml", dir + "/cluster",
                                           {"--plugin-dir", testing::example_plugin_dir()});

  kube::ApiClient client(plane->admin_config());
  testing::apply_cluster(client, base, std::chrono::milliseconds(0));

  const int port = testing::free_loopback_port();
  ChildProcess extender(
      {testing::schedhost_binary(), "extender", "--config", kExtenderProfile, "--plugin-dir",
       testing::example_plugin_dir(), "--kubeconfig", plane->kubeconfig(), "--bind-address",
       "127.0.0.1", "--port", std::to_string(port)},
      dir + "/extender.log");
  // Serving once its node cache has synced: kube-scheduler's first request finds it up.
  httplib::Client health("127.0.0.1", port);
  ASSERT_TRUE(testing::eventually(
      [&] {
        const auto r = health.Get("/healthz");
        return (r && r->status == 200) || !extender.running();
      },
      std::chrono::seconds(60)));
  ASSERT_TRUE(extender.running()) << extender.log_tail();
  std::ofstream(dir + "/kube-scheduler.yaml") << kube_scheduler_config(port, node_cache_capable);
  ChildProcess scheduler(
      {"/bin/bash",
       std::string(SCHEDHOST_SOURCE_DIR) + "/tests/controlplane/start-kube-scheduler.sh",
       "--kubeconfig", plane->kubeconfig(), "--config", dir + "/kube-scheduler.yaml", "--port",
       std::to_string(testing::free_loopback_port()), "--workdir", dir + "/kube-scheduler"},
      dir + "/kube-scheduler.log");

  // One pod at a time, as the replay places them: the next is created once the previous is
  // decided and the extender's informer has had time to see the binding.
  std::map<std::string, Decision> got;
  for (const json& pod : pending_pods()) {
    client.create(testing::ns_path(pod["metadata"]["namespace"]) + "/pods", pod);
    const std::string key = pod["metadata"]["namespace"].get<std::string>() + "/" +
                            pod["metadata"]["name"].get<std::string>();
    ASSERT_TRUE(testing::eventually(
        [&] {
          got[key] = testing::live_decisions(client)[key];
          return got[key].result != "Pending";
        },
        std::chrono::seconds(90)))
        << key << "\nextender:\n"
        << extender.log_tail() << "\nkube-scheduler:\n"
        << scheduler.log_tail(6000);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  for (const auto& [key, decision] : got) {
    ASSERT_EQ(want.count(key), 1u) << key;
    EXPECT_EQ(decision.result, want.at(key).result) << key << ": " << decision.message;
    EXPECT_EQ(decision.node, want.at(key).node) << key;
  }
  EXPECT_EQ(got["prod/p1"].node, "worker-a2");
  EXPECT_EQ(got["default/p2"].node, "worker-b1");
  EXPECT_EQ(got["prod/p5"].node, "worker-a2");
  // p6's only candidate was refused by the extender's ExampleFilter, and kube-scheduler says so.
  EXPECT_EQ(got["default/p6"].result, "Unschedulable");
  EXPECT_NE(got["default/p6"].message.find("node name does not contain 'worker'"),
            std::string::npos)
      << got["default/p6"].message;
  EXPECT_TRUE(extender.running()) << extender.log_tail();
  scheduler.stop();
  const int status = extender.stop();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << extender.log_tail();
}

TEST(KubeSchedulerWithExtender, NodeCacheCapablePlacesPodsWhereRunDoes) {
  places_pods_as_run_does(true);
}

TEST(KubeSchedulerWithExtender, NodesInTheRequestPlacesPodsWhereRunDoes) {
  places_pods_as_run_does(false);
}

}  // namespace schedhost::extender_test
