// libFuzzer target: a cluster file, read as YAML and as JSON (host/cluster), then every pod's and
// node's modelled fields and a few JSON pointers read back.
#include <cstddef>
#include <cstdint>
#include <string>

#include "cluster/cluster_file.hpp"
#include "common/input_error.hpp"
#include "fuzz_check.hpp"

namespace {

void read_back(const schedhost::cluster::Cluster& cluster) {
  for (const auto& node : cluster.nodes) {
    (void)node->json_at("");
    (void)node->json_at("/metadata/labels");
  }
  for (const auto* pods : {&cluster.pending_pods, &cluster.running_pods, &cluster.finished_pods}) {
    for (const auto& pod : *pods) {
      (void)pod->key();
      (void)pod->json_at("/spec");
    }
  }
}

void parse_as(const std::string& text, const std::string& file) {
  try {
    read_back(schedhost::cluster::parse_cluster_text(text, file));
  } catch (const schedhost::InputError& e) {
    schedhost::fuzz::check_error_line(e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  parse_as(text, "cluster.yaml");
  parse_as(text, "cluster.json");
  return 0;
}
