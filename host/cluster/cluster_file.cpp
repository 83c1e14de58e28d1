#include "cluster/cluster_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "cluster/json_field.hpp"
#include "cluster/object_error.hpp"
#include "cluster/yaml_to_json.hpp"
#include "common/input_error.hpp"

namespace schedhost::cluster {
namespace {

namespace fs = std::filesystem;

constexpr int kMaxNesting = 512;  // as yaml_to_json

std::string mark_location(std::string_view file, const YAML::Mark& mark) {
  if (mark.is_null()) return source_location(file);
  return source_location(file, mark.line + 1, mark.column + 1);
}

// Unescapes one RFC 6901 token ("~1" -> "/", "~0" -> "~").
std::string unescape_token(std::string_view token) {
  std::string out;
  for (size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '~' && i + 1 < token.size()) {
      out += token[i + 1] == '1' ? '/' : '~';
      ++i;
    } else {
      out += token[i];
    }
  }
  return out;
}

// The mark of the deepest node along `pointer` (the parent when the field itself is missing).
// Recursive on purpose: assigning one YAML::Node to another rewrites the tree in yaml-cpp.
YAML::Mark locate(const YAML::Node& node, std::string_view pointer) {
  if (pointer.empty() || pointer.front() != '/') return node.Mark();
  pointer.remove_prefix(1);
  size_t end = std::min(pointer.find('/'), pointer.size());
  std::string token = unescape_token(pointer.substr(0, end));
  std::string_view rest = pointer.substr(end);
  if (node.IsMap()) {
    for (const auto& entry : node) {
      if (entry.first.IsScalar() && entry.first.Scalar() == token) {
        // A missing value (`cpu:`) has no useful mark of its own: point at its key.
        return entry.second.IsNull() ? entry.first.Mark() : locate(entry.second, rest);
      }
    }
  } else if (node.IsSequence()) {
    size_t index = 0;
    bool numeric = !token.empty() && std::all_of(token.begin(), token.end(),
                                                 [](char c) { return c >= '0' && c <= '9'; });
    if (numeric) index = std::stoul(token);
    if (numeric && index < node.size()) return locate(node[index], rest);
  }
  return node.Mark();
}

// One document of a file, able to turn a JSON pointer into "file:line:column".
class DocumentSource {
 public:
  DocumentSource(std::string file, YAML::Node yaml) : file_(std::move(file)), yaml_(yaml) {}
  // A JSON document: positions come from reading the same text as YAML (JSON is YAML flow
  // syntax), only when an error needs one.
  DocumentSource(std::string file, std::string json_text)
      : file_(std::move(file)), json_text_(std::move(json_text)) {}

  const std::string& file() const { return file_; }

  std::string location(std::string_view pointer) const {
    if (!yaml_ && !json_text_.empty()) {
      try {
        yaml_ = YAML::Load(json_text_);
      } catch (const YAML::Exception&) {
        json_text_.clear();  // positions unknown: name the file only
      }
    }
    if (!yaml_) return source_location(file_);
    return mark_location(file_, locate(*yaml_, pointer));
  }

 private:
  std::string file_;
  mutable std::optional<YAML::Node> yaml_;
  mutable std::string json_text_;
};

// An object inside a document: the source and the object's own pointer ("/items/3").
struct ObjectRef {
  std::shared_ptr<const DocumentSource> source;
  std::string pointer;

  std::string location(std::string_view field_pointer = {}) const {
    return source->location(pointer + std::string(field_pointer));
  }
  ObjectRef child(std::string_view field_pointer) const {
    return ObjectRef{source, pointer + std::string(field_pointer)};
  }
};

const nlohmann::json* member(const nlohmann::json& object, std::string_view key) {
  auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    throw InputError(source_location(file.string()) + ": cannot read the cluster file (" +
                     std::strerror(errno) + "): check the path and its permissions");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool is_cluster_file(const fs::path& file) {
  const std::string ext = file.extension().string();
  return ext == ".yaml" || ext == ".yml" || ext == ".json";
}

// 1-based line and column of a byte offset.
std::pair<int, int> line_column(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return {line, static_cast<int>(offset - line_start) + 1};
}

class ClusterBuilder {
 public:
  void add_file(const fs::path& path) {
    const std::string file = path.string();
    std::string text = read_text(path);
    if (path.extension() == ".json") {
      add_json_file(file, std::move(text));
    } else {
      add_yaml_file(file, text);
    }
  }

  Cluster finish() {
    for (const auto& [pod, ref] : bound_pods_) {
      if (!node_locations_.contains(pod->node_name())) {
        throw InputError(ref.location("/spec/nodeName") + ": Pod \"" + pod->key() +
                         "\": spec.nodeName \"" + pod->node_name() +
                         "\" is not a Node of the cluster: add that Node, or remove spec.nodeName "
                         "to have the pod scheduled");
      }
    }
    return std::move(cluster_);
  }

 private:
  void add_json_file(const std::string& file, std::string text) {
    nlohmann::json document;
    // The same nesting limit as for YAML: serializing a deeper value would recurse that deep.
    bool too_deep = false;
    auto limit_depth = [&too_deep](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
      too_deep = too_deep || depth > kMaxNesting;
      return !too_deep;
    };
    try {
      document = nlohmann::json::parse(text, limit_depth);
    } catch (const nlohmann::json::parse_error& e) {
      auto [line, column] = line_column(text, e.byte == 0 ? 0 : e.byte - 1);
      std::string message = e.what();
      size_t detail = message.find(": ", message.find("parse error"));
      message = detail == std::string::npos ? message : message.substr(detail + 2);
      throw InputError(source_location(file, line, column) + ": invalid JSON: " + message +
                       ": fix the syntax at this position");
    }
    if (too_deep) {
      throw InputError(source_location(file) + ": nesting deeper than " +
                       std::to_string(kMaxNesting) + " levels: flatten the document");
    }
    auto source = std::make_shared<const DocumentSource>(file, std::move(text));
    add_document(std::move(document), ObjectRef{source, ""}, "the file", "");
  }

  void add_yaml_file(const std::string& file, const std::string& text) {
    std::vector<YAML::Node> documents;
    try {
      documents = YAML::LoadAll(text);
    } catch (const YAML::ParserException& e) {
      throw InputError(mark_location(file, e.mark) + ": invalid YAML: " + e.msg +
                       ": fix the syntax at this position");
    } catch (const YAML::Exception& e) {
      throw InputError(mark_location(file, e.mark) + ": invalid YAML: " + e.msg + ": fix the file");
    }
    for (size_t i = 0; i < documents.size(); ++i) {
      if (documents[i].IsNull()) continue;  // an empty document, e.g. after a trailing ---
      nlohmann::json document = yaml_to_json(documents[i], file);
      auto source = std::make_shared<const DocumentSource>(file, documents[i]);
      add_document(std::move(document), ObjectRef{source, ""}, "document " + std::to_string(i + 1),
                   "");
    }
  }

  // `label` names the value for messages ("document 2", "items[3]"); a typed list (PodList)
  // passes the kind its items may leave out.
  void add_document(nlohmann::json object, const ObjectRef& ref, const std::string& label,
                    const std::string& implied_kind) {
    if (!object.is_object()) {
      throw InputError(ref.location() + ": " + label + " is " + json_type_name(object, "empty") +
                       ", not a Kubernetes object: write a mapping with apiVersion, kind and "
                       "metadata");
    }
    std::string kind = implied_kind;
    if (const nlohmann::json* field = member(object, "kind")) {
      if (!field->is_string()) {
        throw InputError(ref.location("/kind") + ": kind must be a string, not " +
                         json_type_name(*field, "empty") + ": write kind: Pod or kind: Node");
      }
      kind = field->get<std::string>();
    }
    if (kind.empty()) {
      std::string what = label;
      if (std::optional<std::string> name = object_name(object)) what = "object \"" + *name + "\"";
      throw InputError(ref.location() + ": " + what +
                       " has no kind: add kind: Pod, kind: Node or kind: List");
    }
    // "List", or a typed list such as PodList (an object kind merely ending in "List" without
    // items, e.g. a custom resource, stays an object).
    const bool typed_list = kind.size() > 4 && kind.ends_with("List") && object.contains("items");
    if (kind == "List" || typed_list) {
      add_list(std::move(object), ref, kind);
      return;
    }

    std::optional<std::string> name = object_name(object);
    if (!name) {
      std::string field = member(object, "metadata") ? "/metadata" : "";
      throw InputError(ref.location(field) + ": " + kind +
                       " has no metadata.name: add a name under metadata");
    }
    if (kind == "Pod" || kind == "Node" || kind == "Namespace") {
      check_api_version(object, ref, kind, *name, {"v1"});
    }
    if (kind == "Node") {
      add_node(std::move(object), ref, *name);
    } else if (kind == "Namespace") {
      add_namespace(std::move(object), ref, *name);
    } else if (kind == "PodDisruptionBudget") {
      add_pod_disruption_budget(std::move(object), ref, *name);
    } else if (kind == "Pod") {
      add_pod(std::move(object), ref, *name);
    } else {
      std::string full_name = *name;
      if (const nlohmann::json* metadata = member(object, "metadata")) {
        const nlohmann::json* ns = member(*metadata, "namespace");
        if (ns != nullptr && ns->is_string() && !ns->get<std::string>().empty()) {
          full_name = ns->get<std::string>() + "/" + *name;
        }
      }
      cluster_.ignored.push_back(IgnoredObject{kind, full_name, ref.location(), std::move(object)});
    }
  }

  void add_list(nlohmann::json list, const ObjectRef& ref, const std::string& kind) {
    auto found = list.find("items");
    nlohmann::json* items = found == list.end() || found->is_null() ? nullptr : &*found;
    if (items == nullptr) return;  // an empty list
    if (!items->is_array()) {
      throw InputError(ref.location("/items") + ": " + kind + " items must be a sequence, not " +
                       json_type_name(*items, "empty") + ": write items as a YAML list of objects");
    }
    // "PodList" items are Pods even without a kind; "List" items must say.
    std::string implied = kind == "List" ? "" : kind.substr(0, kind.size() - 4);
    for (size_t i = 0; i < items->size(); ++i) {
      add_document(std::move((*items)[i]), ref.child("/items/" + std::to_string(i)),
                   "items[" + std::to_string(i) + "]", implied);
    }
  }

  static std::optional<std::string> object_name(const nlohmann::json& object) {
    const nlohmann::json* metadata = member(object, "metadata");
    if (metadata == nullptr || !metadata->is_object()) return std::nullopt;
    const nlohmann::json* name = member(*metadata, "name");
    if (name == nullptr || !name->is_string() || name->get<std::string>().empty()) {
      return std::nullopt;
    }
    return name->get<std::string>();
  }

  // `name` as the messages show the object ("ns/name" for a namespaced kind); `versions` are the
  // accepted apiVersions, the first one suggested.
  static void check_api_version(const nlohmann::json& object, const ObjectRef& ref,
                                const std::string& kind, const std::string& name,
                                std::initializer_list<std::string_view> versions) {
    const nlohmann::json* version = member(object, "apiVersion");
    if (version == nullptr) return;  // a hand-written object may leave apiVersion out
    if (version->is_string() && std::find(versions.begin(), versions.end(),
                                          version->get<std::string>()) != versions.end()) {
      return;
    }
    std::string shown =
        version->is_string() ? "\"" + version->get<std::string>() + "\"" : version->dump();
    throw InputError(ref.location("/apiVersion") + ": " + kind + " \"" + name + "\": apiVersion " +
                     shown + " is not supported for kind " + kind +
                     ": use apiVersion: " + std::string(*versions.begin()));
  }

  // metadata.namespace as the models default it, for messages about an object not built yet.
  static std::string namespace_of(const nlohmann::json& object) {
    const nlohmann::json* metadata = member(object, "metadata");
    const nlohmann::json* ns = metadata != nullptr ? member(*metadata, "namespace") : nullptr;
    if (ns != nullptr && ns->is_string() && !ns->get<std::string>().empty()) {
      return ns->get<std::string>();
    }
    return "default";
  }

  void add_node(nlohmann::json object, const ObjectRef& ref, const std::string& name) {
    std::shared_ptr<const Node> node;
    try {
      node = std::make_shared<const Node>(std::move(object));
    } catch (const ObjectError& e) {
      throw InputError(ref.location(e.pointer()) + ": Node \"" + name + "\": " + e.what());
    }
    auto [it, inserted] = node_locations_.emplace(name, ref.location());
    if (!inserted) {
      throw InputError(ref.location() + ": Node \"" + name + "\" is defined twice (first at " +
                       it->second + "): remove one of them or rename it");
    }
    cluster_.nodes.push_back(std::move(node));
  }

  void add_namespace(nlohmann::json object, const ObjectRef& ref, const std::string& name) {
    std::shared_ptr<const Namespace> ns;
    try {
      ns = std::make_shared<const Namespace>(std::move(object));
    } catch (const ObjectError& e) {
      throw InputError(ref.location(e.pointer()) + ": Namespace \"" + name + "\": " + e.what());
    }
    auto [it, inserted] = namespace_locations_.emplace(name, ref.location());
    if (!inserted) {
      throw InputError(ref.location() + ": Namespace \"" + name + "\" is defined twice (first at " +
                       it->second + "): remove one of them or rename it");
    }
    cluster_.namespaces.push_back(std::move(ns));
  }

  // policy/v1 (or v1beta1) PodDisruptionBudget, named "namespace/name" in every message.
  void add_pod_disruption_budget(nlohmann::json object, const ObjectRef& ref,
                                 const std::string& name) {
    const std::string key = namespace_of(object) + "/" + name;
    check_api_version(object, ref, "PodDisruptionBudget", key, {"policy/v1", "policy/v1beta1"});
    std::shared_ptr<const PodDisruptionBudget> pdb;
    try {
      pdb = std::make_shared<const PodDisruptionBudget>(std::move(object));
    } catch (const ObjectError& e) {
      throw InputError(ref.location(e.pointer()) + ": PodDisruptionBudget \"" + key +
                       "\": " + e.what());
    }
    auto [it, inserted] = pdb_locations_.emplace(pdb->key(), ref.location());
    if (!inserted) {
      throw InputError(ref.location() + ": PodDisruptionBudget \"" + pdb->key() +
                       "\" is defined twice (first at " + it->second +
                       "): remove one of them or rename it");
    }
    cluster_.pod_disruption_budgets.push_back(std::move(pdb));
  }

  void add_pod(nlohmann::json object, const ObjectRef& ref, const std::string& name) {
    // Named from the JSON for errors raised before the Pod exists (namespace as Pod defaults it).
    std::string ns = "default";
    if (const nlohmann::json* value = member(object["metadata"], "namespace")) {
      if (value->is_string() && !value->get<std::string>().empty()) ns = value->get<std::string>();
    }
    std::shared_ptr<const Pod> pod;
    try {
      pod = std::make_shared<const Pod>(std::move(object));
    } catch (const ObjectError& e) {
      throw InputError(ref.location(e.pointer()) + ": Pod \"" + ns + "/" + name +
                       "\": " + e.what());
    }
    const std::string key = pod->key();
    auto [it, inserted] = pod_locations_.emplace(key, ref.location());
    if (!inserted) {
      throw InputError(ref.location() + ": Pod \"" + key + "\" is defined twice (first at " +
                       it->second + "): remove one of them or rename it");
    }
    auto [uid, fresh] = pod_uids_.emplace(pod->uid(), key);
    if (!fresh) {
      throw InputError(ref.location() + ": Pod \"" + key + "\": uid \"" + pod->uid() +
                       "\" is also the uid of Pod \"" + uid->second +
                       "\": give each pod its own metadata.uid");
    }
    if (pod->phase() == "Succeeded" || pod->phase() == "Failed") {
      cluster_.finished_pods.push_back(std::move(pod));
    } else if (!pod->node_name().empty()) {
      bound_pods_.emplace_back(pod, ref);
      cluster_.running_pods.push_back(std::move(pod));
    } else {
      cluster_.pending_pods.push_back(std::move(pod));
    }
  }

  Cluster cluster_;
  std::unordered_map<std::string, std::string> node_locations_;       // name -> where
  std::unordered_map<std::string, std::string> namespace_locations_;  // name -> where
  std::unordered_map<std::string, std::string> pod_locations_;        // namespace/name -> where
  std::unordered_map<std::string, std::string> pod_uids_;             // uid -> namespace/name
  std::unordered_map<std::string, std::string> pdb_locations_;        // namespace/name -> where
  std::vector<std::pair<std::shared_ptr<const Pod>, ObjectRef>> bound_pods_;
};

}  // namespace

Cluster load_cluster(const fs::path& path) {
  std::error_code ec;
  const bool is_directory = fs::is_directory(path, ec);
  if (!is_directory && !fs::exists(path, ec)) {
    throw InputError(source_location(path.string()) +
                     ": no such file or directory: check the cluster file path");
  }
  ClusterBuilder builder;
  if (!is_directory) {
    builder.add_file(path);
    return builder.finish();
  }
  std::vector<fs::path> files;
  try {
    for (const fs::directory_entry& entry : fs::directory_iterator(path)) {
      std::error_code not_regular;  // e.g. a dangling symlink: not a cluster file
      if (entry.is_regular_file(not_regular) && is_cluster_file(entry.path())) {
        files.push_back(entry.path());
      }
    }
  } catch (const fs::filesystem_error& e) {
    throw InputError(source_location(path.string()) + ": cannot list the directory (" +
                     e.code().message() + "): check its permissions");
  }
  if (files.empty()) {
    throw InputError(source_location(path.string()) +
                     ": no *.yaml, *.yml or *.json file in this directory: add the cluster "
                     "objects, or pass a file");
  }
  std::sort(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) {
    return a.filename().string() < b.filename().string();
  });
  for (const fs::path& file : files)
    builder.add_file(file);
  return builder.finish();
}

}  // namespace schedhost::cluster
