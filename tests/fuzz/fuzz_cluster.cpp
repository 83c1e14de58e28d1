// libFuzzer target: a cluster file, read as YAML and as JSON (host/cluster), then every pod's and
// node's modelled fields and a few JSON pointers read back. As YAML it is read both ways, by the
// libyaml reader and by yaml-cpp alone, which must agree (tests/support/yaml_agreement.hpp).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "cluster/cluster_file.hpp"
#include "common/input_error.hpp"
#include "fuzz_check.hpp"
#include "support/yaml_agreement.hpp"

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

// The libyaml reader either steps aside or gives what yaml-cpp gives: the same documents, and the
// same cluster or error message.
void check_yaml_readers_agree(const std::string& text) {
  using schedhost::cluster::YamlReader;
  namespace testing = schedhost::cluster::testing;
  const testing::Agreement documents = testing::compare_readers(text);
  if (!documents.difference.empty()) {
    std::fprintf(stderr, "fuzz: %s\n", documents.difference.c_str());
    schedhost::fuzz::finding("the libyaml reader and yaml-cpp read different documents");
  }
  if (documents.fast &&
      testing::cluster_outcome(text, "cluster.yaml", YamlReader::kFastest) !=
          testing::cluster_outcome(text, "cluster.yaml", YamlReader::kYamlCppOnly)) {
    schedhost::fuzz::finding("the libyaml reader and yaml-cpp make different clusters");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  parse_as(text, "cluster.yaml");
  parse_as(text, "cluster.json");
  check_yaml_readers_agree(text);
  return 0;
}
