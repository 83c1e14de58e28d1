// Reading one text both ways, the libyaml reader and the yaml-cpp path it stands in for, and
// saying how they differ.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "cluster/cluster_file.hpp"
#include "cluster/yaml_documents.hpp"
#include "cluster/yaml_json_reader.hpp"
#include "cluster/yaml_location.hpp"
#include "cluster/yaml_to_json.hpp"
#include "common/input_error.hpp"

namespace schedhost::cluster::testing {

struct Agreement {
  bool fast = false;       // read_yaml_as_json() took the text
  std::string difference;  // empty when the two agree (or the reader stepped aside)
};

// The yaml-cpp path as cluster_file.cpp takes it: documents, null ones as null JSON.
struct YamlCppResult {
  std::vector<YAML::Node> nodes;
  std::vector<nlohmann::json> values;
  std::optional<std::string> error;
};

inline YamlCppResult read_with_yaml_cpp(const std::string& text) {
  YamlCppResult result;
  try {
    result.nodes = parse_yaml_documents(text, "f.yaml");
    for (const YAML::Node& node : result.nodes)
      result.values.push_back(node.IsNull() ? nlohmann::json() : yaml_to_json(node, "f.yaml"));
  } catch (const YAML::Exception& e) {
    result.error = "yaml-cpp: " + e.msg;
  } catch (const InputError& e) {
    result.error = e.what();
  }
  return result;
}

// dump() tells 1 from 1.0 and keeps the key order nlohmann sorts by.
inline std::string exact(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

inline Agreement compare_readers(const std::string& text) {
  Agreement out;
  std::optional<std::vector<YamlJsonDocument>> fast = read_yaml_as_json(text);
  if (!fast) return out;
  out.fast = true;
  YamlCppResult slow = read_with_yaml_cpp(text);
  if (slow.error) {
    out.difference = "the reader took a text yaml-cpp refuses (" + *slow.error + ")";
    return out;
  }
  if (fast->size() != slow.values.size()) {
    out.difference = std::to_string(fast->size()) + " documents, yaml-cpp reads " +
                     std::to_string(slow.values.size());
    return out;
  }
  for (size_t i = 0; i < fast->size(); ++i) {
    const YamlJsonDocument& document = (*fast)[i];
    if (exact(document.value) != exact(slow.values[i])) {
      out.difference = "document " + std::to_string(i + 1) + ": " + exact(document.value) +
                       ", yaml-cpp: " + exact(slow.values[i]);
      return out;
    }
    for (const auto& [pointer, mark] : document.object_marks) {
      YAML::Mark expected = locate(slow.nodes[i], pointer);
      if (expected.line != mark.line || expected.column != mark.column) {
        out.difference = "document " + std::to_string(i + 1) + " \"" + pointer + "\" at " +
                         std::to_string(mark.line) + ":" + std::to_string(mark.column) +
                         ", yaml-cpp: " + std::to_string(expected.line) + ":" +
                         std::to_string(expected.column);
        return out;
      }
    }
  }
  return out;
}

// What parse_cluster_text() makes of a text, as one string to compare: the error, or every
// object with its JSON and every ignored object with its position.
inline std::string cluster_outcome(const std::string& text, const std::string& file,
                                   YamlReader reader) {
  Cluster cluster;
  try {
    cluster = parse_cluster_text(text, file, reader);
  } catch (const InputError& e) {
    return std::string("error: ") + e.what();
  }
  std::string out;
  for (const auto& node : cluster.nodes)
    out += "node " + node->name() + " " + exact(node->json()) + "\n";
  for (const auto& ns : cluster.namespaces)
    out += "namespace " + ns->name() + " " + exact(ns->json()) + "\n";
  for (const auto* pods : {&cluster.running_pods, &cluster.pending_pods, &cluster.finished_pods}) {
    for (const auto& pod : *pods)
      out += "pod " + pod->key() + " " + exact(pod->json()) + "\n";
    out += "--\n";
  }
  for (const auto& pdb : cluster.pod_disruption_budgets)
    out += "pdb " + pdb->key() + " " + exact(pdb->json()) + "\n";
  for (const IgnoredObject& object : cluster.ignored) {
    out += "ignored " + object.kind + " " + object.name + " at " + object.location + " " +
           exact(object.object) + "\n";
  }
  return out;
}

}  // namespace schedhost::cluster::testing
