// schedhost/testing/fake_host.hpp - a host without a host process: it implements the host API
// table of abi.h over fake pods and nodes, loads a library from its descriptor (the plugin's
// sources linked into the test, or a .so opened with open_library), and creates plugin instances.
// Everything runs on the test's thread; one FakeHost is one snapshot.
#pragma once

#include <dlfcn.h>
#include <schedhost/abi.h>
#include <schedhost/detail/feature_gates.hpp>
#include <schedhost/detail/library_rules.hpp>
#include <schedhost/detail/object_writes.hpp>
#include <schedhost/k8s/label_selector_text.hpp>
#include <schedhost/testing/fake_cycle_state.hpp>
#include <schedhost/testing/fake_objects.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace schedhost::testing {

class FakeHost;
class FakePlugin;

struct LogLine {
  schedhost_log_level_t level;
  std::string plugin;  // the plugin (or library) that logged it
  std::string message;
};

// What a plugin did to a pod waiting at Permit (waiting_pod_allow / waiting_pod_reject).
struct WaitingPodDecision {
  std::string uid;
  std::string plugin;
  bool allowed;
  std::string message;  // reject only
};

namespace detail {

inline std::string_view view(schedhost_str_t s) {
  return s.data == nullptr ? std::string_view{} : std::string_view{s.data, s.len};
}
inline schedhost_str_t str(std::string_view s) {
  return {s.data(), s.size()};
}

// A string member of a JSON object, "" when absent or not a string.
inline std::string text_member(const nlohmann::json& object, const char* key) {
  const auto it = object.is_object() ? object.find(key) : object.end();
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// metadata.ownerReferences of an object, as the host reads them (entries not mappings skipped).
struct OwnerRecord {
  std::string api_version, kind, name, uid;
  bool controller = false;
};
inline std::vector<OwnerRecord> owners_of(const nlohmann::json& object) {
  std::vector<OwnerRecord> out;
  const nlohmann::json::json_pointer where("/metadata/ownerReferences");
  if (!object.contains(where) || !object.at(where).is_array()) return out;
  for (const nlohmann::json& o : object.at(where)) {
    if (!o.is_object()) continue;
    const auto c = o.find("controller");
    out.push_back({text_member(o, "apiVersion"), text_member(o, "kind"), text_member(o, "name"),
                   text_member(o, "uid"), c != o.end() && c->is_boolean() && c->get<bool>()});
  }
  return out;
}

// A pod as handed to plugins: the fake plus what the host derives from it, at a stable address.
struct PodRecord {
  explicit PodRecord(FakePod p)
      : pod(std::move(p)),
        nonzero(pod.nonzero_requests()),
        object(pod.object()),
        owners(owners_of(object)) {}
  FakePod pod;
  ResourceMap nonzero;
  nlohmann::json object;
  std::vector<OwnerRecord> owners;
  JsonCache json;
};

// An object of another kind (add_object): its JSON and the names the accessors return.
struct ObjectRecord {
  ObjectRecord(std::string resource_name, nlohmann::json o)
      : resource(std::move(resource_name)), object(std::move(o)) {
    const nlohmann::json& metadata =
        object.contains("metadata") ? object["metadata"] : nlohmann::json::object();
    name = text_member(metadata, "name");
    namespace_name = text_member(metadata, "namespace");
    uid = text_member(metadata, "uid");
    resource_version = text_member(metadata, "resourceVersion");
    for (const char* key : {"labels", "annotations"}) {
      const auto m = metadata.is_object() ? metadata.find(key) : metadata.end();
      if (m == metadata.end() || !m->is_object()) continue;
      StringMap& into = std::string_view(key) == "labels" ? labels : annotations;
      for (const auto& [k, v] : m->items()) {
        if (v.is_string()) into[k] = v.get<std::string>();
      }
    }
  }
  std::string resource;
  nlohmann::json object;
  std::string name, namespace_name, uid, resource_version;
  StringMap labels, annotations;
  JsonCache json;
};

struct NodeRecord {
  explicit NodeRecord(FakeNode n)
      : node(std::move(n)),
        requested(node.requested()),
        nonzero_requested(node.nonzero_requested()),
        used_ports(node.used_ports()),
        object(node.object()) {
    for (const FakePod& p : node.pods()) {
      pods.push_back(std::make_unique<PodRecord>(p));
      if (p.has_affinity()) with_affinity.push_back(pods.back().get());
      if (p.has_required_anti_affinity()) with_required_anti_affinity.push_back(pods.back().get());
    }
  }
  FakeNode node;
  ResourceMap requested, nonzero_requested;
  std::vector<FakeHostPort> used_ports;
  nlohmann::json object;
  JsonCache json;
  std::vector<std::unique_ptr<PodRecord>> pods;
  std::vector<const PodRecord*> with_affinity, with_required_anti_affinity;
};

// What a schedhost_host_t* points at: the host and who is calling through it.
struct HostHandle {
  FakeHost* host;
  std::string plugin;
};

// What a schedhost_call_t* points at: one hook invocation and what it reported.
struct CallRecord {
  FakeHost* host;
  std::string plugin;
  std::vector<std::string> reasons;
  std::optional<std::vector<std::string>> node_names;
  std::optional<std::string> nominated_node;
  std::vector<std::pair<std::string, schedhost_action_t>> events;  // register_event, in order
  // false for the calls that have no snapshot in the host (events_to_register, queueing hints):
  // the snapshot, namespace and waiting-pod functions then answer nothing.
  bool has_snapshot = true;
  std::vector<std::pair<std::string, std::string>> sign_fragments = {};  // add_sign_fragment
  // PreBind, Bind, PostBind, Unreserve: api_request may send (FakePlugin sets it).
  bool may_block = false;
  std::deque<std::string> held = {};  // api_request's answers, valid until the call ends
  const char* hook = "";              // the hook called ("Filter"), for messages
  schedhost_call_t* handle() { return reinterpret_cast<schedhost_call_t*>(this); }
  std::string message() const {
    std::string out;
    for (const std::string& r : reasons)
      out += (out.empty() ? "" : ", ") + r;
    return out;
  }
};

// One api_request a plugin sent (ABI 1.8), and the answer the test gives it.
struct ApiRequest {
  std::string plugin;
  std::string verb, path, content_type, body;
};
struct ApiReply {
  std::int32_t status = 200;
  std::string body;
};

struct HostApi;  // the table's functions (below FakeHost)

}  // namespace detail

class FakeHost {
 public:
  FakeHost();
  // Loads library (checks it as the host's loader does, then runs its init).
  explicit FakeHost(const schedhost_library_t* library) : FakeHost() { load(library); }
  FakeHost(const FakeHost&) = delete;
  FakeHost& operator=(const FakeHost&) = delete;
  // Runs the library's deinit: destroy every FakePlugin of this host first.
  ~FakeHost() {
    if (library_ != nullptr && library_->deinit != nullptr) library_->deinit();
  }

  // The descriptor of a library built as a .so (dlopen'd once, never closed, as the host does);
  // throws std::runtime_error when it cannot be opened or is not a plugin.
  static const schedhost_library_t* open_library(const std::string& path) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) throw std::runtime_error(path + ": cannot be loaded: " + dlerror());
    void* entry = dlsym(handle, SCHEDHOST_ENTRY_SYMBOL);
    if (entry == nullptr) {
      throw std::runtime_error(path + ": not a schedhost plugin: it does not export " +
                               SCHEDHOST_ENTRY_SYMBOL
                               "() (build it with schedhost_add_plugin and SCHEDHOST_LIBRARY)");
    }
    return reinterpret_cast<schedhost_plugin_library_fn>(entry)();
  }

  // Checks the library as the host's loader does (magic, ABI version, plugins) and runs init.
  // Throws std::runtime_error with the host's message on the first failure.
  void load(const schedhost_library_t* library) {
    if (library_ != nullptr) throw std::logic_error("this FakeHost has already loaded a library");
    namespace rules = library_rules;
    if (std::string err = rules::check_library_header(library, SCHEDHOST_ABI_MINOR); !err.empty())
      throw std::runtime_error(err);
    const schedhost_library_t lib = rules::copy_struct_prefix(library, library->struct_size);
    std::vector<rules::PluginEntry> plugins;
    if (std::string err = rules::read_plugin_descriptors(lib, plugins); !err.empty())
      throw std::runtime_error(err);
    library_host_.plugin = std::string("library \"") + lib.name + "\"";
    if (lib.init != nullptr) {
      detail::CallRecord call{this, library_host_.plugin, {}, {}, {}, {}, true};
      const schedhost_code_t code = lib.init(&api_, handle(library_host_), call.handle());
      if (code != SCHEDHOST_SUCCESS) {
        throw std::runtime_error(
            library_host_.plugin + " refused to initialise: " +
            (call.reasons.empty() ? "init() returned " + std::to_string(code) : call.message()));
      }
    }
    if (std::string err = rules::check_plugin_entries(lib.name, plugins); !err.empty()) {
      if (lib.deinit != nullptr) lib.deinit();  // init succeeded: keep init/deinit balanced
      throw std::runtime_error(err);
    }
    library_ = library;
  }
  const schedhost_library_t& library() const {
    if (library_ == nullptr) throw std::logic_error("no library loaded in this FakeHost");
    return *library_;
  }
  // The descriptor of the plugin named name; throws std::invalid_argument naming the ones there.
  const schedhost_plugin_descriptor_t& descriptor(std::string_view name) const {
    std::string names;
    for (std::uint32_t i = 0; i < library().plugin_count; ++i) {
      const schedhost_plugin_descriptor_t* d = library_->plugins[i];
      if (d != nullptr && d->name != nullptr && name == d->name) return *d;
      names += (names.empty() ? "" : ", ") + std::string(d && d->name ? d->name : "?");
    }
    throw std::invalid_argument("no plugin \"" + std::string(name) + "\" in library \"" +
                                library_->name + "\" (it has " + names + ")");
  }

  // Creates an instance of the plugin with pluginConfig args as JSON text. Throws
  // std::runtime_error("plugin \"Name\": <reasons>") when the plugin refuses them, as the host
  // would print it. Defined in fake_plugin.hpp.
  FakePlugin create(std::string_view name, std::string_view args_json = "{}");
  // The reason the plugin refuses these args, or "" when it accepts them.
  std::string create_error(std::string_view name, std::string_view args_json);

  // -- the snapshot --
  FakeHost& add_node(FakeNode node) {
    nodes_.push_back(std::make_unique<detail::NodeRecord>(std::move(node)));
    count_images();
    new_snapshot();
    return *this;
  }
  FakeHost& add_namespace(std::string name, StringMap labels = {}) {
    namespaces_.emplace_back(std::move(name), std::move(labels));
    new_snapshot();
    return *this;
  }
  // An object of another kind for the lookups of ABI 1.8 (Context::objects): resource is the
  // name plugins look it up by ("PersistentVolume", "storage.k8s.io/StorageClass", ...), object
  // the object as kubectl prints it; metadata.namespace absent means cluster-scoped. A second
  // object with the same resource, namespace and name replaces the first.
  FakeHost& add_object(std::string resource, nlohmann::json object) {
    auto record = std::make_unique<detail::ObjectRecord>(std::move(resource), std::move(object));
    objects_.erase(std::remove_if(objects_.begin(), objects_.end(),
                                  [&record](const std::unique_ptr<detail::ObjectRecord>& o) {
                                    return o->resource == record->resource &&
                                           o->namespace_name == record->namespace_name &&
                                           o->name == record->name;
                                  }),
                   objects_.end());
    // Kept ordered by resource, namespace and name, as the host orders its lists.
    const auto key = [](const detail::ObjectRecord& o) {
      return std::tie(o.resource, o.namespace_name, o.name);
    };
    auto at = std::lower_bound(objects_.begin(), objects_.end(), record,
                               [&key](const auto& a, const auto& b) { return key(*a) < key(*b); });
    objects_.insert(at, std::move(record));
    new_snapshot();
    return *this;
  }
  // The handle of an object added with add_object (for a FakeClusterEvent); throws
  // std::invalid_argument when there is none. ns is "" for a cluster-scoped kind.
  const schedhost_object_t* object_handle(std::string_view resource, std::string_view ns,
                                          std::string_view name) const {
    for (const auto& o : objects_) {
      if (o->resource == resource && o->namespace_name == ns && o->name == name)
        return reinterpret_cast<const schedhost_object_t*>(o.get());
    }
    throw std::invalid_argument("no " + std::string(resource) + " \"" + std::string(ns) +
                                (ns.empty() ? "" : "/") + std::string(name) +
                                "\" in the FakeHost snapshot");
  }
  // A handle for an object outside the snapshot (an event's old object); lives as this host.
  const schedhost_object_t* keep_object(std::string resource, nlohmann::json object) {
    kept_objects_.push_back(
        std::make_unique<detail::ObjectRecord>(std::move(resource), std::move(object)));
    return reinterpret_cast<const schedhost_object_t*>(kept_objects_.back().get());
  }
  // What a write made of an object (ABI 1.9's declared resources): the earlier record is kept
  // alive, since a plugin may still hold its handle until its hook returns.
  void replace_object(const std::string& resource, nlohmann::json object) {
    auto record = std::make_unique<detail::ObjectRecord>(resource, std::move(object));
    for (auto& o : objects_) {
      if (o->resource == resource && o->namespace_name == record->namespace_name &&
          o->name == record->name) {
        kept_objects_.push_back(std::move(o));
        o = std::move(record);
        new_snapshot();
        return;
      }
    }
    add_object(resource, record->object);  // a new object: no handle to it exists yet
  }
  void remove_object(const std::string& resource, std::string_view ns, std::string_view name) {
    for (auto it = objects_.begin(); it != objects_.end(); ++it) {
      if ((*it)->resource == resource && (*it)->namespace_name == ns && (*it)->name == name) {
        kept_objects_.push_back(std::move(*it));
        objects_.erase(it);
        new_snapshot();
        return;
      }
    }
  }

  // The API server as a plugin's api_request (ABI 1.8) sees it: every request is recorded
  // (api_requests()) and answered by `answer`; without one there is no API server, as in `run`
  // (SKIP). Hooks other than PreBind, Bind, PostBind and Unreserve are refused, as the host
  // refuses them.
  FakeHost& answer_api(std::function<detail::ApiReply(const detail::ApiRequest&)> answer) {
    api_answer_ = std::move(answer);
    return *this;
  }
  const std::vector<detail::ApiRequest>& api_requests() const { return api_requests_; }
  // Without answer_api, a request on a resource a plugin of the library declared (ABI 1.9) is
  // applied to the objects added with add_object, as `schedhost run` applies it (the host's
  // shared schedhost/detail/object_writes.hpp), and recorded too; other paths are SKIP.

  // -- the plugin handle (ABI 1.9): events and metrics --
  // An Event a plugin recorded (Context::record_event), as the host would write it.
  struct RecordedEvent {
    std::string plugin;
    std::string pod;  // "namespace/name"
    std::string type, reason, message;
  };
  const std::vector<RecordedEvent>& events() const { return events_; }
  // What a plugin recorded in one of its declared metrics: a counter's total, or a histogram's
  // observations in order. Throws std::invalid_argument when the plugin declared no such metric
  // or never looked it up (Host::metric).
  struct MetricValues {
    schedhost_metric_kind_t kind = SCHEDHOST_METRIC_COUNTER;
    double total = 0;                  // counters: the sum of what was added
    std::vector<double> observations;  // histograms
  };
  MetricValues metric(std::string_view plugin, std::string_view name) const {
    std::lock_guard lock(metrics_mutex_);
    for (const MetricEntry& m : metrics_) {
      if (m.plugin == plugin && m.name == name) return m.values;
    }
    throw std::invalid_argument("plugin \"" + std::string(plugin) + "\" has no metric \"" +
                                std::string(name) +
                                "\" it declared and looked up (Host::metric) on this FakeHost");
  }
  // Sets an upstream feature gate for feature_enabled (ABI 1.8); a gate not set answers its
  // kube-scheduler v1.35 default, as the host without --feature-gates.
  FakeHost& set_feature_gate(std::string name, bool enabled) {
    feature_gates_[std::move(name)] = enabled;
    return *this;
  }
  std::size_t node_count() const { return nodes_.size(); }
  std::vector<std::string> node_names() const {
    std::vector<std::string> out;
    for (const auto& n : nodes_)
      out.push_back(n->node.name());
    return out;
  }
  // The handle of a node of the snapshot; throws std::invalid_argument for an unknown name.
  const schedhost_node_t* node_handle(std::string_view name) const {
    for (const auto& n : nodes_) {
      if (n->node.name() == name) return reinterpret_cast<const schedhost_node_t*>(n.get());
    }
    throw std::invalid_argument("no node \"" + std::string(name) + "\" in the FakeHost snapshot");
  }

  // -- pods waiting at Permit, and what plugins decided about them --
  FakeHost& add_waiting_pod(FakePod pod) {
    waiting_.push_back(std::make_unique<detail::PodRecord>(std::move(pod)));
    return *this;
  }
  std::vector<std::string> waiting_pod_uids() const {
    std::vector<std::string> out;
    for (const auto& p : waiting_)
      out.push_back(p->pod.uid());
    return out;
  }
  const std::vector<WaitingPodDecision>& waiting_pod_decisions() const { return decisions_; }

  // -- logs --
  // Messages at or above level are recorded (default: everything, so debug lines can be
  // asserted); log_enabled answers accordingly.
  void set_log_level(schedhost_log_level_t level) { log_level_ = level; }
  const std::vector<LogLine>& logs() const { return logs_; }
  void clear_logs() { logs_.clear(); }

  // The host API table plugins get. Shrinking struct_size emulates an older 1.x host (the
  // functions past it then read as absent to a well-behaved plugin).
  const schedhost_host_api_t* api() const { return &api_; }
  void set_api_struct_size(std::uint32_t size) { api_.struct_size = size; }

  // A handle for a pod outside the snapshot; valid as long as this FakeHost.
  const schedhost_pod_t* keep_pod(FakePod pod) {
    kept_.push_back(std::make_unique<detail::PodRecord>(std::move(pod)));
    return reinterpret_cast<const schedhost_pod_t*>(kept_.back().get());
  }

 private:
  friend struct detail::HostApi;
  friend class FakePlugin;

  static const schedhost_host_t* handle(const detail::HostHandle& h) {
    return reinterpret_cast<const schedhost_host_t*>(&h);
  }
  // The fake snapshot never journals changes: any edit makes it a new snapshot (new id,
  // revision 0), so a plugin's data kept across calls is recomputed.
  void new_snapshot() {
    static std::atomic<std::uint64_t> last{0};  // FakeHosts may live on several test threads
    snapshot_id_ = ++last;
  }
  // How many nodes of the snapshot have each image, as the host's ImageStates.
  void count_images() {
    for (auto& n : nodes_) {
      for (FakeImage& image : n->node.images()) {
        image.num_nodes = 0;
        for (const auto& other : nodes_) {
          for (const FakeImage& i : other->node.images())
            image.num_nodes += i.name == image.name ? 1 : 0;
        }
      }
    }
  }

  schedhost_host_api_t api_;
  const schedhost_library_t* library_ = nullptr;
  detail::HostHandle library_host_{this, ""};
  std::vector<std::unique_ptr<detail::NodeRecord>> nodes_;
  std::uint64_t snapshot_id_ = 0;  // set by new_snapshot()
  std::vector<std::pair<std::string, StringMap>> namespaces_;
  std::vector<std::unique_ptr<detail::PodRecord>> waiting_;
  std::vector<std::unique_ptr<detail::PodRecord>> kept_;
  std::vector<std::unique_ptr<detail::ObjectRecord>> objects_;  // by resource, namespace, name
  std::vector<std::unique_ptr<detail::ObjectRecord>> kept_objects_;
  std::vector<WaitingPodDecision> decisions_;
  std::map<std::string, bool, std::less<>> feature_gates_;  // set_feature_gate
  std::function<detail::ApiReply(const detail::ApiRequest&)> api_answer_;
  std::vector<detail::ApiRequest> api_requests_;
  std::vector<RecordedEvent> events_;
  struct MetricEntry {
    std::string plugin, name;
    MetricValues values;
  };
  mutable std::mutex metrics_mutex_;   // metric_record may come from any thread
  std::deque<MetricEntry> metrics_;    // the index is the id metric_id gave
  std::uint64_t written_version_ = 0;  // resourceVersions and uids of the objects writes made
  std::vector<LogLine> logs_;
  schedhost_log_level_t log_level_ = SCHEDHOST_LOG_TRACE;
};

namespace detail {

// The host API: each function tolerates NULL handles and indexes past the end, as the host does.
struct HostApi {
  static const PodRecord* pod(const schedhost_pod_t* h) {
    return reinterpret_cast<const PodRecord*>(h);
  }
  static const NodeRecord* node(const schedhost_node_t* h) {
    return reinterpret_cast<const NodeRecord*>(h);
  }
  static const HostHandle* host(const schedhost_host_t* h) {
    return reinterpret_cast<const HostHandle*>(h);
  }
  static CallRecord* call(schedhost_call_t* c) { return reinterpret_cast<CallRecord*>(c); }
  static const CallRecord* call(const schedhost_call_t* c) {
    return reinterpret_cast<const CallRecord*>(c);
  }

  template <class Map>
  static bool map_get(const Map* m, schedhost_str_t key, schedhost_str_t* out) {
    if (m == nullptr || out == nullptr) return false;
    const auto it = m->find(view(key));
    if (it == m->end()) return false;
    *out = str(it->second);
    return true;
  }
  static bool map_at(const StringMap* m, size_t i, schedhost_str_t* k, schedhost_str_t* v) {
    if (m == nullptr || i >= m->size()) return false;
    const auto it = std::next(m->begin(), static_cast<std::ptrdiff_t>(i));
    if (k != nullptr) *k = str(it->first);
    if (v != nullptr) *v = str(it->second);
    return true;
  }
  static bool resource_get(const ResourceMap* m, schedhost_str_t name, int64_t* out) {
    const auto it = m == nullptr ? ResourceMap::const_iterator{} : m->find(view(name));
    const bool found = m != nullptr && it != m->end();
    if (out != nullptr) *out = found ? it->second : 0;
    return found;
  }
  static bool resource_at(const ResourceMap* m, size_t i, schedhost_str_t* name, int64_t* value) {
    if (m == nullptr || i >= m->size()) return false;
    const auto it = std::next(m->begin(), static_cast<std::ptrdiff_t>(i));
    if (name != nullptr) *name = str(it->first);
    if (value != nullptr) *value = it->second;
    return true;
  }
  static bool json_at(const nlohmann::json& object, const JsonCache& cache, schedhost_str_t pointer,
                      schedhost_str_t* out) {
    const std::string* json = out == nullptr ? nullptr : cache.at(object, view(pointer));
    if (json == nullptr) return false;
    *out = str(*json);
    return true;
  }
  static schedhost_host_port_t port(const FakeHostPort& p) {
    return {str(p.host_ip), str(p.protocol), p.port};
  }

  // -- logging and results --
  static bool log_enabled(const schedhost_host_t* h, schedhost_log_level_t level) {
    return h != nullptr && level >= host(h)->host->log_level_;
  }
  static void log(const schedhost_host_t* h, schedhost_log_level_t level, schedhost_str_t msg) {
    if (log_enabled(h, level)) {
      host(h)->host->logs_.push_back({level, host(h)->plugin, std::string(view(msg))});
    }
  }
  static void add_reason(schedhost_call_t* c, schedhost_str_t reason) {
    if (c != nullptr) call(c)->reasons.emplace_back(view(reason));
  }
  static void set_node_names(schedhost_call_t* c, const schedhost_str_t* names, size_t count) {
    if (c == nullptr || (names == nullptr && count > 0)) return;
    std::vector<std::string> copy;
    for (size_t i = 0; i < count; ++i)
      copy.emplace_back(view(names[i]));
    call(c)->node_names = std::move(copy);
  }
  static void set_nominated_node(schedhost_call_t* c, schedhost_str_t name) {
    if (c != nullptr) call(c)->nominated_node = std::string(view(name));
  }
  // A thrown hook's what() is its reason, as the host makes it (the host also counts a fault).
  static void report_exception(schedhost_call_t* c, schedhost_str_t what) { add_reason(c, what); }
  static void register_event(schedhost_call_t* c, schedhost_str_t resource,
                             schedhost_action_t actions) {
    if (c != nullptr) call(c)->events.emplace_back(std::string(view(resource)), actions);
  }
  static void add_sign_fragment(schedhost_call_t* c, schedhost_str_t key, schedhost_str_t value) {
    if (c != nullptr) call(c)->sign_fragments.emplace_back(view(key), view(value));
  }

  // -- pods --
  static schedhost_str_t pod_string(const schedhost_pod_t* h, schedhost_pod_string_t field) {
    if (h == nullptr) return {};
    const FakePod& p = pod(h)->pod;
    switch (field) {
      case SCHEDHOST_POD_NAME:
        return str(p.name());
      case SCHEDHOST_POD_NAMESPACE:
        return str(p.namespace_name());
      case SCHEDHOST_POD_UID:
        return str(p.uid());
      case SCHEDHOST_POD_NODE_NAME:
        return str(p.node_name());
      case SCHEDHOST_POD_SCHEDULER_NAME:
        return str(p.scheduler_name());
      case SCHEDHOST_POD_PRIORITY_CLASS_NAME:
        return str(p.priority_class_name());
      case SCHEDHOST_POD_NOMINATED_NODE_NAME:
        return str(p.nominated_node_name());
      case SCHEDHOST_POD_PREEMPTION_POLICY:
        return str(p.preemption_policy());
      default:
        return {};
    }
  }
  static int64_t pod_integer(const schedhost_pod_t* h, schedhost_pod_integer_t field) {
    if (h == nullptr) return 0;
    const FakePod& p = pod(h)->pod;
    switch (field) {
      case SCHEDHOST_POD_PRIORITY:
        return p.priority();
      case SCHEDHOST_POD_START_TIME_MS:
        return p.start_time_ms();
      case SCHEDHOST_POD_CREATION_TIME_MS:
        return p.creation_time_ms();
      case SCHEDHOST_POD_TERMINATING:
        return p.terminating() ? 1 : 0;
      case SCHEDHOST_POD_GENERATION:
        return p.generation();
      default:
        return 0;
    }
  }
  static const StringMap* pod_map(const schedhost_pod_t* h, schedhost_map_t map) {
    if (h == nullptr) return nullptr;
    const FakePod& p = pod(h)->pod;
    switch (map) {
      case SCHEDHOST_MAP_LABELS:
        return &p.labels();
      case SCHEDHOST_MAP_ANNOTATIONS:
        return &p.annotations();
      case SCHEDHOST_MAP_NODE_SELECTOR:
        return &p.node_selector();
      default:
        return nullptr;
    }
  }
  static const ResourceMap* pod_list(const schedhost_pod_t* h, schedhost_resource_list_t list) {
    if (h == nullptr) return nullptr;
    if (list == SCHEDHOST_POD_REQUESTS) return &pod(h)->pod.requests();
    if (list == SCHEDHOST_POD_NONZERO_REQUESTS) return &pod(h)->nonzero;
    return nullptr;
  }
  static bool pod_map_get(const schedhost_pod_t* h, schedhost_map_t map, schedhost_str_t key,
                          schedhost_str_t* out) {
    return map_get(pod_map(h, map), key, out);
  }
  static size_t pod_map_count(const schedhost_pod_t* h, schedhost_map_t map) {
    const StringMap* m = pod_map(h, map);
    return m == nullptr ? 0 : m->size();
  }
  static bool pod_map_at(const schedhost_pod_t* h, schedhost_map_t map, size_t i,
                         schedhost_str_t* k, schedhost_str_t* v) {
    return map_at(pod_map(h, map), i, k, v);
  }
  static bool pod_resource(const schedhost_pod_t* h, schedhost_resource_list_t list,
                           schedhost_str_t name, int64_t* out) {
    return resource_get(pod_list(h, list), name, out);
  }
  static size_t pod_resource_count(const schedhost_pod_t* h, schedhost_resource_list_t list) {
    const ResourceMap* m = pod_list(h, list);
    return m == nullptr ? 0 : m->size();
  }
  static bool pod_resource_at(const schedhost_pod_t* h, schedhost_resource_list_t list, size_t i,
                              schedhost_str_t* name, int64_t* value) {
    return resource_at(pod_list(h, list), i, name, value);
  }
  static size_t pod_toleration_count(const schedhost_pod_t* h) {
    return h == nullptr ? 0 : pod(h)->pod.tolerations().size();
  }
  static bool pod_toleration_at(const schedhost_pod_t* h, size_t i, schedhost_toleration_t* out) {
    if (h == nullptr || out == nullptr || i >= pod(h)->pod.tolerations().size()) return false;
    const FakeToleration& t = pod(h)->pod.tolerations()[i];
    *out = {str(t.key),
            str(t.op),
            str(t.value),
            str(t.effect),
            t.toleration_seconds.value_or(0),
            t.toleration_seconds.has_value()};
    return true;
  }
  static size_t pod_host_port_count(const schedhost_pod_t* h) {
    return h == nullptr ? 0 : pod(h)->pod.host_ports().size();
  }
  static bool pod_host_port_at(const schedhost_pod_t* h, size_t i, schedhost_host_port_t* out) {
    if (h == nullptr || out == nullptr || i >= pod(h)->pod.host_ports().size()) return false;
    *out = port(pod(h)->pod.host_ports()[i]);
    return true;
  }
  static size_t pod_container_count(const schedhost_pod_t* h) {
    return h == nullptr ? 0 : pod(h)->pod.containers().size();
  }
  static bool pod_container_at(const schedhost_pod_t* h, size_t i, schedhost_container_t* out) {
    if (h == nullptr || out == nullptr || i >= pod(h)->pod.containers().size()) return false;
    const FakeContainer& c = pod(h)->pod.containers()[i];
    *out = {str(c.name), str(c.image), c.kind};
    return true;
  }
  static bool pod_json(const schedhost_pod_t* h, schedhost_str_t pointer, schedhost_str_t* out) {
    return h != nullptr && json_at(pod(h)->object, pod(h)->json, pointer, out);
  }

  // -- nodes --
  static schedhost_str_t node_string(const schedhost_node_t* h, schedhost_node_string_t field) {
    if (h == nullptr) return {};
    if (field == SCHEDHOST_NODE_NAME) return str(node(h)->node.name());
    if (field == SCHEDHOST_NODE_UID) return str(node(h)->node.uid());
    return {};
  }
  static int64_t node_integer(const schedhost_node_t* h, schedhost_node_integer_t field) {
    if (h == nullptr) return 0;
    if (field == SCHEDHOST_NODE_UNSCHEDULABLE) return node(h)->node.unschedulable() ? 1 : 0;
    if (field == SCHEDHOST_NODE_GENERATION) return node(h)->node.generation();
    return 0;
  }
  static const StringMap* node_map(const schedhost_node_t* h, schedhost_map_t map) {
    if (h == nullptr) return nullptr;
    if (map == SCHEDHOST_MAP_LABELS) return &node(h)->node.labels();
    if (map == SCHEDHOST_MAP_ANNOTATIONS) return &node(h)->node.annotations();
    return nullptr;
  }
  static const ResourceMap* node_list(const schedhost_node_t* h, schedhost_resource_list_t list) {
    if (h == nullptr) return nullptr;
    switch (list) {
      case SCHEDHOST_NODE_ALLOCATABLE:
        return &node(h)->node.allocatable();
      case SCHEDHOST_NODE_REQUESTED:
        return &node(h)->requested;
      case SCHEDHOST_NODE_NONZERO_REQUESTED:
        return &node(h)->nonzero_requested;
      default:
        return nullptr;
    }
  }
  static bool node_map_get(const schedhost_node_t* h, schedhost_map_t map, schedhost_str_t key,
                           schedhost_str_t* out) {
    return map_get(node_map(h, map), key, out);
  }
  static size_t node_map_count(const schedhost_node_t* h, schedhost_map_t map) {
    const StringMap* m = node_map(h, map);
    return m == nullptr ? 0 : m->size();
  }
  static bool node_map_at(const schedhost_node_t* h, schedhost_map_t map, size_t i,
                          schedhost_str_t* k, schedhost_str_t* v) {
    return map_at(node_map(h, map), i, k, v);
  }
  static bool node_resource(const schedhost_node_t* h, schedhost_resource_list_t list,
                            schedhost_str_t name, int64_t* out) {
    return resource_get(node_list(h, list), name, out);
  }
  static size_t node_resource_count(const schedhost_node_t* h, schedhost_resource_list_t list) {
    const ResourceMap* m = node_list(h, list);
    return m == nullptr ? 0 : m->size();
  }
  static bool node_resource_at(const schedhost_node_t* h, schedhost_resource_list_t list, size_t i,
                               schedhost_str_t* name, int64_t* value) {
    return resource_at(node_list(h, list), i, name, value);
  }
  static size_t node_taint_count(const schedhost_node_t* h) {
    return h == nullptr ? 0 : node(h)->node.taints().size();
  }
  static bool node_taint_at(const schedhost_node_t* h, size_t i, schedhost_taint_t* out) {
    if (h == nullptr || out == nullptr || i >= node(h)->node.taints().size()) return false;
    const FakeTaint& t = node(h)->node.taints()[i];
    *out = {str(t.key), str(t.value), str(t.effect)};
    return true;
  }
  static size_t node_used_port_count(const schedhost_node_t* h) {
    return h == nullptr ? 0 : node(h)->used_ports.size();
  }
  static bool node_used_port_at(const schedhost_node_t* h, size_t i, schedhost_host_port_t* out) {
    if (h == nullptr || out == nullptr || i >= node(h)->used_ports.size()) return false;
    *out = port(node(h)->used_ports[i]);
    return true;
  }
  static size_t node_image_count(const schedhost_node_t* h) {
    return h == nullptr ? 0 : node(h)->node.images().size();
  }
  static bool node_image_at(const schedhost_node_t* h, size_t i, schedhost_image_t* out) {
    if (h == nullptr || out == nullptr || i >= node(h)->node.images().size()) return false;
    const FakeImage& image = node(h)->node.images()[i];
    *out = {str(image.name), image.size_bytes, image.num_nodes};
    return true;
  }
  static std::vector<const PodRecord*> node_pods(const schedhost_node_t* h,
                                                 schedhost_node_pods_t which) {
    if (h == nullptr) return {};
    if (which == SCHEDHOST_NODE_PODS_WITH_AFFINITY) return node(h)->with_affinity;
    if (which == SCHEDHOST_NODE_PODS_WITH_REQUIRED_ANTI_AFFINITY) {
      return node(h)->with_required_anti_affinity;
    }
    if (which != SCHEDHOST_NODE_PODS_ALL) return {};
    std::vector<const PodRecord*> all;
    for (const auto& p : node(h)->pods)
      all.push_back(p.get());
    return all;
  }
  static size_t node_pod_count(const schedhost_node_t* h, schedhost_node_pods_t which) {
    return node_pods(h, which).size();
  }
  static const schedhost_pod_t* node_pod_at(const schedhost_node_t* h, schedhost_node_pods_t which,
                                            size_t i) {
    const auto pods = node_pods(h, which);
    return i < pods.size() ? reinterpret_cast<const schedhost_pod_t*>(pods[i]) : nullptr;
  }
  static bool node_json(const schedhost_node_t* h, schedhost_str_t pointer, schedhost_str_t* out) {
    return h != nullptr && json_at(node(h)->object, node(h)->json, pointer, out);
  }

  // -- the snapshot and namespaces of the call --
  // The host behind a call that has a snapshot; nullptr for events_to_register and queueing
  // hints, which have none in the host either (every snapshot function then answers "nothing").
  static FakeHost* snapshot_host(const schedhost_call_t* c) {
    return c == nullptr || !call(c)->has_snapshot ? nullptr : call(c)->host;
  }
  static size_t snapshot_node_count(const schedhost_call_t* c) {
    const FakeHost* h = snapshot_host(c);
    return h == nullptr ? 0 : h->nodes_.size();
  }
  static const schedhost_node_t* snapshot_node_at(const schedhost_call_t* c, size_t i) {
    const FakeHost* h = snapshot_host(c);
    if (h == nullptr || i >= h->nodes_.size()) return nullptr;
    return reinterpret_cast<const schedhost_node_t*>(h->nodes_[i].get());
  }
  static const schedhost_node_t* snapshot_node_get(const schedhost_call_t* c,
                                                   schedhost_str_t name) {
    const FakeHost* h = snapshot_host(c);
    if (h == nullptr) return nullptr;
    for (const auto& n : h->nodes_) {
      if (n->node.name() == view(name)) return reinterpret_cast<const schedhost_node_t*>(n.get());
    }
    return nullptr;
  }
  // Computed on each call: the fake host favours plain code over speed.
  static std::vector<const NodeRecord*> nodes_with_pods(const schedhost_call_t* c,
                                                        schedhost_node_pods_t which) {
    std::vector<const NodeRecord*> out;
    const FakeHost* host = snapshot_host(c);
    if (host == nullptr) return out;
    for (const auto& n : host->nodes_) {
      const auto* h = reinterpret_cast<const schedhost_node_t*>(n.get());
      if (!node_pods(h, which).empty()) out.push_back(n.get());
    }
    return out;
  }
  static size_t snapshot_nodes_with_pods_count(const schedhost_call_t* c,
                                               schedhost_node_pods_t which) {
    return nodes_with_pods(c, which).size();
  }
  static const schedhost_node_t* snapshot_nodes_with_pods_at(const schedhost_call_t* c,
                                                             schedhost_node_pods_t which,
                                                             size_t i) {
    const auto nodes = nodes_with_pods(c, which);
    return i < nodes.size() ? reinterpret_cast<const schedhost_node_t*>(nodes[i]) : nullptr;
  }
  static std::uint64_t snapshot_id(const schedhost_call_t* c) {
    const FakeHost* h = snapshot_host(c);
    return h == nullptr ? 0 : h->snapshot_id_;
  }
  static std::uint64_t snapshot_revision(const schedhost_call_t*) { return 0; }
  static std::int32_t snapshot_change_at(const schedhost_call_t*, std::uint64_t,
                                         const schedhost_pod_t**, size_t*) {
    return 0;
  }
  static const StringMap* namespace_labels(const schedhost_call_t* c, schedhost_str_t ns) {
    const FakeHost* h = snapshot_host(c);
    if (h == nullptr) return nullptr;
    for (const auto& [name, labels] : h->namespaces_) {
      if (name == view(ns)) return &labels;
    }
    return nullptr;
  }
  static size_t namespace_count(const schedhost_call_t* c) {
    const FakeHost* h = snapshot_host(c);
    return h == nullptr ? 0 : h->namespaces_.size();
  }
  static schedhost_str_t namespace_name_at(const schedhost_call_t* c, size_t i) {
    const FakeHost* h = snapshot_host(c);
    if (h == nullptr || i >= h->namespaces_.size()) return {nullptr, 0};
    return str(h->namespaces_[i].first);
  }
  static bool namespace_label_get(const schedhost_call_t* c, schedhost_str_t ns,
                                  schedhost_str_t key, schedhost_str_t* out) {
    return map_get(namespace_labels(c, ns), key, out);
  }
  static size_t namespace_label_count(const schedhost_call_t* c, schedhost_str_t ns) {
    const StringMap* m = namespace_labels(c, ns);
    return m == nullptr ? 0 : m->size();
  }
  static bool namespace_label_at(const schedhost_call_t* c, schedhost_str_t ns, size_t i,
                                 schedhost_str_t* k, schedhost_str_t* v) {
    return map_at(namespace_labels(c, ns), i, k, v);
  }

  static bool feature_enabled(const schedhost_host_t* h, schedhost_str_t gate) {
    if (h == nullptr) return false;
    const auto& set = host(h)->host->feature_gates_;
    if (const auto it = set.find(view(gate)); it != set.end()) return it->second;
    const schedhost::detail::PluginFeatureGate* g =
        schedhost::detail::find_plugin_feature_gate(view(gate));
    return g != nullptr && g->default_value;
  }

  static schedhost_code_t api_request(schedhost_call_t* c, schedhost_str_t verb,
                                      schedhost_str_t path, schedhost_str_t content_type,
                                      schedhost_str_t body, int32_t* out_status,
                                      schedhost_str_t* out_body) {
    if (c == nullptr) return SCHEDHOST_ERROR;
    CallRecord& record = *call(c);
    auto answer = [&record, out_body](std::string text) {
      record.held.push_back(std::move(text));
      if (out_body != nullptr) *out_body = str(record.held.back());
    };
    if (!record.may_block) {  // as the host words it
      answer("api_request: refused from " +
             std::string(*record.hook == '\0' ? "this hook" : record.hook) +
             ": only PreBind, Bind, PostBind and Unreserve may send requests to the API server "
             "(the hooks upstream lets block); Filter and Score must not wait on it");
      return SCHEDHOST_ERROR;
    }
    FakeHost& h = *record.host;
    if (!h.api_answer_) {  // no API server, as in run: the declared resources are written here
      std::optional<ApiReply> written =
          write_declared(h, view(verb), view(path), view(content_type), view(body));
      if (!written) {
        answer("api_request: no API server in this process (run replays without one)");
        return SCHEDHOST_SKIP;
      }
      h.api_requests_.push_back({record.plugin, std::string(view(verb)), std::string(view(path)),
                                 std::string(view(content_type)), std::string(view(body))});
      if (out_status != nullptr) *out_status = written->status;
      answer(std::move(written->body));
      return SCHEDHOST_SUCCESS;
    }
    h.api_requests_.push_back({record.plugin, std::string(view(verb)), std::string(view(path)),
                               std::string(view(content_type)), std::string(view(body))});
    ApiReply reply = h.api_answer_(h.api_requests_.back());
    if (out_status != nullptr) *out_status = reply.status;
    answer(std::move(reply.body));
    return SCHEDHOST_SUCCESS;
  }

  // A request on a resource a plugin of the library declared, applied to the objects as run
  // applies it; nullopt for any other path.
  static std::optional<ApiReply> write_declared(FakeHost& h, std::string_view verb,
                                                std::string_view path,
                                                std::string_view content_type,
                                                std::string_view body) {
    const std::optional<object_writes::Target> target = object_writes::parse_path(path);
    if (!target || h.library_ == nullptr) return std::nullopt;
    std::optional<library_rules::ResourceDecl> declared;
    for (std::uint32_t i = 0; i < h.library_->plugin_count && !declared; ++i) {
      library_rules::PluginEntry entry;
      const schedhost_plugin_descriptor_t desc = library_rules::copy_struct_prefix(
          h.library_->plugins[i], h.library_->plugins[i]->struct_size);
      if (!library_rules::read_declarations(desc, entry).empty()) continue;
      for (const library_rules::ResourceDecl& r : entry.resources) {
        if (r.group == target->group && r.version == target->version &&
            r.plural == target->plural) {
          declared = r;
        }
      }
    }
    if (!declared) return std::nullopt;
    const std::string resource = declared->name();
    object_writes::Store store;
    store.find = [&](std::string_view ns, std::string_view name) -> const nlohmann::json* {
      for (const auto& o : h.objects_) {
        if (o->resource == resource && o->namespace_name == ns && o->name == name) {
          return &o->object;
        }
      }
      return nullptr;
    };
    store.list = [&](std::string_view ns, const k8s::LabelSelectorText& selector,
                     std::vector<const nlohmann::json*>& out) {
      for (const auto& o : h.objects_) {
        if (o->resource != resource || (!ns.empty() && o->namespace_name != ns)) continue;
        if (selector.matches(labels_of(*o))) out.push_back(&o->object);
      }
    };
    store.put = [&](nlohmann::json object) { h.replace_object(resource, std::move(object)); };
    store.remove = [&](std::string_view ns, std::string_view name) {
      h.remove_object(resource, ns, name);
    };
    const auto next_version = [&h] { return std::to_string(++h.written_version_); };
    const auto next_uid = [&h] {
      const std::string n = std::to_string(++h.written_version_);
      return "00000000-0000-4000-8000-" +
             std::string(12 - std::min<std::size_t>(12, n.size()), '0') + n;
    };
    const object_writes::Resource r{declared->group, declared->version, declared->plural,
                                    declared->kind, declared->namespaced};
    object_writes::Reply reply =
        object_writes::apply(store, r, *target, verb, content_type, body, next_version, next_uid,
                             "2026-01-01T00:00:00Z");
    return ApiReply{reply.status, reply.body.dump()};
  }

  // A label lookup over an object's labels, for a selector.
  static std::function<std::optional<std::string_view>(std::string_view)> labels_of(
      const ObjectRecord& o) {
    return [&o](std::string_view key) -> std::optional<std::string_view> {
      const auto it = o.labels.find(std::string(key));
      if (it == o.labels.end()) return std::nullopt;
      return std::string_view(it->second);
    };
  }

  // -- the plugin handle (1.9) --
  static schedhost_code_t object_select(schedhost_call_t* c, schedhost_str_t resource,
                                        schedhost_str_t ns, schedhost_str_t selector,
                                        const schedhost_object_t** out, size_t capacity,
                                        size_t* out_count, schedhost_str_t* out_error) {
    if (out_count != nullptr) *out_count = 0;
    if (c == nullptr) return SCHEDHOST_ERROR;
    CallRecord& record = *call(c);
    std::optional<k8s::LabelSelectorText> parsed;
    try {
      parsed = k8s::LabelSelectorText::parse(view(selector));
    } catch (const std::invalid_argument& e) {
      record.held.emplace_back(e.what());
      if (out_error != nullptr) *out_error = str(record.held.back());
      return SCHEDHOST_ERROR;
    }
    size_t found = 0;
    for (const ObjectRecord* o : objects_in(c, resource, ns)) {
      if (!parsed->matches(labels_of(*o))) continue;
      if (out != nullptr && found < capacity) {
        out[found] = reinterpret_cast<const schedhost_object_t*>(o);
      }
      ++found;
    }
    if (out_count != nullptr) *out_count = found;
    return SCHEDHOST_SUCCESS;
  }

  // As the host checks them: a type of Normal or Warning, an UpperCamelCase reason, a message
  // cut at 1024 bytes (at a UTF-8 boundary).
  static bool record_event(schedhost_call_t* c, const schedhost_pod_t* p, schedhost_str_t type,
                           schedhost_str_t reason, schedhost_str_t message) {
    if (c == nullptr || p == nullptr) return false;
    CallRecord& record = *call(c);
    if (!record.has_snapshot && !record.may_block) return false;  // hints, signatures
    const std::string_view t = view(type);
    const std::string_view r = view(reason);
    if ((t != "Normal" && t != "Warning") || r.empty() || r.size() > 128 ||
        !std::all_of(r.begin(), r.end(), [](char ch) {
          return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
        })) {
      return false;
    }
    std::string text(view(message));
    if (text.size() > 1024) {
      std::size_t cut = 1024;
      while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
        --cut;
      text.resize(cut);
    }
    const FakePod& fp = pod(p)->pod;
    record.host->events_.push_back({record.plugin, fp.namespace_name() + "/" + fp.name(),
                                    std::string(t), std::string(r), std::move(text)});
    return true;
  }

  static int32_t metric_id(const schedhost_host_t* hh, schedhost_str_t name) {
    if (hh == nullptr) return -1;
    const HostHandle& handle = *host(hh);
    FakeHost& h = *handle.host;
    if (h.library_ == nullptr) return -1;
    const schedhost_plugin_descriptor_t* found = nullptr;
    for (std::uint32_t i = 0; i < h.library_->plugin_count; ++i) {
      const schedhost_plugin_descriptor_t* d = h.library_->plugins[i];
      if (d != nullptr && d->name != nullptr && handle.plugin == d->name) found = d;
    }
    if (found == nullptr) return -1;  // the library's own handle (init)
    library_rules::PluginEntry entry;
    const schedhost_plugin_descriptor_t desc =
        library_rules::copy_struct_prefix(found, found->struct_size);
    if (!library_rules::read_declarations(desc, entry).empty()) return -1;
    for (const library_rules::MetricDecl& m : entry.metrics) {
      if (m.name != view(name)) continue;
      std::lock_guard lock(h.metrics_mutex_);
      for (std::size_t i = 0; i < h.metrics_.size(); ++i) {
        if (h.metrics_[i].plugin == handle.plugin && h.metrics_[i].name == m.name) {
          return static_cast<int32_t>(i);
        }
      }
      h.metrics_.push_back({handle.plugin, m.name, {m.kind, 0, {}}});
      return static_cast<int32_t>(h.metrics_.size() - 1);
    }
    return -1;
  }

  static void metric_record(const schedhost_host_t* hh, int32_t id, double value) {
    if (hh == nullptr) return;
    FakeHost& h = *host(hh)->host;
    std::lock_guard lock(h.metrics_mutex_);
    if (id < 0 || static_cast<std::size_t>(id) >= h.metrics_.size()) return;
    FakeHost::MetricValues& v = h.metrics_[static_cast<std::size_t>(id)].values;
    if (!std::isfinite(value)) return;
    if (v.kind == SCHEDHOST_METRIC_COUNTER) {
      if (value >= 0) v.total += value;
    } else {
      v.observations.push_back(value);
    }
  }

  // -- objects of other kinds (1.8) --
  static const ObjectRecord* object(const schedhost_object_t* h) {
    return reinterpret_cast<const ObjectRecord*>(h);
  }
  // The objects of resource in namespace ns ("" for all), in order.
  static std::vector<const ObjectRecord*> objects_in(const schedhost_call_t* c,
                                                     schedhost_str_t resource, schedhost_str_t ns) {
    std::vector<const ObjectRecord*> out;
    const FakeHost* h = snapshot_host(c);
    if (h == nullptr) return out;
    for (const auto& o : h->objects_) {
      if (o->resource == view(resource) && (ns.len == 0 || o->namespace_name == view(ns)))
        out.push_back(o.get());
    }
    return out;
  }
  static size_t object_count(const schedhost_call_t* c, schedhost_str_t resource,
                             schedhost_str_t ns) {
    return objects_in(c, resource, ns).size();
  }
  static const schedhost_object_t* object_at(const schedhost_call_t* c, schedhost_str_t resource,
                                             schedhost_str_t ns, size_t i) {
    const auto list = objects_in(c, resource, ns);
    return i < list.size() ? reinterpret_cast<const schedhost_object_t*>(list[i]) : nullptr;
  }
  static const schedhost_object_t* object_get(const schedhost_call_t* c, schedhost_str_t resource,
                                              schedhost_str_t ns, schedhost_str_t name) {
    for (const ObjectRecord* o : objects_in(c, resource, ns)) {
      if (o->name == view(name) && o->namespace_name == view(ns))
        return reinterpret_cast<const schedhost_object_t*>(o);
    }
    return nullptr;
  }
  static schedhost_str_t object_string(const schedhost_object_t* h,
                                       schedhost_object_string_t field) {
    if (h == nullptr) return {};
    const ObjectRecord& o = *object(h);
    switch (field) {
      case SCHEDHOST_OBJECT_NAME:
        return str(o.name);
      case SCHEDHOST_OBJECT_NAMESPACE:
        return str(o.namespace_name);
      case SCHEDHOST_OBJECT_UID:
        return str(o.uid);
      case SCHEDHOST_OBJECT_RESOURCE_VERSION:
        return str(o.resource_version);
      case SCHEDHOST_OBJECT_RESOURCE:
        return str(o.resource);
      default:
        return {};
    }
  }
  static const StringMap* object_map(const schedhost_object_t* h, schedhost_map_t m) {
    if (h == nullptr) return nullptr;
    if (m == SCHEDHOST_MAP_LABELS) return &object(h)->labels;
    if (m == SCHEDHOST_MAP_ANNOTATIONS) return &object(h)->annotations;
    return nullptr;
  }
  static bool object_map_get(const schedhost_object_t* h, schedhost_map_t m, schedhost_str_t key,
                             schedhost_str_t* out) {
    return map_get(object_map(h, m), key, out);
  }
  static size_t object_map_count(const schedhost_object_t* h, schedhost_map_t m) {
    const StringMap* map = object_map(h, m);
    return map == nullptr ? 0 : map->size();
  }
  static bool object_map_at(const schedhost_object_t* h, schedhost_map_t m, size_t i,
                            schedhost_str_t* k, schedhost_str_t* v) {
    return map_at(object_map(h, m), i, k, v);
  }
  static bool object_json(const schedhost_object_t* h, schedhost_str_t pointer,
                          schedhost_str_t* out) {
    return h != nullptr && json_at(object(h)->object, object(h)->json, pointer, out);
  }
  static size_t pod_owner_count(const schedhost_pod_t* h) {
    return h == nullptr ? 0 : pod(h)->owners.size();
  }
  static bool pod_owner_at(const schedhost_pod_t* h, size_t i, schedhost_owner_reference_t* out) {
    if (h == nullptr || out == nullptr || i >= pod(h)->owners.size()) return false;
    const OwnerRecord& o = pod(h)->owners[i];
    *out = {str(o.api_version), str(o.kind), str(o.name), str(o.uid), o.controller};
    return true;
  }
  // Counted on each call from the pods' spec.volumes, as the host's usedPVCSet counts them.
  static size_t snapshot_pvc_users(const schedhost_call_t* c, schedhost_str_t ns,
                                   schedhost_str_t claim) {
    const FakeHost* h = snapshot_host(c);
    if (h == nullptr) return 0;
    size_t users = 0;
    const nlohmann::json::json_pointer volumes("/spec/volumes");
    for (const auto& n : h->nodes_) {
      for (const auto& p : n->pods) {
        if (p->pod.namespace_name() != view(ns) || !p->object.contains(volumes)) continue;
        for (const nlohmann::json& v : p->object.at(volumes)) {
          const auto pvc = v.is_object() ? v.find("persistentVolumeClaim") : v.end();
          if (pvc != v.end() && text_member(*pvc, "claimName") == view(claim)) ++users;
        }
      }
    }
    return users;
  }

  // -- cycle state --
  static bool state_write(schedhost_cycle_state_t* s, schedhost_str_t key, void* value,
                          const schedhost_state_ops_t* ops) {
    return s != nullptr && FakeCycleState::from(s)->write(view(key), value, ops);
  }
  static void* state_read(const schedhost_cycle_state_t* s, schedhost_str_t key,
                          const schedhost_state_ops_t* ops) {
    return s == nullptr ? nullptr : FakeCycleState::from(s)->read(view(key), ops);
  }

  // -- pods waiting at Permit: a decision is recorded and the pod leaves the waiting list --
  static size_t waiting_pod_count(const schedhost_call_t* c) {
    const FakeHost* h = snapshot_host(c);
    return h == nullptr ? 0 : h->waiting_.size();
  }
  static const schedhost_pod_t* waiting_pod_at(const schedhost_call_t* c, size_t i) {
    const FakeHost* h = snapshot_host(c);
    if (h == nullptr || i >= h->waiting_.size()) return nullptr;
    return reinterpret_cast<const schedhost_pod_t*>(h->waiting_[i].get());
  }
  static bool decide(schedhost_call_t* c, schedhost_str_t uid, bool allowed,
                     schedhost_str_t message) {
    if (snapshot_host(c) == nullptr) return false;
    FakeHost& h = *call(c)->host;
    for (auto it = h.waiting_.begin(); it != h.waiting_.end(); ++it) {
      if ((*it)->pod.uid() != view(uid)) continue;
      h.decisions_.push_back(
          {(*it)->pod.uid(), call(c)->plugin, allowed, std::string(view(message))});
      h.kept_.push_back(std::move(*it));  // views of it stay valid until the hook returns
      h.waiting_.erase(it);
      return true;
    }
    return false;
  }
  static bool waiting_pod_allow(schedhost_call_t* c, schedhost_str_t uid) {
    return decide(c, uid, true, {});
  }
  static bool waiting_pod_reject(schedhost_call_t* c, schedhost_str_t uid, schedhost_str_t msg) {
    return decide(c, uid, false, msg);
  }

  // Every function of the table but the preemption ones (random, parallel_for, dry_run_*,
  // add_victim, pdb_*). Functions appended to abi.h later stay NULL here until this file
  // implements them, so a plugin that feature-tests them sees "absent".
  static schedhost_host_api_t table() {
    schedhost_host_api_t t{};
    t.struct_size = sizeof(schedhost_host_api_t);
    t.abi_major = SCHEDHOST_ABI_MAJOR;
    t.abi_minor = SCHEDHOST_ABI_MINOR;
    t.log_enabled = &log_enabled;
    t.log = &log;
    t.add_reason = &add_reason;
    t.set_node_names = &set_node_names;
    t.set_nominated_node = &set_nominated_node;
    t.pod_string = &pod_string;
    t.pod_integer = &pod_integer;
    t.pod_map_get = &pod_map_get;
    t.pod_map_count = &pod_map_count;
    t.pod_map_at = &pod_map_at;
    t.pod_resource = &pod_resource;
    t.pod_resource_count = &pod_resource_count;
    t.pod_resource_at = &pod_resource_at;
    t.pod_toleration_count = &pod_toleration_count;
    t.pod_toleration_at = &pod_toleration_at;
    t.pod_host_port_count = &pod_host_port_count;
    t.pod_host_port_at = &pod_host_port_at;
    t.pod_container_count = &pod_container_count;
    t.pod_container_at = &pod_container_at;
    t.pod_json = &pod_json;
    t.node_string = &node_string;
    t.node_integer = &node_integer;
    t.node_map_get = &node_map_get;
    t.node_map_count = &node_map_count;
    t.node_map_at = &node_map_at;
    t.node_resource = &node_resource;
    t.node_resource_count = &node_resource_count;
    t.node_resource_at = &node_resource_at;
    t.node_taint_count = &node_taint_count;
    t.node_taint_at = &node_taint_at;
    t.node_used_port_count = &node_used_port_count;
    t.node_used_port_at = &node_used_port_at;
    t.node_image_count = &node_image_count;
    t.node_image_at = &node_image_at;
    t.node_pod_count = &node_pod_count;
    t.node_pod_at = &node_pod_at;
    t.node_json = &node_json;
    t.snapshot_node_count = &snapshot_node_count;
    t.snapshot_node_at = &snapshot_node_at;
    t.snapshot_node_get = &snapshot_node_get;
    t.snapshot_nodes_with_pods_count = &snapshot_nodes_with_pods_count;
    t.snapshot_nodes_with_pods_at = &snapshot_nodes_with_pods_at;
    t.snapshot_id = &snapshot_id;
    t.snapshot_revision = &snapshot_revision;
    t.snapshot_change_at = &snapshot_change_at;
    t.state_write = &state_write;
    t.state_read = &state_read;
    t.waiting_pod_count = &waiting_pod_count;
    t.waiting_pod_at = &waiting_pod_at;
    t.waiting_pod_allow = &waiting_pod_allow;
    t.waiting_pod_reject = &waiting_pod_reject;
    t.namespace_count = &namespace_count;
    t.namespace_name_at = &namespace_name_at;
    t.namespace_label_get = &namespace_label_get;
    t.namespace_label_count = &namespace_label_count;
    t.namespace_label_at = &namespace_label_at;
    t.register_event = &register_event;
    t.report_exception = &report_exception;
    t.add_sign_fragment = &add_sign_fragment;
    t.object_count = &object_count;
    t.object_at = &object_at;
    t.object_get = &object_get;
    t.object_string = &object_string;
    t.object_map_get = &object_map_get;
    t.object_map_count = &object_map_count;
    t.object_map_at = &object_map_at;
    t.object_json = &object_json;
    t.pod_owner_count = &pod_owner_count;
    t.pod_owner_at = &pod_owner_at;
    t.snapshot_pvc_users = &snapshot_pvc_users;
    t.feature_enabled = &feature_enabled;
    t.api_request = &api_request;
    t.object_select = &object_select;
    t.record_event = &record_event;
    t.metric_id = &metric_id;
    t.metric_record = &metric_record;
    return t;
  }
};

}  // namespace detail

inline FakeHost::FakeHost() : api_(detail::HostApi::table()) {
  new_snapshot();
}

}  // namespace schedhost::testing
