#include "cluster/cluster_file.hpp"

#include "cluster/error_line.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "cluster/ignored_kinds.hpp"
#include "cluster/input_file.hpp"
#include "cluster/input_limits.hpp"
#include "cluster/json_document.hpp"
#include "cluster/json_field.hpp"
#include "cluster/object_error.hpp"
#include "cluster/object_kinds.hpp"
#include "cluster/pod_creation.hpp"
#include "cluster/premade_objects.hpp"
#include "cluster/yaml_documents.hpp"
#include "cluster/yaml_file_positions.hpp"
#include "cluster/yaml_json_reader.hpp"
#include "cluster/yaml_location.hpp"
#include "cluster/yaml_to_json.hpp"
#include "common/input_error.hpp"

namespace schedhost::cluster {
namespace {

namespace fs = std::filesystem;

// One document of a file, able to turn a JSON pointer into "file:line:column".
class DocumentSource {
 public:
  DocumentSource(std::string file, YAML::Node yaml)
      : file_(std::move(file)), yaml_(yaml), kind_(Kind::kYamlTree) {}
  // A JSON document: positions come from reading the same text as YAML (JSON is YAML flow
  // syntax), only when an error needs one.
  DocumentSource(std::string file, std::string json_text)
      : file_(std::move(file)), json_text_(std::move(json_text)), kind_(Kind::kJson) {}
  // Document `index` of a file read by read_yaml_as_json(): the objects' positions it recorded,
  // any other from the file's yaml-cpp parse when a message needs it.
  DocumentSource(std::shared_ptr<const YamlFilePositions> positions, size_t index,
                 std::unordered_map<std::string, TextMark> object_marks)
      : file_(positions->file()),
        positions_(std::move(positions)),
        index_(index),
        object_marks_(std::move(object_marks)),
        kind_(Kind::kYamlEvents) {}

  // Whether positions can be asked for at any time; a yaml-cpp tree is let go once its file is
  // done, so positions in it are taken at once.
  bool has_lasting_positions() const { return kind_ != Kind::kYamlTree; }

  std::string location(std::string_view pointer) const {
    if (kind_ == Kind::kYamlEvents) {
      auto mark = object_marks_.find(std::string(pointer));
      if (mark == object_marks_.end()) return positions_->location(index_, pointer);
      return source_location(file_, mark->second.line + 1, mark->second.column + 1);
    }
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
  enum class Kind { kYamlTree, kJson, kYamlEvents };

  std::string file_;
  mutable std::optional<YAML::Node> yaml_;
  mutable std::string json_text_;
  std::shared_ptr<const YamlFilePositions> positions_;
  size_t index_ = 0;
  std::unordered_map<std::string, TextMark> object_marks_;
  Kind kind_;
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

// A position kept for a later message ("first at ...", an unknown nodeName). From a yaml-cpp tree
// it is computed at once, which is cheap and lets the tree go when its file is done (a yaml-cpp
// tree is ~90 bytes per byte of text); otherwise the text is kept instead, since its positions
// cost a second parse of the whole file, paid only when a message needs one.
class Where {
 public:
  explicit Where(const ObjectRef& ref, std::string_view field_pointer = {}) {
    if (ref.source->has_lasting_positions()) {
      ref_ = ref.child(field_pointer);
    } else {
      text_ = ref.location(field_pointer);
    }
  }
  std::string str() const { return ref_ ? ref_->location() : text_; }

 private:
  std::optional<ObjectRef> ref_;
  std::string text_;
};

const nlohmann::json* member(const nlohmann::json& object, std::string_view key) {
  auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

// The object premade from this value (rethrowing what making it threw), or one made now.
template <class T>
std::shared_ptr<const T> made_or_new(nlohmann::json& object, const PremadeObjects::Made* made,
                                     std::shared_ptr<const T> PremadeObjects::Made::*which) {
  if (made == nullptr) return std::make_shared<const T>(std::move(object));
  if (made->error) std::rethrow_exception(made->error);
  return made->*which;
}

std::string read_text(const fs::path& file) {
  std::optional<std::string> text =
      read_input_file(file, "split the objects over several files of a directory");
  if (!text) {
    throw InputError(source_location(file.string()) + ": cannot read the cluster file (" +
                     std::strerror(errno) + "): check the path and its permissions");
  }
  return std::move(*text);
}

bool is_cluster_file(const fs::path& file) {
  const std::string ext = file.extension().string();
  return ext == ".yaml" || ext == ".yml" || ext == ".json";
}

// Reading is split from building so that the files can be read while the plugins load: reading
// queues each file's documents and needs nothing else; building the objects needs the kinds the
// plugins declared (object_kinds.hpp). An error while reading is kept and thrown by build()
// after the documents read before it, so messages come in the order of a single pass.
class ClusterBuilder {
 public:
  explicit ClusterBuilder(YamlReader reader = YamlReader::kFastest) : reader_(reader) {}

  void read_file(const fs::path& path) {
    if (!read_error_) read_text(path.string(), [&] { return cluster::read_text(path); });
  }

  void read_text(const std::string& file, const std::function<std::string()>& text_of) {
    if (read_error_) return;
    try {
      std::string text = text_of();
      if (fs::path(file).extension() == ".json") {
        add_json_file(file, std::move(text));
      } else {
        add_yaml_file(file, std::move(text));
      }
    } catch (...) {
      read_error_ = std::current_exception();
    }
  }

  // Keeps err to be thrown after what was read (an error found before reading a file).
  void read_failed(std::exception_ptr err) {
    if (!read_error_) read_error_ = std::move(err);
  }

  // Starts making the Pods and Nodes read so far on another thread (PremadeObjects); build()
  // takes them. Nothing may be read after this.
  void premake() {
    std::vector<nlohmann::json*> values;
    values.reserve(documents_.size());
    for (Document& d : documents_)
      values.push_back(&d.value);
    premade_.start(values);
  }

  Cluster build() {
    premade_.finish();
    for (Document& d : documents_)
      add_document(std::move(d.value), d.ref, d.label, "", premade_.find(&d.value));
    documents_.clear();
    if (read_error_) std::rethrow_exception(read_error_);
    std::erase_if(cluster_.running_pods, [this](const std::shared_ptr<const Pod>& pod) {
      return !node_locations_.contains(pod->node_name());
    });
    for (const auto& [pod, where] : bound_pods_) {
      if (node_locations_.contains(pod->node_name())) continue;
      cluster_.unplaced_pods.push_back(pod);
      cluster_.warnings.push_back(as_one_line(
          where.str() + ": Pod \"" + pod->key() + "\" is bound to node \"" + pod->node_name() +
          "\", which is not in the cluster: it counts on no node, as in kube-scheduler's cache "
          "while its node is gone; add the Node to count it there"));
    }
    for (std::string& warning : ignored_kind_warnings(cluster_.ignored))
      cluster_.warnings.push_back(as_one_line(warning));
    return std::move(cluster_);
  }

 private:
  // A document read, to be made into objects by build().
  struct Document {
    nlohmann::json value;
    ObjectRef ref;
    std::string label;  // for messages: "document 2", "the file"
  };

  void add_json_file(const std::string& file, std::string text) {
    nlohmann::json document = parse_json_document(text, file);
    if (document.is_null()) return;  // an empty file: no objects
    auto source = std::make_shared<const DocumentSource>(file, std::move(text));
    documents_.push_back({std::move(document), ObjectRef{source, ""}, "the file"});
  }

  // libyaml's events straight to JSON when read_yaml_as_json() can promise yaml-cpp's result,
  // yaml-cpp otherwise (and for every syntax error, so that its messages stay as they were).
  void add_yaml_file(const std::string& file, std::string text) {
    std::optional<std::vector<YamlJsonDocument>> documents;
    if (reader_ == YamlReader::kFastest) documents = read_yaml_as_json(text);
    if (!documents) {
      add_yaml_tree(file, text);
      return;
    }
    auto positions = std::make_shared<const YamlFilePositions>(file, std::move(text));
    for (size_t i = 0; i < documents->size(); ++i) {
      YamlJsonDocument& document = (*documents)[i];
      if (document.value.is_null()) continue;  // an empty document, e.g. after a trailing ---
      auto source =
          std::make_shared<const DocumentSource>(positions, i, std::move(document.object_marks));
      documents_.push_back(
          {std::move(document.value), ObjectRef{source, ""}, "document " + std::to_string(i + 1)});
    }
  }

  void add_yaml_tree(const std::string& file, const std::string& text) {
    std::vector<YAML::Node> documents;
    try {
      documents = parse_yaml_documents(text, file);
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
      documents_.push_back(
          {std::move(document), ObjectRef{source, ""}, "document " + std::to_string(i + 1)});
    }
  }

  // `label` names the value for messages ("document 2", "items[3]"); a typed list (PodList)
  // passes the kind its items may leave out.
  // `made`: the object premade from this value (which was then moved out of `object`).
  void add_document(nlohmann::json object, const ObjectRef& ref, const std::string& label,
                    const std::string& implied_kind, const PremadeObjects::Made* made = nullptr) {
    // A premade value was moved out of `object`: the checks read its JSON where it went. It is a
    // Pod or a Node (never a list) by the same reading of its kind.
    if (made != nullptr && made->tree == nullptr) std::rethrow_exception(made->error);
    const nlohmann::json& seen = made != nullptr ? *made->tree : object;
    if (!seen.is_object()) {
      throw InputError(ref.location() + ": " + label + " is " + json_type_name(seen, "empty") +
                       ", not a Kubernetes object: write a mapping with apiVersion, kind and "
                       "metadata");
    }
    std::string kind = implied_kind;
    if (const nlohmann::json* field = member(seen, "kind")) {
      if (!field->is_string()) {
        throw InputError(ref.location("/kind") + ": kind must be a string, not " +
                         json_type_name(*field, "empty") + ": write kind: Pod or kind: Node");
      }
      kind = field->get<std::string>();
    }
    if (kind.empty()) {
      std::string what = label;
      if (std::optional<std::string> name = object_name(seen)) what = "object \"" + *name + "\"";
      throw InputError(ref.location() + ": " + what +
                       " has no kind: add kind: Pod, kind: Node or kind: List");
    }
    // "List", or a typed list such as PodList (an object kind merely ending in "List" without
    // items, e.g. a custom resource, stays an object).
    const bool typed_list = kind.size() > 4 && kind.ends_with("List") && seen.contains("items");
    if (made == nullptr && (kind == "List" || typed_list)) {
      add_list(std::move(object), ref, kind);
      return;
    }

    std::optional<std::string> name = object_name(seen);
    if (!name) {
      std::string field = member(seen, "metadata") ? "/metadata" : "";
      throw InputError(ref.location(field) + ": " + kind +
                       " has no metadata.name: add a name under metadata");
    }
    if (kind == "Pod" || kind == "Node" || kind == "Namespace") {
      check_api_version(seen, ref, kind, *name, {"v1"});
    }
    if (kind == "Node") {
      add_node(std::move(object), ref, *name, made);
    } else if (kind == "Pod") {
      add_pod(std::move(object), ref, *name, made);
    } else if (kind == "Namespace") {
      add_namespace(std::move(object), ref, *name);
    } else if (kind == "PodDisruptionBudget") {
      add_pod_disruption_budget(std::move(object), ref, *name);
    } else if (const ObjectKind* modelled = find_object_kind(kind, api_version_of(object))) {
      add_object(*modelled, std::move(object), ref, *name);
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
                   "items[" + std::to_string(i) + "]", implied, premade_.find(&(*items)[i]));
    }
  }

  // The object's apiVersion, "" when it has none (a hand-written object may leave it out).
  static std::string api_version_of(const nlohmann::json& object) {
    const nlohmann::json* version = member(object, "apiVersion");
    return version != nullptr && version->is_string() ? version->get<std::string>() : "";
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

  void add_node(nlohmann::json object, const ObjectRef& ref, const std::string& name,
                const PremadeObjects::Made* made = nullptr) {
    std::shared_ptr<const Node> node;
    try {
      node = made_or_new(object, made, &PremadeObjects::Made::node);
    } catch (const ObjectError& e) {
      throw InputError(ref.location(e.pointer()) + ": Node \"" + name + "\": " + e.what());
    }
    auto [it, inserted] = node_locations_.emplace(name, Where(ref));
    if (!inserted) {
      throw InputError(ref.location() + ": Node \"" + name + "\" is defined twice (first at " +
                       it->second.str() + "): remove one of them or rename it");
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
    auto [it, inserted] = namespace_locations_.emplace(name, Where(ref));
    if (!inserted) {
      throw InputError(ref.location() + ": Namespace \"" + name + "\" is defined twice (first at " +
                       it->second.str() + "): remove one of them or rename it");
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
    auto [it, inserted] = pdb_locations_.emplace(pdb->key(), Where(ref));
    if (!inserted) {
      throw InputError(ref.location() + ": PodDisruptionBudget \"" + pdb->key() +
                       "\" is defined twice (first at " + it->second.str() +
                       "): remove one of them or rename it");
    }
    cluster_.pod_disruption_budgets.push_back(std::move(pdb));
  }

  // The other kinds plugins read (object_kinds.hpp), named as kubectl keys them in messages.
  void add_object(const ObjectKind& kind, nlohmann::json object, const ObjectRef& ref,
                  const std::string& name) {
    const std::string shown = kind.namespaced ? namespace_of(object) + "/" + name : name;
    const std::string kind_name(kind.kind);
    if (kind.versions[1].empty()) {
      check_api_version(object, ref, kind_name, shown, {kind.versions[0]});
    } else {
      check_api_version(object, ref, kind_name, shown, {kind.versions[0], kind.versions[1]});
    }
    std::shared_ptr<const ApiObject> built;
    try {
      built = std::make_shared<const ApiObject>(kind, std::move(object));
    } catch (const ObjectError& e) {
      throw InputError(ref.location(e.pointer()) + ": " + kind_name + " \"" + shown +
                       "\": " + e.what());
    }
    auto [it, inserted] = object_locations_.emplace(kind_name + " " + built->key(), Where(ref));
    if (!inserted) {
      throw InputError(ref.location() + ": " + kind_name + " \"" + built->key() +
                       "\" is defined twice (first at " + it->second.str() +
                       "): remove one of them or rename it");
    }
    cluster_.objects.push_back(std::move(built));
  }

  void add_pod(nlohmann::json object, const ObjectRef& ref, const std::string& name,
               const PremadeObjects::Made* made = nullptr) {
    // Named from the JSON for errors raised before the Pod exists (namespace as Pod defaults it).
    const std::string ns = made != nullptr ? made->pod_namespace : prepare_pod_object(object);
    std::shared_ptr<const Pod> pod;
    try {
      pod = made_or_new(object, made, &PremadeObjects::Made::pod);
    } catch (const ObjectError& e) {
      throw InputError(ref.location(e.pointer()) + ": Pod \"" + ns + "/" + name +
                       "\": " + e.what());
    }
    const std::string key = pod->key();
    auto [it, inserted] = pod_locations_.emplace(key, Where(ref));
    if (!inserted) {
      throw InputError(ref.location() + ": Pod \"" + key + "\" is defined twice (first at " +
                       it->second.str() + "): remove one of them or rename it");
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
      bound_pods_.emplace_back(pod, Where(ref, "/spec/nodeName"));
      cluster_.running_pods.push_back(std::move(pod));
    } else {
      cluster_.pending_pods.push_back(std::move(pod));
    }
  }

  YamlReader reader_;
  std::vector<Document> documents_;  // read, not yet built
  PremadeObjects premade_;           // the Pods and Nodes of documents_, made ahead
  std::exception_ptr read_error_;    // the error that stopped reading, thrown by build()
  Cluster cluster_;
  std::unordered_map<std::string, Where> node_locations_;       // name -> where
  std::unordered_map<std::string, Where> namespace_locations_;  // name -> where
  std::unordered_map<std::string, Where> pod_locations_;        // namespace/name -> where
  std::unordered_map<std::string, std::string> pod_uids_;       // uid -> namespace/name
  std::unordered_map<std::string, Where> pdb_locations_;        // namespace/name -> where
  std::unordered_map<std::string, Where> object_locations_;     // "Kind key" -> where
  std::vector<std::pair<std::shared_ptr<const Pod>, Where>> bound_pods_;
};

// Reads path (a file, or a directory's cluster files in name order) into builder.
void read_cluster_files(ClusterBuilder& builder, const fs::path& path) {
  std::error_code ec;
  const bool is_directory = fs::is_directory(path, ec);
  if (!is_directory && !fs::exists(path, ec)) {
    throw InputError(source_location(path.string()) +
                     ": no such file or directory: check the cluster file path");
  }
  if (!is_directory) {
    builder.read_file(path);
    return;
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
    builder.read_file(file);
}

}  // namespace

ClusterReading::ClusterReading(const fs::path& path) {
  auto builder = std::make_shared<ClusterBuilder>();
  try {
    read_cluster_files(*builder, path);
  } catch (...) {
    builder->read_failed(std::current_exception());
  }
  // Pods and Nodes are made from here on, while the caller does something else (run: loads the
  // plugins); build() helps with the rest.
  builder->premake();
  build_ = [builder] { return with_one_line_errors([&] { return builder->build(); }); };
}

Cluster ClusterReading::build() && {
  return build_();
}

Cluster parse_cluster_text(std::string text, const std::string& file_name, YamlReader reader) {
  return with_one_line_errors([&] {
    ClusterBuilder builder(reader);
    builder.read_text(file_name, [&] { return std::move(text); });
    builder.premake();
    return builder.build();
  });
}

Cluster load_cluster(const fs::path& path) {
  return ClusterReading(path).build();
}

}  // namespace schedhost::cluster
