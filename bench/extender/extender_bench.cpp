// schedhost-extender-bench: the latency of one extender request, from the client's POST to the
// answer read back, over loopback HTTP with keep-alive as kube-scheduler sends them: filter and
// prioritize at 500 and 5000 nodes, with the nodes in the request (nodeCacheCapable: false) and
// by name from a node cache (true). The profile is the README's, configs/extender-profile.yaml:
// SamplePlugin and ExampleFilter.
// Prints min / median / p99 per case (and the median of the same answer computed in process, no
// HTTP) and writes them to bench/results/extender-<time>.json.
#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "config/config_parser.hpp"
#include "config/profile_resolver.hpp"
#include "driver/machine.hpp"
#include "extender/cluster_source.hpp"
#include "extender/extender_server.hpp"
#include "loader/plugin_registry.hpp"

namespace {

using nlohmann::json;

// A node as the kubelet reports one (scheduler_perf's template, with the labels the plugins
// read): about 1 KiB of JSON.
json make_node(int i) {
  const std::string name = (i % 10 == 9 ? "db-" : "worker-") + std::to_string(i);
  const json resources = {{"cpu", "32"},
                          {"memory", "128Gi"},
                          {"pods", "110"},
                          {"nvidia.com/gpu", "8"},
                          {"ephemeral-storage", "100Gi"}};
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata",
           {{"name", name},
            {"uid", "00000000-0000-0000-0000-" + std::to_string(100000000000 + i)},
            {"resourceVersion", std::to_string(1000 + i)},
            {"labels",
             {{"kubernetes.io/hostname", name},
              {"kubernetes.io/os", "linux"},
              {"kubernetes.io/arch", "amd64"},
              {"node.kubernetes.io/instance-type", "n2-standard-32"},
              {"topology.kubernetes.io/region", "region-1"},
              {"topology.kubernetes.io/zone", i % 3 == 0 ? "zone-a" : "zone-b"},
              {"gpu-type", i % 7 == 6 ? "amd" : "nvidia"}}}}},
          {"spec", {{"podCIDR", "10.0.0.0/24"}}},
          {"status",
           {{"allocatable", resources},
            {"capacity", resources},
            {"conditions", json::array({{{"type", "Ready"},
                                         {"status", "True"},
                                         {"reason", "KubeletReady"},
                                         {"message", "kubelet is posting ready status"}}})},
            {"nodeInfo",
             {{"kubeletVersion", "v1.35.0"},
              {"containerRuntimeVersion", "containerd://2.0.0"},
              {"kernelVersion", "6.1.0"},
              {"osImage", "Debian GNU/Linux 12 (bookworm)"}}}}}};
}

json make_pod(const std::string& name, const std::string& node_name) {
  json p = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", name}, {"namespace", "prod"}, {"uid", "uid-" + name}}},
      {"spec",
       {{"containers",
         json::array(
             {{{"name", "c"},
               {"image", "registry.k8s.io/pause:3.10"},
               {"resources",
                {{"requests", {{"cpu", "2"}, {"memory", "4Gi"}, {"nvidia.com/gpu", "1"}}}}}}})}}}};
  if (!node_name.empty()) p["spec"]["nodeName"] = node_name;
  return p;
}

// The node cache of nodeCacheCapable: true: the nodes, with two running pods on each.
class FixedCluster final : public schedhost::extender::ClusterSource {
 public:
  explicit FixedCluster(const std::vector<json>& nodes) {
    std::vector<std::shared_ptr<const schedhost::cluster::Node>> built;
    std::vector<std::shared_ptr<const schedhost::cluster::Pod>> pods;
    for (const json& n : nodes) {
      built.push_back(std::make_shared<const schedhost::cluster::Node>(n));
      for (int k = 0; k < 2; ++k) {
        const std::string name = built.back()->name() + "-" + std::to_string(k);
        pods.push_back(
            std::make_shared<const schedhost::cluster::Pod>(make_pod(name, built.back()->name())));
      }
    }
    snapshot_ = schedhost::cluster::Snapshot(built, pods);
  }
  schedhost::cluster::Snapshot& refresh() override { return snapshot_; }

 private:
  schedhost::cluster::Snapshot snapshot_;
};

struct Figures {
  double min_ms, median_ms, p99_ms;
  std::size_t request_bytes, answer_bytes;
  double in_process_median_ms = 0;  // extender::answer() alone: no socket, no HTTP
};

double median_in_process(schedhost::extender::ExtenderService& service, const std::string& verb,
                         const std::string& body, int requests) {
  std::vector<double> ms;
  for (int i = 0; i < requests; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const auto a = schedhost::extender::answer(service, verb, body);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

Figures measure(httplib::Client& client, const std::string& verb, const std::string& body,
                int requests) {
  std::vector<double> ms;
  std::size_t answer = 0;
  for (int i = 0; i < requests + 3; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const auto r = client.Post("/" + verb, body, "application/json");
    const auto end = std::chrono::steady_clock::now();
    if (!r || r->status != 200) {
      std::fprintf(stderr, "extender-bench: %s answered %d: %s\n", verb.c_str(), r ? r->status : -1,
                   r ? r->body.c_str() : "no answer");
      std::exit(1);
    }
    answer = r->body.size();
    if (i >= 3) ms.push_back(std::chrono::duration<double, std::milli>(end - start).count());
  }
  std::sort(ms.begin(), ms.end());
  const auto at = [&](double q) { return ms[std::min(ms.size() - 1, std::size_t(q * ms.size()))]; };
  return {ms.front(), at(0.5), at(0.99), body.size(), answer};
}

}  // namespace

int main(int argc, char** argv) {
  // --quick: 20 requests a case; --only TEXT: the cases whose "verb nodes mode" contains TEXT
  // (e.g. --only "5000 NodeNames", to profile one).
  bool quick = false;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--quick") {
      quick = true;
    } else if (arg == "--only" && i + 1 < argc) {
      only = argv[++i];
    } else {
      std::fprintf(stderr, "usage: schedhost-extender-bench [--quick] [--only TEXT]\n");
      return 2;
    }
  }
  const int requests = quick ? 20 : 200;
  using namespace schedhost;
  loader::PluginRegistry registry;
  registry.load_directories(
      {{SCHEDHOST_BUILTIN_PLUGINS, true}, {SCHEDHOST_EXAMPLE_PLUGINS, false}});
  config::PluginCatalog catalog;
  for (const loader::PluginDefinition* def : registry.plugins())
    catalog.emplace(def->name, def->points);
  const config::SchedulerConfiguration configuration =
      config::resolve_profiles(config::load_configuration(SCHEDHOST_EXTENDER_PROFILE), catalog)
          .configuration;

  json results = {{"machine", schedhost_bench::describe_machine()}, {"cases", json::array()}};
  std::printf("%-10s %6s %-9s %9s %9s %9s %10s %10s %12s\n", "verb", "nodes", "mode", "min ms",
              "median ms", "p99 ms", "request", "answer", "no-HTTP ms");
  for (const int n : {500, 5000}) {
    std::vector<json> nodes;
    std::vector<std::string> names;
    for (int i = 0; i < n; ++i) {
      nodes.push_back(make_node(i));
      names.push_back(nodes.back()["metadata"]["name"]);
    }
    FixedCluster cache(nodes);
    extender::ExtenderMetrics metrics;
    extender::ExtenderService service(configuration, configuration.profiles.front(), registry,
                                      &cache);
    extender::ExtenderServerOptions options;
    options.bind_address = "127.0.0.1";
    options.port = 0;
    extender::ExtenderServer server(std::move(options), service, metrics, nullptr);
    httplib::Client client("127.0.0.1", server.port());
    client.set_keep_alive(true);
    client.set_tcp_nodelay(true);  // as Go's net/http, kube-scheduler's client
    const json pod = make_pod("pending", "");
    const std::string by_nodes =
        json{{"Pod", pod}, {"Nodes", {{"items", nodes}}}, {"NodeNames", nullptr}}.dump();
    const std::string by_names =
        json{{"Pod", pod}, {"Nodes", nullptr}, {"NodeNames", names}}.dump();
    for (const char* verb : {"filter", "prioritize"}) {
      for (const bool cached : {false, true}) {
        const std::string name =
            std::string(verb) + " " + std::to_string(n) + (cached ? " NodeNames" : " Nodes");
        if (name.find(only) == std::string::npos) continue;
        Figures f = measure(client, verb, cached ? by_names : by_nodes, requests);
        f.in_process_median_ms =
            median_in_process(service, verb, cached ? by_names : by_nodes, requests);
        const char* mode = cached ? "NodeNames" : "Nodes";
        std::printf("%-10s %6d %-9s %9.2f %9.2f %9.2f %9zuK %9zuK %12.2f\n", verb, n, mode,
                    f.min_ms, f.median_ms, f.p99_ms, f.request_bytes / 1024, f.answer_bytes / 1024,
                    f.in_process_median_ms);
        results["cases"].push_back({{"verb", verb},
                                    {"nodes", n},
                                    {"mode", mode},
                                    {"requests", requests},
                                    {"min_ms", f.min_ms},
                                    {"median_ms", f.median_ms},
                                    {"p99_ms", f.p99_ms},
                                    {"request_bytes", f.request_bytes},
                                    {"answer_bytes", f.answer_bytes},
                                    {"in_process_median_ms", f.in_process_median_ms}});
      }
    }
  }
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H%M%SZ", std::gmtime(&now));
  const std::string path =
      std::string(SCHEDHOST_BENCH_RESULTS_DIR) + "/extender-" + stamp + ".json";
  std::filesystem::create_directories(SCHEDHOST_BENCH_RESULTS_DIR);
  std::ofstream(path) << results.dump(2) << '\n';
  std::printf("written to %s\n", path.c_str());
  return 0;
}
