// schedhost exercise: one plugin's hooks called directly on one pod and a cluster, the way
// upstream's plugin unit tests drive a plugin (framework/plugin_exerciser.hpp does the calls).
// Here: the flags, reading the pod file and the args, and printing the result.
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

#include "cli/command_inputs.hpp"
#include "cli/commands.hpp"
#include "cli/output_text.hpp"
#include "cli/table.hpp"
#include "cluster/cluster_file.hpp"
#include "cluster/json_field.hpp"
#include "cluster/object_error.hpp"
#include "cluster/yaml_to_json.hpp"
#include "common/input_error.hpp"
#include "framework/plugin_exerciser.hpp"

namespace schedhost::cli {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using framework::ExerciseResult;
using framework::PerNode;
using framework::Status;

struct ExerciseOptions {
  std::string plugin;
  std::string args;
  std::string pod;
  std::string cluster;
  std::vector<std::string> score_nodes;
  std::vector<std::string> plugin_dirs;
  bool framework_order = false;
  std::string output = "json";
};

// ---- reading files -------------------------------------------------------------------------

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

// The one Pod of the --pod file, YAML or JSON. Throws InputError "file[:line:column]: ...".
std::shared_ptr<const cluster::Pod> read_pod(const std::string& file) {
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
std::string read_args(const std::string& value) {
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

// ---- output --------------------------------------------------------------------------------

Json status_json(const Status& status) {
  Json reasons = Json::array();
  for (const std::string& reason : status.reasons)
    reasons.push_back(valid_utf8(reason));
  Json out = Json::object();
  out["code"] = framework::code_name(status.code);
  out["reasons"] = std::move(reasons);
  return out;
}

Json per_node_json(const PerNode<Status>& statuses) {
  Json out = Json::object();
  for (const auto& [node, status] : statuses)
    out[valid_utf8(node)] = status_json(status);
  return out;
}

Json scores_json(const PerNode<std::int64_t>& scores) {
  Json out = Json::object();
  for (const auto& [node, score] : scores)
    out[valid_utf8(node)] = score;
  return out;
}

Json result_json(const std::string& plugin, const ExerciseResult& r) {
  Json out = Json::object();
  out["plugin"] = plugin;
  if (r.pre_enqueue) out["preEnqueue"] = status_json(*r.pre_enqueue);
  if (r.pre_filter) {
    out["preFilter"] = status_json(*r.pre_filter);
    if (r.node_names) {
      Json names = Json::array();
      for (const std::string& name : *r.node_names)
        names.push_back(valid_utf8(name));
      out["preFilter"]["nodeNames"] = std::move(names);
    }
  }
  if (r.filter) out["filter"] = per_node_json(*r.filter);
  if (r.pre_score) out["preScore"] = status_json(*r.pre_score);
  if (r.scores) out["scores"] = scores_json(*r.scores);
  if (!r.score_errors.empty()) out["scoreErrors"] = per_node_json(r.score_errors);
  if (r.normalize_score && !r.normalize_score->ok()) {
    out["normalizeScore"] = status_json(*r.normalize_score);
  }
  if (r.normalized_scores) out["normalizedScores"] = scores_json(*r.normalized_scores);
  return out;
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts)
    out += (out.empty() ? "" : ", ") + part;
  return out;
}

template <class T>
const T* find_node(const PerNode<T>& list, const std::string& node) {
  for (const auto& [name, value] : list) {
    if (name == node) return &value;
  }
  return nullptr;
}

// The pod-level hooks: POINT CODE REASONS, then PreFilter's narrowing.
void print_points(const std::string& plugin, const ExerciseResult& r, std::ostream& out) {
  out << "plugin: " << one_line(plugin) << '\n';
  Table points({"POINT", "CODE", "REASONS"});
  bool any = false;
  auto row = [&](const char* point, const std::optional<Status>& s) {
    if (!s) return;
    points.add_row({point, std::string(framework::code_name(s->code)), one_line(s->message())});
    any = true;
  };
  row("PreEnqueue", r.pre_enqueue);
  row("PreFilter", r.pre_filter);
  row("PreScore", r.pre_score);
  row("NormalizeScore", r.normalize_score);
  if (!any) return;
  out << '\n';
  points.print(out);
  if (r.node_names) {
    out << "PreFilter kept "
        << (r.node_names->empty() ? "no node" : "nodes: " + one_line(join(*r.node_names))) << '\n';
  }
}

// The per-node hooks: NODE [FILTER REASONS] [SCORE] [NORMALIZED], snapshot order.
void print_nodes(const ExerciseResult& r, const cluster::Snapshot& snapshot, std::ostream& out) {
  std::vector<std::string> header = {"NODE"};
  if (r.filter) header.insert(header.end(), {"FILTER", "REASONS"});
  if (r.scores) header.emplace_back("SCORE");
  if (r.normalized_scores) header.emplace_back("NORMALIZED");
  Table table(header);
  bool any = false;
  for (const cluster::NodeInfo& node : snapshot.node_infos()) {
    const Status* filter = r.filter ? find_node(*r.filter, node.name()) : nullptr;
    const std::int64_t* score = r.scores ? find_node(*r.scores, node.name()) : nullptr;
    const Status* score_error = find_node(r.score_errors, node.name());
    if (filter == nullptr && score == nullptr && score_error == nullptr) continue;
    std::vector<std::string> row = {one_line(node.name())};
    if (r.filter) {
      row.emplace_back(filter ? std::string(framework::code_name(filter->code)) : "-");
      row.emplace_back(filter ? one_line(filter->message()) : "");
    }
    if (r.scores) {
      row.emplace_back(score         ? std::to_string(*score)
                       : score_error ? std::string(framework::code_name(score_error->code)) + ": " +
                                           one_line(score_error->message())
                                     : "-");
    }
    if (r.normalized_scores) {
      const std::int64_t* normalized = find_node(*r.normalized_scores, node.name());
      row.emplace_back(normalized ? std::to_string(*normalized) : "-");
    }
    table.add_row(std::move(row));
    any = true;
  }
  if (!any) return;
  out << '\n';
  table.print(out);
}

// ---- the command ---------------------------------------------------------------------------

bool exercises_anything(const schedhost_plugin_vtable_t& v) {
  return v.pre_enqueue || v.pre_filter || v.filter || v.pre_score || v.score;
}

int run(const ExerciseOptions& options) {
  loader::PluginRegistry registry;  // declared first: outlives the plugin instance
  if (!load_plugins(registry, options.plugin_dirs, std::cerr)) return kExitBadInput;
  const loader::PluginDefinition* definition = registry.find(options.plugin);
  if (definition == nullptr) {
    throw InputError("plugin \"" + options.plugin +
                     "\" is not installed: put its .so in a --plugin-dir, or check the name "
                     "with `schedhost plugins`");
  }
  const cluster::Cluster cluster = cluster::load_cluster(options.cluster);
  const cluster::Snapshot snapshot = cluster.snapshot();  // pending pods are not placed
  const std::shared_ptr<const cluster::Pod> pod = read_pod(options.pod);
  const std::string args = read_args(options.args);
  framework::ExerciseOptions exercise;
  exercise.framework_order = options.framework_order;
  if (!options.score_nodes.empty()) {
    check_score_nodes(options.score_nodes, snapshot, options.cluster);
    exercise.score_nodes = options.score_nodes;
  }
  const auto plugin = framework::PluginInstance::create(*definition, args);
  if (!exercises_anything(plugin->vtable())) {
    std::cerr << "warning: plugin \"" << options.plugin
              << "\" has none of PreEnqueue, PreFilter, Filter, PreScore and Score: there is "
                 "nothing to exercise\n";
  }

  const ExerciseResult result = framework::exercise_plugin(*plugin, snapshot, *pod, exercise);
  if (options.output == "table") {
    print_points(options.plugin, result, std::cout);
    print_nodes(result, snapshot, std::cout);
  } else {
    std::cout
        << result_json(options.plugin, result).dump(2, ' ', false, Json::error_handler_t::replace)
        << '\n';
  }
  return kExitOk;
}

}  // namespace

Subcommand add_exercise_command(CLI::App& app) {
  auto options = std::make_shared<ExerciseOptions>();
  CLI::App* sub = app.add_subcommand(
      "exercise",
      "Call one plugin's hooks directly on a pod and a cluster, as upstream's plugin unit tests "
      "do, and print what each returned");
  sub->add_option("--plugin", options->plugin, "The plugin's name")->required();
  sub->add_option("--args", options->args,
                  "The plugin's args: a JSON object, or @FILE (JSON, or YAML); default {}");
  sub->add_option("--pod", options->pod, "A YAML or JSON file holding the one Pod to exercise")
      ->required();
  sub->add_option("--cluster", options->cluster,
                  "The cluster: a YAML or JSON file of Node and Pod objects, or a directory of "
                  "them (only its nodes and running pods are used)")
      ->required();
  sub->add_option("--score-nodes", options->score_nodes,
                  "The nodes PreScore and Score see, comma-separated (default: every node)")
      ->delimiter(',');
  sub->add_option("--plugin-dir", options->plugin_dirs,
                  "A directory of plugin .so files (repeatable; default /plugins). The built-in "
                  "directory is always searched first");
  sub->add_flag("--framework-order", options->framework_order,
                "Stop where the scheduling framework would (after a PreFilter Skip or rejection, "
                "...) instead of calling every hook");
  sub->add_option("-o,--output", options->output, "json or table")
      ->check(CLI::IsMember({"json", "table"}));
  return {sub, [options] { return run(*options); }};
}

}  // namespace schedhost::cli
