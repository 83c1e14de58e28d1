// Pod, NodeInfo and snapshot accessors of the host API. Handles are the cluster model's own
// objects (a schedhost_pod_t* is a cluster::Pod*, a schedhost_node_t* a cluster::NodeInfo*), so
// every accessor is a field read: no copy, no serialization, nothing allocated. Bad arguments
// from a plugin (NULL handles, unknown ids, indexes past the end) answer "absent", never crash.
#include "framework/host_api_objects.hpp"

#include <optional>
#include <schedhost/k8s/label_selector_text.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

#include "cluster/api_object.hpp"
#include "cluster/namespace.hpp"
#include "cluster/node_info.hpp"
#include "cluster/pod.hpp"
#include "cluster/snapshot.hpp"
#include "framework/abi_string.hpp"
#include "framework/call.hpp"

namespace schedhost::framework {
namespace {

using cluster::NodeInfo;
using cluster::Pod;

const Pod* pod_of(const schedhost_pod_t* h) {
  return reinterpret_cast<const Pod*>(h);
}
const NodeInfo* node_of(const schedhost_node_t* h) {
  return reinterpret_cast<const NodeInfo*>(h);
}
const schedhost_pod_t* pod_handle(const Pod* p) {
  return reinterpret_cast<const schedhost_pod_t*>(p);
}
const schedhost_node_t* node_handle(const NodeInfo* n) {
  return reinterpret_cast<const schedhost_node_t*>(n);
}

schedhost_str_t str(std::string_view s) {
  return {s.data(), s.size()};
}

// -- shared shapes: string maps, resource lists, JSON -------------------------------------------

bool map_get(const cluster::StringMap* map, schedhost_str_t key, schedhost_str_t* out) {
  if (map == nullptr || out == nullptr) return false;
  const std::string* value = map->find(view(key));
  if (value == nullptr) return false;
  *out = str(*value);
  return true;
}

bool map_at(const cluster::StringMap* map, size_t index, schedhost_str_t* out_key,
            schedhost_str_t* out_value) {
  if (map == nullptr || index >= map->size()) return false;
  const auto& [key, value] = map->at(index);
  if (out_key != nullptr) *out_key = str(key);
  if (out_value != nullptr) *out_value = str(value);
  return true;
}

bool resource_get(const cluster::ResourceList* list, schedhost_str_t name, int64_t* out) {
  const std::optional<int64_t> value = list == nullptr ? std::nullopt : list->get(view(name));
  if (out != nullptr) *out = value.value_or(0);
  return value.has_value();
}

bool resource_at(const cluster::ResourceList* list, size_t index, schedhost_str_t* out_name,
                 int64_t* out_value) {
  if (list == nullptr || index >= list->size()) return false;
  const auto& entry = list->at(index);
  if (out_name != nullptr) *out_name = str(entry.name);
  if (out_value != nullptr) *out_value = entry.value;
  return true;
}

template <class Object>
bool json_at(const Object* object, schedhost_str_t pointer, schedhost_str_t* out) {
  if (object == nullptr || out == nullptr) return false;
  const std::optional<std::string_view> json = object->json_at(view(pointer));
  if (!json) return false;
  *out = str(*json);
  return true;
}

schedhost_host_port_t host_port(const cluster::HostPort& p) {
  return {str(p.host_ip), str(p.protocol), p.port};
}

// -- pods ----------------------------------------------------------------------------------------

schedhost_str_t pod_string(const schedhost_pod_t* h, schedhost_pod_string_t field) {
  const Pod* p = pod_of(h);
  if (p == nullptr) return {};
  switch (field) {
    case SCHEDHOST_POD_NAME:
      return str(p->name());
    case SCHEDHOST_POD_NAMESPACE:
      return str(p->namespace_name());
    case SCHEDHOST_POD_UID:
      return str(p->uid());
    case SCHEDHOST_POD_NODE_NAME:
      return str(p->node_name());
    case SCHEDHOST_POD_SCHEDULER_NAME:
      return str(p->scheduler_name());
    case SCHEDHOST_POD_PRIORITY_CLASS_NAME:
      return str(p->priority_class_name());
    case SCHEDHOST_POD_NOMINATED_NODE_NAME:
      return str(p->nominated_node_name());
    case SCHEDHOST_POD_PREEMPTION_POLICY:
      return str(p->preemption_policy());
    default:
      return {};
  }
}

int64_t pod_integer(const schedhost_pod_t* h, schedhost_pod_integer_t field) {
  const Pod* p = pod_of(h);
  if (p == nullptr) return 0;
  switch (field) {
    case SCHEDHOST_POD_PRIORITY:
      return p->priority();
    case SCHEDHOST_POD_START_TIME_MS:
      return p->start_time_ms();
    case SCHEDHOST_POD_CREATION_TIME_MS:
      return p->creation_time_ms();
    case SCHEDHOST_POD_TERMINATING:
      return p->terminating() ? 1 : 0;
    case SCHEDHOST_POD_GENERATION:
      return static_cast<int64_t>(p->generation());
    default:
      return 0;
  }
}

const cluster::StringMap* pod_map(const schedhost_pod_t* h, schedhost_map_t map) {
  const Pod* p = pod_of(h);
  if (p == nullptr) return nullptr;
  switch (map) {
    case SCHEDHOST_MAP_LABELS:
      return &p->labels();
    case SCHEDHOST_MAP_ANNOTATIONS:
      return &p->annotations();
    case SCHEDHOST_MAP_NODE_SELECTOR:
      return &p->node_selector();
    default:
      return nullptr;
  }
}

const cluster::ResourceList* pod_resources(const schedhost_pod_t* h,
                                           schedhost_resource_list_t list) {
  const Pod* p = pod_of(h);
  if (p == nullptr) return nullptr;
  switch (list) {
    case SCHEDHOST_POD_REQUESTS:
      return &p->requests();
    case SCHEDHOST_POD_NONZERO_REQUESTS:
      return &p->nonzero_requests();
    default:
      return nullptr;
  }
}

bool pod_map_get(const schedhost_pod_t* h, schedhost_map_t map, schedhost_str_t key,
                 schedhost_str_t* out) {
  return map_get(pod_map(h, map), key, out);
}
size_t pod_map_count(const schedhost_pod_t* h, schedhost_map_t map) {
  const cluster::StringMap* m = pod_map(h, map);
  return m == nullptr ? 0 : m->size();
}
bool pod_map_at(const schedhost_pod_t* h, schedhost_map_t map, size_t i, schedhost_str_t* k,
                schedhost_str_t* v) {
  return map_at(pod_map(h, map), i, k, v);
}
bool pod_resource(const schedhost_pod_t* h, schedhost_resource_list_t list, schedhost_str_t name,
                  int64_t* out) {
  return resource_get(pod_resources(h, list), name, out);
}
size_t pod_resource_count(const schedhost_pod_t* h, schedhost_resource_list_t list) {
  const cluster::ResourceList* l = pod_resources(h, list);
  return l == nullptr ? 0 : l->size();
}
bool pod_resource_at(const schedhost_pod_t* h, schedhost_resource_list_t list, size_t i,
                     schedhost_str_t* name, int64_t* value) {
  return resource_at(pod_resources(h, list), i, name, value);
}

size_t pod_toleration_count(const schedhost_pod_t* h) {
  return pod_of(h) == nullptr ? 0 : pod_of(h)->tolerations().size();
}
bool pod_toleration_at(const schedhost_pod_t* h, size_t i, schedhost_toleration_t* out) {
  const Pod* p = pod_of(h);
  if (p == nullptr || out == nullptr || i >= p->tolerations().size()) return false;
  const cluster::Toleration& t = p->tolerations()[i];
  *out = {str(t.key),
          str(t.op),
          str(t.value),
          str(t.effect),
          t.toleration_seconds.value_or(0),
          t.toleration_seconds.has_value()};
  return true;
}

size_t pod_host_port_count(const schedhost_pod_t* h) {
  return pod_of(h) == nullptr ? 0 : pod_of(h)->host_ports().size();
}
bool pod_host_port_at(const schedhost_pod_t* h, size_t i, schedhost_host_port_t* out) {
  const Pod* p = pod_of(h);
  if (p == nullptr || out == nullptr || i >= p->host_ports().size()) return false;
  *out = host_port(p->host_ports()[i]);
  return true;
}

size_t pod_container_count(const schedhost_pod_t* h) {
  return pod_of(h) == nullptr ? 0 : pod_of(h)->containers().size();
}
bool pod_container_at(const schedhost_pod_t* h, size_t i, schedhost_container_t* out) {
  const Pod* p = pod_of(h);
  if (p == nullptr || out == nullptr || i >= p->containers().size()) return false;
  const cluster::Container& c = p->containers()[i];
  const schedhost_container_kind_t kind =
      c.kind == cluster::ContainerKind::kInit      ? SCHEDHOST_CONTAINER_INIT
      : c.kind == cluster::ContainerKind::kSidecar ? SCHEDHOST_CONTAINER_SIDECAR
                                                   : SCHEDHOST_CONTAINER_REGULAR;
  *out = {str(c.name), str(c.image), kind};
  return true;
}

bool pod_json(const schedhost_pod_t* h, schedhost_str_t pointer, schedhost_str_t* out) {
  return json_at(pod_of(h), pointer, out);
}

// -- nodes ---------------------------------------------------------------------------------------

schedhost_str_t node_string(const schedhost_node_t* h, schedhost_node_string_t field) {
  const NodeInfo* n = node_of(h);
  if (n == nullptr) return {};
  switch (field) {
    case SCHEDHOST_NODE_NAME:
      return str(n->name());
    case SCHEDHOST_NODE_UID:
      return str(n->node().uid());
    default:
      return {};
  }
}

int64_t node_integer(const schedhost_node_t* h, schedhost_node_integer_t field) {
  const NodeInfo* n = node_of(h);
  if (n == nullptr) return 0;
  switch (field) {
    case SCHEDHOST_NODE_UNSCHEDULABLE:
      return n->node().unschedulable() ? 1 : 0;
    case SCHEDHOST_NODE_GENERATION:
      return static_cast<int64_t>(n->generation());
    default:
      return 0;
  }
}

const cluster::StringMap* node_map(const schedhost_node_t* h, schedhost_map_t map) {
  const NodeInfo* n = node_of(h);
  if (n == nullptr) return nullptr;
  switch (map) {
    case SCHEDHOST_MAP_LABELS:
      return &n->node().labels();
    case SCHEDHOST_MAP_ANNOTATIONS:
      return &n->node().annotations();
    default:
      return nullptr;
  }
}

const cluster::ResourceList* node_resources(const schedhost_node_t* h,
                                            schedhost_resource_list_t list) {
  const NodeInfo* n = node_of(h);
  if (n == nullptr) return nullptr;
  switch (list) {
    case SCHEDHOST_NODE_ALLOCATABLE:
      return &n->allocatable();
    case SCHEDHOST_NODE_REQUESTED:
      return &n->requested();
    case SCHEDHOST_NODE_NONZERO_REQUESTED:
      return &n->nonzero_requested();
    default:
      return nullptr;
  }
}

bool node_map_get(const schedhost_node_t* h, schedhost_map_t map, schedhost_str_t key,
                  schedhost_str_t* out) {
  return map_get(node_map(h, map), key, out);
}
size_t node_map_count(const schedhost_node_t* h, schedhost_map_t map) {
  const cluster::StringMap* m = node_map(h, map);
  return m == nullptr ? 0 : m->size();
}
bool node_map_at(const schedhost_node_t* h, schedhost_map_t map, size_t i, schedhost_str_t* k,
                 schedhost_str_t* v) {
  return map_at(node_map(h, map), i, k, v);
}
bool node_resource(const schedhost_node_t* h, schedhost_resource_list_t list, schedhost_str_t name,
                   int64_t* out) {
  return resource_get(node_resources(h, list), name, out);
}
size_t node_resource_count(const schedhost_node_t* h, schedhost_resource_list_t list) {
  const cluster::ResourceList* l = node_resources(h, list);
  return l == nullptr ? 0 : l->size();
}
bool node_resource_at(const schedhost_node_t* h, schedhost_resource_list_t list, size_t i,
                      schedhost_str_t* name, int64_t* value) {
  return resource_at(node_resources(h, list), i, name, value);
}

size_t node_taint_count(const schedhost_node_t* h) {
  return node_of(h) == nullptr ? 0 : node_of(h)->node().taints().size();
}
bool node_taint_at(const schedhost_node_t* h, size_t i, schedhost_taint_t* out) {
  const NodeInfo* n = node_of(h);
  if (n == nullptr || out == nullptr || i >= n->node().taints().size()) return false;
  const cluster::Taint& t = n->node().taints()[i];
  *out = {str(t.key), str(t.value), str(t.effect)};
  return true;
}

size_t node_used_port_count(const schedhost_node_t* h) {
  return node_of(h) == nullptr ? 0 : node_of(h)->used_ports().size();
}
bool node_used_port_at(const schedhost_node_t* h, size_t i, schedhost_host_port_t* out) {
  const NodeInfo* n = node_of(h);
  if (n == nullptr || out == nullptr || i >= n->used_ports().size()) return false;
  *out = host_port(n->used_ports()[i]);
  return true;
}

size_t node_image_count(const schedhost_node_t* h) {
  return node_of(h) == nullptr ? 0 : node_of(h)->image_states().size();
}
bool node_image_at(const schedhost_node_t* h, size_t i, schedhost_image_t* out) {
  const NodeInfo* n = node_of(h);
  if (n == nullptr || out == nullptr || i >= n->image_states().size()) return false;
  const cluster::ImageState& img = n->image_states()[i];
  *out = {str(img.name), img.size_bytes, img.num_nodes};
  return true;
}

const std::vector<NodeInfo::PodPtr>* node_pods(const schedhost_node_t* h,
                                               schedhost_node_pods_t which) {
  const NodeInfo* n = node_of(h);
  if (n == nullptr) return nullptr;
  switch (which) {
    case SCHEDHOST_NODE_PODS_ALL:
      return &n->pods();
    case SCHEDHOST_NODE_PODS_WITH_AFFINITY:
      return &n->pods_with_affinity();
    case SCHEDHOST_NODE_PODS_WITH_REQUIRED_ANTI_AFFINITY:
      return &n->pods_with_required_anti_affinity();
    default:
      return nullptr;
  }
}

size_t node_pod_count(const schedhost_node_t* h, schedhost_node_pods_t which) {
  const auto* pods = node_pods(h, which);
  return pods == nullptr ? 0 : pods->size();
}
const schedhost_pod_t* node_pod_at(const schedhost_node_t* h, schedhost_node_pods_t which,
                                   size_t i) {
  const auto* pods = node_pods(h, which);
  return pods == nullptr || i >= pods->size() ? nullptr : pod_handle((*pods)[i].get());
}

bool node_json(const schedhost_node_t* h, schedhost_str_t pointer, schedhost_str_t* out) {
  const NodeInfo* n = node_of(h);
  return n != nullptr && json_at(&n->node(), pointer, out);
}

// -- the snapshot of the current call ------------------------------------------------------------

size_t snapshot_node_count(const schedhost_call_t* call) {
  const cluster::Snapshot* s = snapshot_of(call);
  return s == nullptr ? 0 : s->node_infos().size();
}
const schedhost_node_t* snapshot_node_at(const schedhost_call_t* call, size_t i) {
  const cluster::Snapshot* s = snapshot_of(call);
  return s == nullptr || i >= s->node_infos().size() ? nullptr : node_handle(&s->node_infos()[i]);
}
const schedhost_node_t* snapshot_node_get(const schedhost_call_t* call, schedhost_str_t name) {
  const cluster::Snapshot* s = snapshot_of(call);
  return s == nullptr ? nullptr : node_handle(s->find(view(name)));
}

const std::vector<size_t>* nodes_with_pods(const cluster::Snapshot* s,
                                           schedhost_node_pods_t which) {
  if (s == nullptr) return nullptr;
  switch (which) {
    case SCHEDHOST_NODE_PODS_ALL:
      return &s->nodes_with_pods(cluster::Snapshot::NodePods::kAny);
    case SCHEDHOST_NODE_PODS_WITH_AFFINITY:
      return &s->nodes_with_pods(cluster::Snapshot::NodePods::kWithAffinity);
    case SCHEDHOST_NODE_PODS_WITH_REQUIRED_ANTI_AFFINITY:
      return &s->nodes_with_pods(cluster::Snapshot::NodePods::kWithRequiredAntiAffinity);
    default:
      return nullptr;
  }
}
size_t snapshot_nodes_with_pods_count(const schedhost_call_t* call, schedhost_node_pods_t which) {
  const std::vector<size_t>* list = nodes_with_pods(snapshot_of(call), which);
  return list == nullptr ? 0 : list->size();
}
const schedhost_node_t* snapshot_nodes_with_pods_at(const schedhost_call_t* call,
                                                    schedhost_node_pods_t which, size_t i) {
  const cluster::Snapshot* s = snapshot_of(call);
  const std::vector<size_t>* list = nodes_with_pods(s, which);
  return list == nullptr || i >= list->size() ? nullptr : node_handle(&s->at((*list)[i]));
}

uint64_t snapshot_id(const schedhost_call_t* call) {
  const cluster::Snapshot* s = snapshot_of(call);
  return s == nullptr ? 0 : s->journal().id();
}
uint64_t snapshot_revision(const schedhost_call_t* call) {
  const cluster::Snapshot* s = snapshot_of(call);
  return s == nullptr ? 0 : s->journal().revision();
}
int32_t snapshot_change_at(const schedhost_call_t* call, uint64_t revision,
                           const schedhost_pod_t** out_pod, size_t* out_node_index) {
  const cluster::Snapshot* s = snapshot_of(call);
  if (s == nullptr || out_pod == nullptr || out_node_index == nullptr ||
      revision >= s->journal().revision()) {
    return 0;
  }
  const cluster::SnapshotJournal::Change& change = s->journal().at(revision);
  *out_pod = pod_handle(change.pod.get());
  *out_node_index = change.node_index;
  return change.delta;
}

// -- the namespaces of the current call's snapshot -----------------------------------------------

size_t namespace_count(const schedhost_call_t* call) {
  const cluster::Snapshot* s = snapshot_of(call);
  return s == nullptr ? 0 : s->namespaces().size();
}
schedhost_str_t namespace_name_at(const schedhost_call_t* call, size_t i) {
  const cluster::Snapshot* s = snapshot_of(call);
  if (s == nullptr || i >= s->namespaces().size()) return {nullptr, 0};
  return str(s->namespaces()[i]->name());
}
const cluster::StringMap* namespace_labels(const schedhost_call_t* call, schedhost_str_t ns) {
  const cluster::Snapshot* s = snapshot_of(call);
  const cluster::Namespace* n = s == nullptr ? nullptr : s->find_namespace(view(ns));
  return n == nullptr ? nullptr : &n->labels();
}
bool namespace_label_get(const schedhost_call_t* call, schedhost_str_t ns, schedhost_str_t key,
                         schedhost_str_t* out) {
  return map_get(namespace_labels(call, ns), key, out);
}
size_t namespace_label_count(const schedhost_call_t* call, schedhost_str_t ns) {
  const cluster::StringMap* labels = namespace_labels(call, ns);
  return labels == nullptr ? 0 : labels->size();
}
bool namespace_label_at(const schedhost_call_t* call, schedhost_str_t ns, size_t i,
                        schedhost_str_t* out_key, schedhost_str_t* out_value) {
  return map_at(namespace_labels(call, ns), i, out_key, out_value);
}

// -- the other kinds of object (1.8): handles are cluster::ApiObject* ----------------------------

const cluster::ApiObject* object_of(const schedhost_object_t* h) {
  return reinterpret_cast<const cluster::ApiObject*>(h);
}
const schedhost_object_t* object_handle(const cluster::ApiObject* o) {
  return reinterpret_cast<const schedhost_object_t*>(o);
}

size_t object_count(const schedhost_call_t* call, schedhost_str_t resource, schedhost_str_t ns) {
  const cluster::Snapshot* s = snapshot_of(call);
  return s == nullptr ? 0 : s->objects(view(resource), view(ns)).size();
}
const schedhost_object_t* object_at(const schedhost_call_t* call, schedhost_str_t resource,
                                    schedhost_str_t ns, size_t i) {
  const cluster::Snapshot* s = snapshot_of(call);
  if (s == nullptr) return nullptr;
  const auto list = s->objects(view(resource), view(ns));
  return i < list.size() ? object_handle(list[i].get()) : nullptr;
}
const schedhost_object_t* object_get(const schedhost_call_t* call, schedhost_str_t resource,
                                     schedhost_str_t ns, schedhost_str_t name) {
  const cluster::Snapshot* s = snapshot_of(call);
  return s == nullptr ? nullptr
                      : object_handle(s->find_object(view(resource), view(ns), view(name)));
}
// A lister's List(selector) (1.9): the selector is parsed on each call, which costs far less
// than the walk over the objects; a plugin that selects in Filter should select in PreFilter.
schedhost_code_t object_select(schedhost_call_t* call, schedhost_str_t resource, schedhost_str_t ns,
                               schedhost_str_t selector, const schedhost_object_t** out,
                               size_t capacity, size_t* out_count, schedhost_str_t* out_error) {
  if (out_count != nullptr) *out_count = 0;
  if (call == nullptr) return SCHEDHOST_ERROR;
  std::optional<k8s::LabelSelectorText> parsed;
  try {
    parsed = k8s::LabelSelectorText::parse(view(selector));
  } catch (const std::invalid_argument& e) {
    if (out_error != nullptr) *out_error = Call::from(call).hold(e.what());
    return SCHEDHOST_ERROR;
  }
  const cluster::Snapshot* s = snapshot_of(call);
  size_t found = 0;
  if (s != nullptr) {
    for (const auto& o : s->objects(view(resource), view(ns))) {
      const cluster::StringMap& labels = o->labels();
      const auto label = [&labels](std::string_view key) -> std::optional<std::string_view> {
        const std::string* value = labels.find(key);
        if (value == nullptr) return std::nullopt;
        return std::string_view(*value);
      };
      if (!parsed->matches(label)) continue;
      if (out != nullptr && found < capacity) out[found] = object_handle(o.get());
      ++found;
    }
  }
  if (out_count != nullptr) *out_count = found;
  return SCHEDHOST_SUCCESS;
}

schedhost_str_t object_string(const schedhost_object_t* h, schedhost_object_string_t field) {
  const cluster::ApiObject* o = object_of(h);
  if (o == nullptr) return {nullptr, 0};
  switch (field) {
    case SCHEDHOST_OBJECT_NAME:
      return str(o->name());
    case SCHEDHOST_OBJECT_NAMESPACE:
      return str(o->namespace_name());
    case SCHEDHOST_OBJECT_UID:
      return str(o->uid());
    case SCHEDHOST_OBJECT_RESOURCE_VERSION:
      return str(o->resource_version());
    case SCHEDHOST_OBJECT_RESOURCE:
      return str(o->resource());
    default:
      return {nullptr, 0};
  }
}
const cluster::StringMap* object_map(const schedhost_object_t* h, schedhost_map_t map) {
  const cluster::ApiObject* o = object_of(h);
  if (o == nullptr) return nullptr;
  if (map == SCHEDHOST_MAP_LABELS) return &o->labels();
  if (map == SCHEDHOST_MAP_ANNOTATIONS) return &o->annotations();
  return nullptr;
}
bool object_map_get(const schedhost_object_t* h, schedhost_map_t map, schedhost_str_t key,
                    schedhost_str_t* out) {
  return map_get(object_map(h, map), key, out);
}
size_t object_map_count(const schedhost_object_t* h, schedhost_map_t map) {
  const cluster::StringMap* m = object_map(h, map);
  return m == nullptr ? 0 : m->size();
}
bool object_map_at(const schedhost_object_t* h, schedhost_map_t map, size_t i,
                   schedhost_str_t* out_key, schedhost_str_t* out_value) {
  return map_at(object_map(h, map), i, out_key, out_value);
}
bool object_json(const schedhost_object_t* h, schedhost_str_t pointer, schedhost_str_t* out) {
  const cluster::ApiObject* o = object_of(h);
  if (o == nullptr || out == nullptr) return false;
  const std::optional<std::string_view> json = o->json_at(view(pointer));
  if (!json) return false;
  *out = str(*json);
  return true;
}
size_t pod_owner_count(const schedhost_pod_t* h) {
  return h == nullptr ? 0 : pod_of(h)->owner_references().size();
}
bool pod_owner_at(const schedhost_pod_t* h, size_t i, schedhost_owner_reference_t* out) {
  if (h == nullptr || out == nullptr || i >= pod_of(h)->owner_references().size()) return false;
  const cluster::OwnerReference& o = pod_of(h)->owner_references()[i];
  *out = {str(o.api_version), str(o.kind), str(o.name), str(o.uid), o.controller};
  return true;
}
size_t snapshot_pvc_users(const schedhost_call_t* call, schedhost_str_t ns, schedhost_str_t claim) {
  const cluster::Snapshot* s = snapshot_of(call);
  return s == nullptr ? 0 : s->pvc_users(view(ns), view(claim));
}

}  // namespace

void fill_object_accessors(schedhost_host_api_t& t) {
  t.object_count = &object_count;
  t.object_at = &object_at;
  t.object_get = &object_get;
  t.object_select = &object_select;
  t.object_string = &object_string;
  t.object_map_get = &object_map_get;
  t.object_map_count = &object_map_count;
  t.object_map_at = &object_map_at;
  t.object_json = &object_json;
  t.pod_owner_count = &pod_owner_count;
  t.pod_owner_at = &pod_owner_at;
  t.snapshot_pvc_users = &snapshot_pvc_users;
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
  t.namespace_count = &namespace_count;
  t.namespace_name_at = &namespace_name_at;
  t.namespace_label_get = &namespace_label_get;
  t.namespace_label_count = &namespace_label_count;
  t.namespace_label_at = &namespace_label_at;
}

}  // namespace schedhost::framework
