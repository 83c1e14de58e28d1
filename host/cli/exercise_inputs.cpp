// Reading `schedhost exercise`'s inputs: file positions in every error.
#include "cli/exercise_inputs.hpp"

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/cluster_file.hpp"
#include "cluster/json_field.hpp"
#include "cluster/object_error.hpp"
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
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError(path + ": cannot read the " + what + " (" + std::strerror(errno) +
                     "): check the path and its permissions");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string mark_location(const std::string& file, const YAML::Mark& mark) {
  if (mark.is_null()) return source_location(file);
  return source_location(file, mark.line + 1, mark.column + 1);
}

// 1-based line and column of a byte offset.
std::pair<int, int> line_column(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  int line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return {line, static_cast<int>(offset - line_start) + 1};
}

// nlohmann's parse error as "<where>: invalid JSON: <detail>".
std::string json_parse_error(const nlohmann::json::parse_error& e, std::string_view text,
                             const std::string& file) {
  const auto [line, column] = line_column(text, e.byte == 0 ? 0 : e.byte - 1);
  std::string message = e.what();
  const std::size_t detail = message.find(": ", message.find("parse error"));
  if (detail != std::string::npos) message = message.substr(detail + 2);
  return source_location(file, line, column) + ": invalid JSON: " + message;
}

// A YAML (or JSON) file's documents; syntax errors name file:line:column.
std::vector<YAML::Node> load_yaml(const std::string& text, const std::string& file) {
  try {
    std::vector<YAML::Node> documents = YAML::LoadAll(text);
    std::erase_if(documents, [](const YAML::Node& d) { return d.IsNull(); });
    return documents;
  } catch (const YAML::Exception& e) {
    throw InputError(mark_location(file, e.mark) + ": invalid YAML: " + e.msg +
                     ": fix the syntax at this position");
  }
}

// The mark of the deepest YAML node along an RFC 6901 pointer (its parent when it is missing).
YAML::Mark locate(const YAML::Node& node, std::string_view pointer) {
  if (pointer.empty() || pointer.front() != '/') return node.Mark();
  pointer.remove_prefix(1);
  const std::size_t end = std::min(pointer.find('/'), pointer.size());
  std::string token;
  for (std::size_t i = 0; i < end; ++i) {
    const bool escape = pointer[i] == '~' && i + 1 < end;
    token += escape ? (pointer[++i] == '1' ? '/' : '~') : pointer[i];
  }
  const std::string_view rest = pointer.substr(end);
  if (node.IsMap()) {
    for (const auto& entry : node) {
      if (entry.first.IsScalar() && entry.first.Scalar() == token) {
        return entry.second.IsNull() ? entry.first.Mark() : locate(entry.second, rest);
      }
    }
  } else if (node.IsSequence() && !token.empty() &&
             std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    const std::size_t index = std::stoul(token);
    if (index < node.size()) return locate(node[index], rest);
  }
  return node.Mark();
}

}  // namespace

// The one Pod of the --pod file, YAML or JSON. Throws InputError "file[:line:column]: ...".
std::shared_ptr<const cluster::Pod> read_exercise_pod(const std::string& file) {
  const std::string text = read_text(file, "pod file");
  nlohmann::json object;
  std::optional<YAML::Node> yaml;  // for positions
  if (fs::path(file).extension() == ".json") {
    try {
      object = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
      throw InputError(json_parse_error(e, text, file) + ": fix the syntax at this position");
    }
    try {
      yaml = YAML::Load(text);
    } catch (const YAML::Exception&) {
      // positions unknown: errors name the file only
    }
  } else {
    const std::vector<YAML::Node> documents = load_yaml(text, file);
    if (documents.empty()) throw InputError(file + ": no Pod in the file: write one Pod object");
    if (documents.size() > 1) {
      throw InputError(mark_location(file, documents[1].Mark()) +
                       ": a second object: the pod file holds exactly one Pod (put nodes and "
                       "running pods in --cluster)");
    }
    yaml = documents.front();
    object = cluster::yaml_to_json(*yaml, file);
  }
  auto where = [&](std::string_view pointer) {
    return yaml ? mark_location(file, locate(*yaml, pointer)) : source_location(file);
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
std::string read_exercise_args(const std::string& value) {
  nlohmann::json args;
  std::string where = "--args";
  if (value.starts_with('@')) {
    where = value.substr(1);
    const std::string text = read_text(where, "args file");
    if (fs::path(where).extension() == ".json") {
      try {
        args = nlohmann::json::parse(text);
      } catch (const nlohmann::json::parse_error& e) {
        throw InputError(json_parse_error(e, text, where) + ": fix the syntax at this position");
      }
    } else {
      const std::vector<YAML::Node> documents = load_yaml(text, where);
      if (documents.size() > 1) {
        throw InputError(mark_location(where, documents[1].Mark()) +
                         ": a second document: the args file holds one mapping");
      }
      if (!documents.empty()) args = cluster::yaml_to_json(documents.front(), where);
    }
  } else if (!value.empty()) {
    try {
      args = nlohmann::json::parse(value);
    } catch (const nlohmann::json::parse_error& e) {
      throw InputError(json_parse_error(e, value, where) +
                       ": write a JSON object, e.g. --args '{\"key\": 1}', or --args @FILE");
    }
  }
  if (args.is_null()) return "{}";
  if (!args.is_object()) {
    throw InputError(where + ": the args must be a mapping of fields, got " +
                     cluster::json_type_name(args, "empty") +
                     ": write them as a JSON object or YAML mapping");
  }
  return args.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
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
