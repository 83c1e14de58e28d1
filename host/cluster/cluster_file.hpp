// Reading a cluster file (DESIGN.md, "Cluster file").
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "cluster/cluster.hpp"

namespace schedhost::cluster {

// Loads `path`: a YAML file (one or many documents), a JSON file, or a directory whose *.yaml,
// *.yml and *.json files are read in byte order of their names (not recursively). A document
// is a Kubernetes object or a List of them (kind: List, or any *List with items). Pods, Nodes and
// Namespaces (apiVersion v1) and PodDisruptionBudgets (policy/v1 or policy/v1beta1) are
// modelled; other kinds go to Cluster::ignored. Throws schedhost::InputError
// with one line, "file:line:column: <object>: <problem>: <what to do>", for unreadable or
// malformed files, an object without kind or metadata.name, a field the model cannot accept (a bad
// quantity...), a duplicate Node, Namespace, Pod or PodDisruptionBudget, a duplicate pod uid, or a
// pod bound to an unknown node.
Cluster load_cluster(const std::filesystem::path& path);

// load_cluster in two halves, for a caller that reads the files while it does something else
// (run loads the plugins meanwhile). The constructor reads and parses every file and needs
// nothing else, then starts making the Pods and Nodes on a thread (cluster/premade_objects.hpp);
// it never throws. build() makes the other objects, which needs the kinds plugins declare
// (object_kinds.hpp), and throws what load_cluster would, in the same order.
class ClusterReading {
 public:
  explicit ClusterReading(const std::filesystem::path& path);
  Cluster build() &&;

 private:
  std::function<Cluster()> build_;
};

// How YAML is read: libyaml's events where they give yaml-cpp's result (yaml_json_reader.hpp),
// or yaml-cpp only, the reference the first is tested against.
enum class YamlReader { kFastest, kYamlCppOnly };

// One file's text, read as load_cluster() reads a file named `file_name` (JSON for *.json, else
// YAML); the name is only used in messages. For tests and fuzzing.
Cluster parse_cluster_text(std::string text, const std::string& file_name,
                           YamlReader reader = YamlReader::kFastest);

}  // namespace schedhost::cluster
