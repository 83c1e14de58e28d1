#include "micro_fixture.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "framework/plugin_host.hpp"
#include "loader/plugin_directories.hpp"

namespace schedhost_bench {
namespace {

using nlohmann::json;

json node_json() {
  const json amounts = {{"pods", "110"}, {"cpu", "4"}, {"memory", "32Gi"}};
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata",
           {{"name", "node-0"},
            {"labels",
             {{"kubernetes.io/hostname", "node-0"},
              {"kubernetes.io/os", "linux"},
              {"topology.kubernetes.io/region", "region1"},
              {"topology.kubernetes.io/zone", "zone1"}}}}},
          {"status", {{"capacity", amounts}, {"allocatable", amounts}}}};
}

json pod_json(const std::string& name, const std::string& node) {
  const json amounts = {{"cpu", "100m"}, {"memory", "500Mi"}};
  json pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata",
       {{"name", name}, {"namespace", "sched-0"}, {"labels", {{"app", "web"}, {"color", "blue"}}}}},
      {"spec",
       {{"containers",
         json::array({{{"name", "pause"},
                       {"image", "registry.k8s.io/pause:3.10"},
                       {"resources", {{"limits", amounts}, {"requests", amounts}}}}})},
        {"affinity",
         {{"podAffinity",
           {{"requiredDuringSchedulingIgnoredDuringExecution",
             json::array({{{"labelSelector", {{"matchLabels", {{"color", "blue"}}}}},
                           {"topologyKey", "topology.kubernetes.io/zone"}}})}}}}}}}};
  if (!node.empty()) pod["spec"]["nodeName"] = node;
  return pod;
}

MicroFixture* build() {
  auto* f = new MicroFixture;
  f->registry.load_directories({{schedhost::loader::builtin_plugin_directory(), true, true},
                                {SCHEDHOST_BENCH_FIXTURE_DIR, true}});
  if (!f->registry.failures().empty()) {
    std::fprintf(stderr, "error: %s: %s\n", f->registry.failures().front().path.c_str(),
                 f->registry.failures().front().message.c_str());
    std::exit(1);
  }
  f->pod = make_bench_pod(0);
  std::vector<std::shared_ptr<const schedhost::cluster::Pod>> running;
  for (int i = 0; i < 3; ++i)
    running.push_back(std::make_shared<const schedhost::cluster::Pod>(
        pod_json("run-" + std::to_string(i), "node-0")));
  f->snapshot = schedhost::cluster::Snapshot(
      {std::make_shared<const schedhost::cluster::Node>(node_json())}, running);
  f->api = schedhost::framework::host_api();
  return f;
}

}  // namespace

MicroFixture& fixture() {
  static MicroFixture* f = [] {
    try {
      return build();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
      std::exit(1);
    }
  }();
  return *f;
}

std::shared_ptr<const schedhost::cluster::Pod> make_bench_pod(std::size_t index) {
  return std::make_shared<const schedhost::cluster::Pod>(
      pod_json("pod-" + std::to_string(index), ""));
}

}  // namespace schedhost_bench
