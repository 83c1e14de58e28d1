// Reading `schedhost exercise`'s inputs: file positions in every error.
#include "cli/exercise_inputs.hpp"

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/cluster_file.hpp"
#include "cluster/error_line.hpp"
#include "cluster/input_file.hpp"
#include "cluster/json_document.hpp"
#include "cluster/json_field.hpp"
#include "cluster/object_error.hpp"
#include "cluster/yaml_documents.hpp"
#include "cluster/yaml_location.hpp"
#include "cluster/yaml_to_json.hpp"
#include "common/input_error.hpp"

namespace schedhost::cli {
namespace {

namespace fs = std::filesystem;

std::string read_text(const std::string& path, const char* what) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    throw InputError(path + ": is a directory, not a " + what + ": pass a file");
  }
  std::optional<std::string> text = read_input_file(path, "check the path");
  if (!text) {
    throw InputError(path + ": cannot read the " + what + " (" + std::strerror(errno) +
                     "): check the path and its permissions");
  }
  return std::move(*text);
}

// A YAML (or JSON) file's documents, limits checked; syntax errors name file:line:column.
std::vector<YAML::Node> load_yaml(const std::string& text, const std::string& file) {
  try {
    std::vector<YAML::Node> documents = parse_yaml_documents(text, file);
    std::erase_if(documents, [](const YAML::Node& d) { return d.IsNull(); });
    return documents;
  } catch (const YAML::Exception& e) {
    throw InputError(cluster::mark_location(file, e.mark) + ": invalid YAML: " + e.msg +
                     ": fix the syntax at this position");
  }
}

// The one Pod of the --pod file, YAML or JSON. Throws InputError "file[:line:column]: ...".
std::shared_ptr<const cluster::Pod> read_pod(const std::string& file) {
  const std::string text = read_text(file, "pod file");
  nlohmann::json object;
  std::optional<YAML::Node> yaml;  // for positions
  if (fs::path(file).extension() == ".json") {
    object = cluster::parse_json_document(text, file);
    try {
      yaml = YAML::Load(text);
    } catch (const YAML::Exception&) {
      // positions unknown: errors name the file only
    }
  } else {
    const std::vector<YAML::Node> documents = load_yaml(text, file);
    if (documents.empty()) throw InputError(file + ": no Pod in the file: write one Pod object");
    if (documents.size() > 1) {
      throw InputError(cluster::mark_location(file, documents[1].Mark()) +
                       ": a second object: the pod file holds exactly one Pod (put nodes and "
                       "running pods in --cluster)");
    }
    yaml = documents.front();
    object = cluster::yaml_to_json(*yaml, file);
  }
  auto where = [&](std::string_view pointer) {
    return yaml ? cluster::mark_location(file, cluster::locate(*yaml, pointer))
                : source_location(file);
  };
  if (!object.is_object()) {
    throw InputError(where("") + ": the pod file holds " +
                     cluster::json_type_name(object, "empty") +
                     ", not a Pod: write one Pod object with apiVersion, kind and metadata");
  }
  const auto kind = object.find("kind");
  if (kind == object.end() || kind->is_null()) {
    throw InputError(where("") + ": the object has no kind: add kind: Pod");
  }
  if (*kind != "Pod") {
    throw InputError(where("/kind") + ": kind " + kind->dump() +
                     " is not a Pod: the pod file holds one Pod (put nodes in --cluster)");
  }
  if (const auto version = object.find("apiVersion");
      version != object.end() && !version->is_null() && *version != "v1") {
    throw InputError(where("/apiVersion") + ": Pod: apiVersion " + version->dump() +
                     " is not supported: use apiVersion: v1");
  }
  const nlohmann::json* name = nullptr;
  if (const auto metadata = object.find("metadata");
      metadata != object.end() && metadata->is_object() && metadata->contains("name")) {
    name = &(*metadata)["name"];
  }
  if (name == nullptr || !name->is_string() || name->get<std::string>().empty()) {
    throw InputError(where("/metadata") + ": Pod has no metadata.name: add a name under metadata");
  }
  const std::string pod_name = name->get<std::string>();
  try {
    return std::make_shared<const cluster::Pod>(std::move(object));
  } catch (const cluster::ObjectError& e) {
    throw InputError(where(e.pointer()) + ": Pod \"" + pod_name + "\": " + e.what());
  }
}

// --args: inline JSON, or @FILE (JSON for *.json, else YAML). Empty means {}; else a mapping.
std::string read_args(const std::string& value) {
  nlohmann::json args;
  std::string where = "--args";
  if (value.starts_with('@')) {
    where = value.substr(1);
    const std::string text = read_text(where, "args file");
    if (fs::path(where).extension() == ".json") {
      args = cluster::parse_json_document(text, where);
    } else {
      const std::vector<YAML::Node> documents = load_yaml(text, where);
      if (documents.size() > 1) {
        throw InputError(cluster::mark_location(where, documents[1].Mark()) +
                         ": a second document: the args file holds one mapping");
      }
      if (!documents.empty()) args = cluster::yaml_to_json(documents.front(), where);
    }
  } else if (!value.empty()) {
    args = cluster::parse_json_document(
        value, where, "write a JSON object, e.g. --args '{\"key\": 1}', or --args @FILE");
  }
  if (args.is_null()) return "{}";
  if (!args.is_object()) {
    throw InputError(where + ": the args must be a mapping of fields, got " +
                     cluster::json_type_name(args, "empty") +
                     ": write them as a JSON object or YAML mapping");
  }
  return args.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::shared_ptr<const cluster::Pod> read_exercise_pod(const std::string& file) {
  return with_one_line_errors([&] { return read_pod(file); });
}

std::string read_exercise_args(const std::string& value) {
  return with_one_line_errors([&] { return read_args(value); });
}

// --score-nodes checked against the cluster: every name must be one of its nodes.
void check_score_nodes(const std::vector<std::string>& names, const cluster::Snapshot& snapshot,
                       const std::string& cluster_file) {
  for (const std::string& name : names) {
    if (snapshot.find(name) != nullptr) continue;
    std::string known;
    for (const cluster::NodeInfo& node : snapshot.node_infos())
      known += (known.empty() ? "" : ", ") + node.name();
    std::string message = cluster_file;
    message +=
        ": --score-nodes names node \"" + name + "\", which is not a Node of the cluster: use ";
    message += known.empty() ? "a cluster with nodes" : "one of " + known;
    throw InputError(message);
  }
}

}  // namespace schedhost::cli
