#include "cluster/object_kinds.hpp"

#include <algorithm>
#include <deque>
#include <initializer_list>
#include <mutex>
#include <optional>
#include <string>

#include "cluster/json_field.hpp"

namespace schedhost::cluster {
namespace {

// The field at a dotted path ("spec.capacity.storage"), nullopt when any step is absent.
std::optional<JsonField> at(const JsonField& object, std::string_view path) {
  std::optional<JsonField> field = object;
  while (field && !path.empty()) {
    const std::size_t dot = path.find('.');
    field = field->member(path.substr(0, dot));
    path = dot == std::string_view::npos ? std::string_view{} : path.substr(dot + 1);
  }
  return field;
}

void text(const JsonField& o, std::string_view path) {
  if (auto f = at(o, path)) f->as_string();
}
void flag(const JsonField& o, std::string_view path) {
  if (auto f = at(o, path)) f->as_bool();
}
void quantity(const JsonField& o, std::string_view path) {
  if (auto f = at(o, path)) f->as_quantity();
}
void string_map(const JsonField& o, std::string_view path) {
  if (auto f = at(o, path)) f->as_string_map();
}
void mapping(const JsonField& o, std::string_view path) {
  if (auto f = at(o, path)) f->members();
}
void one_of(const JsonField& field, std::initializer_list<std::string_view> values) {
  const std::string value = field.as_string();
  if (std::find(values.begin(), values.end(), value) != values.end()) return;
  std::string list;
  for (std::string_view v : values)
    list += (list.empty() ? "" : ", ") + std::string(v);
  field.fail("\"" + value + "\" is not one of " + list + ": use one of them");
}
void one_of(const JsonField& o, std::string_view path, std::initializer_list<std::string_view> v) {
  if (auto f = at(o, path)) one_of(*f, v);
}
// Items of a sequence, each checked by item(field).
template <class Item>
void each(const JsonField& o, std::string_view path, Item item) {
  if (auto f = at(o, path)) {
    for (const JsonField& i : f->items())
      item(i);
  }
}

void access_modes(const JsonField& o, std::string_view path) {
  each(o, path, [](const JsonField& mode) {
    one_of(mode, {"ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"});
  });
}
void volume_mode(const JsonField& o, std::string_view path) {
  one_of(o, path, {"Filesystem", "Block"});
}
// A metav1.LabelSelector: matchLabels and matchExpressions.
void label_selector(const JsonField& o, std::string_view path) {
  auto selector = at(o, path);
  if (!selector) return;
  string_map(*selector, "matchLabels");
  each(*selector, "matchExpressions", [](const JsonField& e) {
    text(e, "key");
    one_of(e, "operator", {"In", "NotIn", "Exists", "DoesNotExist"});
    each(e, "values", [](const JsonField& v) { v.as_string(); });
  });
}
// A v1.NodeSelector's terms (a PV's node affinity, a class's allowedTopologies are alike).
void node_selector_terms(const JsonField& o, std::string_view path) {
  each(o, path, [](const JsonField& term) {
    for (const char* part : {"matchExpressions", "matchFields"}) {
      each(term, part, [](const JsonField& e) {
        text(e, "key");
        one_of(e, "operator", {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"});
        each(e, "values", [](const JsonField& v) { v.as_string(); });
      });
    }
  });
}
void required_text(const JsonField& o, std::string_view path, std::string_view fix) {
  auto f = at(o, path);
  if (!f || f->as_string().empty()) {
    // Reported on the object itself: the field has no position.
    o.fail("has no " + std::string(path) + ": " + std::string(fix));
  }
}

void persistent_volume(const JsonField& o) {
  quantity(o, "spec.capacity.storage");
  access_modes(o, "spec.accessModes");
  text(o, "spec.storageClassName");
  volume_mode(o, "spec.volumeMode");
  node_selector_terms(o, "spec.nodeAffinity.required.nodeSelectorTerms");
  mapping(o, "spec.claimRef");
  for (const char* f : {"namespace", "name", "uid"})
    text(o, std::string("spec.claimRef.") + f);
  text(o, "spec.csi.driver");
  text(o, "spec.csi.volumeHandle");
  text(o, "status.phase");
}

void persistent_volume_claim(const JsonField& o) {
  text(o, "spec.volumeName");
  access_modes(o, "spec.accessModes");
  quantity(o, "spec.resources.requests.storage");
  text(o, "spec.storageClassName");
  label_selector(o, "spec.selector");
  volume_mode(o, "spec.volumeMode");
  text(o, "status.phase");
}

void storage_class(const JsonField& o) {
  required_text(
      o, "provisioner",
      "add provisioner (kubernetes.io/no-provisioner for statically provisioned volumes)");
  one_of(o, "volumeBindingMode", {"Immediate", "WaitForFirstConsumer"});
  each(o, "allowedTopologies", [](const JsonField& term) {
    each(term, "matchLabelExpressions", [](const JsonField& e) {
      text(e, "key");
      each(e, "values", [](const JsonField& v) { v.as_string(); });
    });
  });
}

void csi_node(const JsonField& o) {
  each(o, "spec.drivers", [](const JsonField& driver) {
    required_text(driver, "name", "name the CSI driver");
    if (auto count = at(driver, "allocatable.count")) count->as_int();
  });
}

void csi_driver(const JsonField& o) {
  flag(o, "spec.storageCapacity");
  flag(o, "spec.attachRequired");
}

void csi_storage_capacity(const JsonField& o) {
  required_text(o, "storageClassName", "name the StorageClass this capacity is for");
  quantity(o, "capacity");
  quantity(o, "maximumVolumeSize");
  label_selector(o, "nodeTopology");
}

// Services and ReplicationControllers select pods by a plain label map.
void map_selector(const JsonField& o) {
  string_map(o, "spec.selector");
}

// ReplicaSets and StatefulSets by a metav1.LabelSelector.
void workload(const JsonField& o) {
  label_selector(o, "spec.selector");
}

// Sets object[key] (an object member path) to value when absent or null.
void default_member(nlohmann::json& object, std::initializer_list<const char*> path,
                    const char* value) {
  nlohmann::json* at = &object;
  for (const char* key : path) {
    if (!at->is_object()) return;  // check() accepted an absent parent only
    at = &(*at)[key];
  }
  if (at->is_null()) *at = value;
}

// The API server's defaults for the fields the volume plugins read.
void default_persistent_volume(nlohmann::json& o) {
  if (o.contains("spec")) default_member(o, {"spec", "volumeMode"}, "Filesystem");
}
void default_persistent_volume_claim(nlohmann::json& o) {
  if (o.contains("spec")) default_member(o, {"spec", "volumeMode"}, "Filesystem");
}
void default_storage_class(nlohmann::json& o) {
  default_member(o, {"volumeBindingMode"}, "Immediate");
  default_member(o, {"reclaimPolicy"}, "Delete");
}

// clang-format off
constexpr ObjectKind kKinds[] = {
    {"PersistentVolume", "PersistentVolume", "", "persistentvolumes", {"v1", ""}, false, true,
     &persistent_volume, &default_persistent_volume},
    {"PersistentVolumeClaim", "PersistentVolumeClaim", "", "persistentvolumeclaims", {"v1", ""},
     true, true, &persistent_volume_claim, &default_persistent_volume_claim},
    {"StorageClass", "storage.k8s.io/StorageClass", "storage.k8s.io", "storageclasses",
     {"storage.k8s.io/v1", "storage.k8s.io/v1beta1"}, false, true, &storage_class,
     &default_storage_class},
    {"CSINode", "storage.k8s.io/CSINode", "storage.k8s.io", "csinodes",
     {"storage.k8s.io/v1", "storage.k8s.io/v1beta1"}, false, true, &csi_node},
    {"CSIDriver", "storage.k8s.io/CSIDriver", "storage.k8s.io", "csidrivers",
     {"storage.k8s.io/v1", "storage.k8s.io/v1beta1"}, false, true, &csi_driver},
    {"CSIStorageCapacity", "storage.k8s.io/CSIStorageCapacity", "storage.k8s.io",
     "csistoragecapacities", {"storage.k8s.io/v1", "storage.k8s.io/v1beta1"}, true, true,
     &csi_storage_capacity},
    {"Service", "Service", "", "services", {"v1", ""}, true, false, &map_selector},
    {"ReplicationController", "ReplicationController", "", "replicationcontrollers", {"v1", ""},
     true, false, &map_selector},
    {"ReplicaSet", "apps/ReplicaSet", "apps", "replicasets", {"apps/v1", ""}, true, false,
     &workload},
    {"StatefulSet", "apps/StatefulSet", "apps", "statefulsets", {"apps/v1", ""}, true, false,
     &workload},
};
// clang-format on

}  // namespace

std::string_view ObjectKind::preferred_version() const {
  const std::string_view v = versions[0];
  const std::size_t slash = v.find('/');
  return slash == std::string_view::npos ? v : v.substr(slash + 1);
}

std::span<const ObjectKind> object_kinds() {
  return kKinds;
}

namespace {

// A declared kind and the strings its ObjectKind's views point into.
struct DeclaredKind {
  std::string kind, resource, group, plural, api_version;
  std::string plugins;  // "\"A\", \"B\""
  ObjectKind object_kind{};
};

// The declared kinds: a deque, so that an ObjectKind never moves; written at start-up only, but
// locked all the same (the lookups are not on any per-node path).
struct DeclaredKinds {
  std::mutex mutex;
  std::deque<DeclaredKind> kinds;
};
DeclaredKinds& declared_kinds() {
  static DeclaredKinds d;
  return d;
}

// Nothing beyond metadata.name, which the readers check: a custom resource is kept as read.
void any_object(const JsonField&) {}

std::string_view group_of(std::string_view api_version) {
  const std::size_t slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
}

}  // namespace

std::vector<const ObjectKind*> all_object_kinds() {
  std::vector<const ObjectKind*> out;
  for (const ObjectKind& k : kKinds)
    out.push_back(&k);
  DeclaredKinds& d = declared_kinds();
  std::lock_guard lock(d.mutex);
  for (const DeclaredKind& k : d.kinds)
    out.push_back(&k.object_kind);
  return out;
}

const ObjectKind* find_object_kind(std::string_view kind, std::string_view api_version) {
  for (const ObjectKind& k : kKinds) {
    if (k.kind == kind) return &k;
  }
  DeclaredKinds& d = declared_kinds();
  std::lock_guard lock(d.mutex);
  const ObjectKind* first = nullptr;
  for (const DeclaredKind& k : d.kinds) {
    if (k.kind != kind) continue;
    if (api_version.empty() || k.group == group_of(api_version)) return &k.object_kind;
    if (first == nullptr) first = &k.object_kind;
  }
  return first;
}

const ObjectKind* find_object_resource(std::string_view resource) {
  for (const ObjectKind& k : kKinds) {
    if (k.resource == resource) return &k;
  }
  DeclaredKinds& d = declared_kinds();
  std::lock_guard lock(d.mutex);
  for (const DeclaredKind& k : d.kinds) {
    if (k.resource == resource) return &k.object_kind;
  }
  return nullptr;
}

const ObjectKind& declare_object_kind(const library_rules::ResourceDecl& resource,
                                      std::string_view plugin) {
  DeclaredKinds& d = declared_kinds();
  std::lock_guard lock(d.mutex);
  const std::string name = resource.name();
  const std::string quoted = "\"" + std::string(plugin) + "\"";
  for (DeclaredKind& k : d.kinds) {
    if (k.resource != name) continue;
    if (k.kind != resource.kind || k.object_kind.namespaced != resource.namespaced) {
      const auto scope = [](bool namespaced) {
        return namespaced ? "namespaced" : "cluster-scoped";
      };
      std::string message = "plugin " + quoted;
      message += " declares the resource \"" + name + "\" as kind \"" + resource.kind + "\", ";
      message += scope(resource.namespaced);
      message += ", but plugin " + k.plugins + " declared it as kind \"" + k.kind + "\", ";
      message += scope(k.object_kind.namespaced);
      message += ": the plugins must agree on what the resource is";
      throw std::invalid_argument(message);
    }
    if (k.plugins.find(quoted) == std::string::npos) k.plugins += ", " + quoted;
    return k.object_kind;
  }
  DeclaredKind& k = d.kinds.emplace_back();
  k.kind = resource.kind;
  k.resource = name;
  k.group = resource.group;
  k.plural = resource.plural;
  k.api_version = resource.api_version();
  k.plugins = quoted;
  k.object_kind =
      ObjectKind{k.kind, k.resource,  k.group, k.plural, {k.api_version, ""}, resource.namespaced,
                 true,   &any_object, nullptr, true};
  return k.object_kind;
}

std::string declared_by(const ObjectKind& kind) {
  DeclaredKinds& d = declared_kinds();
  std::lock_guard lock(d.mutex);
  for (const DeclaredKind& k : d.kinds) {
    if (&k.object_kind == &kind) return k.plugins;
  }
  return {};
}

}  // namespace schedhost::cluster
