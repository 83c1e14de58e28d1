// Not a timed test: a measurement run by hand (it is disabled, so `make test` skips it), for the
// figures of the closing notes until `make bench-live` exists (issue 21):
//   build/tests/serve/live_serve_tests --gtest_also_run_disabled_tests
//     --gtest_filter='*DISABLED_Measure*'
// It prints how long serve took to bind every pod of a 500-node SchedulingBasic-like cluster
// created before it started, and serve's peak RSS; and checks that it bound what run binds.
#include <gtest/gtest.h>

#include <signal.h>

#include <cstdio>
#include <fstream>

#include "serve/serve_support.hpp"

namespace schedhost::testing {
namespace {

long peak_rss_kib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

TEST(ServeMeasure, DISABLED_Measure500NodesAnd1000Pods) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  ScratchDir dir;
  json items = json::array();
  for (int i = 0; i < 500; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "node-%04d", i);
    const json r = {{"cpu", "4"}, {"memory", "32Gi"}, {"pods", "110"}};
    items.push_back({{"apiVersion", "v1"},
                     {"kind", "Node"},
                     {"metadata", {{"name", name}, {"labels", {{"kubernetes.io/hostname", name}}}}},
                     {"status", {{"allocatable", r}, {"capacity", r}}}});
  }
  for (int i = 0; i < 1000; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "pod-%04d", i);
    items.push_back(
        {{"apiVersion", "v1"},
         {"kind", "Pod"},
         {"metadata", {{"name", name}, {"namespace", "default"}}},
         {"spec",
          {{"containers",
            json::array(
                {{{"name", "c"},
                  {"image", "registry.k8s.io/pause:3.10"},
                  {"resources", {{"requests", {{"cpu", "100m"}, {"memory", "500Mi"}}}}}}})}}}});
  }
  const std::string file = dir.write("basic.json", json{{"kind", "List"}, {"items", items}}.dump());
  // The default profile, with scheduler_perf's client limits (the default 50 qps would be the
  // whole story otherwise: one binding is one request).
  const std::string config =
      dir.write("profile.yaml",
                "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                "clientConnection: {qps: 5000, burst: 5000}\nprofiles:\n- schedulerName: "
                "default-scheduler\n");
  apply_cluster(client, file, std::chrono::milliseconds(0));
  const auto want = run_decisions(config, file);

  const auto start = std::chrono::steady_clock::now();
  ServeProcess serve(*plane, config);
  std::size_t bound = 0;
  long rss = 0;
  while (std::chrono::steady_clock::now() - start < std::chrono::minutes(5)) {
    rss = std::max(rss, peak_rss_kib(serve.process().pid()));
    bound = 0;
    for (const auto& [pod, d] : live_decisions(client))
      bound += d.result == "Scheduled";
    if (bound == want.size()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  rss = std::max(rss, peak_rss_kib(serve.process().pid()));
  std::printf(
      "serve: %zu pods bound on 500 nodes in %.2f s from its start (%.0f pods/s, "
      "including start-up and informer sync); peak RSS %.1f MiB\n",
      bound, seconds, static_cast<double>(bound) / seconds, static_cast<double>(rss) / 1024);
  EXPECT_EQ(bound, want.size());
  std::size_t same = 0;
  const auto live = live_decisions(client);
  for (const auto& [pod, d] : want)
    same += live.at(pod) == d;
  EXPECT_EQ(same, want.size());
  kill(serve.process().pid(), SIGTERM);
  serve.process().stop(15'000);
}

}  // namespace
}  // namespace schedhost::testing
