// schedhost/detail/library_rules.hpp - the rules a plugin library must pass to be loaded.
//
// One copy, used by the host's loader and by the SDK's FakeHost, so a library the host would
// refuse fails its author's unit test first, with the host's own message. Header-only C++17 on
// abi.h alone. Each check returns "" when the library passes, else one line without the path.
// The loader runs them in this order: check_library_header, read_plugin_descriptors, the
// library's init(), check_plugin_entries.
#pragma once

#include <schedhost/abi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace schedhost::library_rules {

inline constexpr std::string_view kPluginNamePattern = "^[a-zA-Z][a-zA-Z0-9]*$";

// True when name matches ^[a-zA-Z][a-zA-Z0-9]*$ (ASCII only, as upstream's registry expects).
constexpr bool is_valid_plugin_name(std::string_view name) {
  const auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  if (name.empty() || !letter(name.front())) return false;
  for (char c : name) {
    if (!letter(c) && !(c >= '0' && c <= '9')) return false;
  }
  return true;
}

// Sizes in ABI 1.0 on LP64. Frozen: a later minor only makes the structs longer, so anything
// smaller is a corrupt library or one not built with the SDK.
inline constexpr std::uint32_t kLibrarySize_1_0 = 80;
inline constexpr std::uint32_t kPluginDescriptorSize_1_0 = 32;
inline constexpr std::uint32_t kPluginVtableSize_1_0 = 160;
inline constexpr std::uint32_t kStateOpsSize_1_0 = 24;

// Copies the first `declared_size` bytes of a plugin-owned struct into a zeroed struct of the
// current size: fields an older (shorter) struct lacks read as NULL/0, and fields a newer
// (longer) struct has beyond ours are never read.
template <class S>
S copy_struct_prefix(const S* source, std::uint32_t declared_size) {
  S copy{};
  std::memcpy(static_cast<void*>(&copy), source, std::min<std::size_t>(declared_size, sizeof(S)));
  return copy;
}

inline std::string abi_version(std::uint32_t major, std::uint32_t minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

// The library struct the entry function returned: magic, ABI version against the host's
// (host_minor is the minor the host offers plugins), struct size.
inline std::string check_library_header(const schedhost_library_t* raw, std::uint32_t host_minor) {
  if (raw == nullptr) return SCHEDHOST_ENTRY_SYMBOL "() returned NULL: the library refused to load";
  if (raw->magic != SCHEDHOST_LIBRARY_MAGIC) {
    char got[16];
    char want[16];
    std::snprintf(got, sizeof got, "0x%08X", static_cast<unsigned>(raw->magic));
    std::snprintf(want, sizeof want, "0x%08X", static_cast<unsigned>(SCHEDHOST_LIBRARY_MAGIC));
    return std::string("bad library magic ") + got + " (expected " + want +
           "): the entry function does not return a schedhost_library_t";
  }
  const std::string host_abi = abi_version(SCHEDHOST_ABI_MAJOR, host_minor);
  if (raw->abi_major != SCHEDHOST_ABI_MAJOR) {
    return "built for plugin ABI " + abi_version(raw->abi_major, raw->abi_minor) +
           ", this host has ABI " + host_abi + ": rebuild the plugin with the " +
           std::to_string(SCHEDHOST_ABI_MAJOR) + ".x SDK";
  }
  if (raw->min_host_abi_minor > host_minor) {
    return "needs plugin ABI " + abi_version(raw->abi_major, raw->min_host_abi_minor) +
           " or newer, this host has ABI " + host_abi +
           ": upgrade schedhost, or rebuild the plugin for ABI " + host_abi;
  }
  if (raw->struct_size < kLibrarySize_1_0) {
    return "schedhost_library_t is " + std::to_string(raw->struct_size) +
           " bytes, smaller than the " + std::to_string(kLibrarySize_1_0) +
           " bytes of ABI 1.0: the library is corrupt or not built with the schedhost SDK";
  }
  if (raw->name == nullptr || *raw->name == '\0') return "the library has no name";
  return {};
}

// A resource a plugin declares it reads (ABI 1.9), copied out of the library's storage.
struct ResourceDecl {
  std::string group;  // "" for the core group
  std::string version;
  std::string plural;
  std::string kind;
  bool namespaced = true;
  // The name lookups and cluster events use, upstream's GVK string: "<plural>.<version>.<group>"
  // ("configmaps.v1." for the core group, as upstream spells it).
  std::string name() const { return plural + "." + version + "." + group; }
  // "<group>/<version>", or "<version>" for the core group: a cluster file object's apiVersion.
  std::string api_version() const { return group.empty() ? version : group + "/" + version; }
};

// A metric a plugin declares it reports (ABI 1.9), copied likewise.
struct MetricDecl {
  std::string name;  // without the schedhost_plugin_ prefix
  std::string help;
  schedhost_metric_kind_t kind = SCHEDHOST_METRIC_COUNTER;
  std::vector<double> buckets;  // histograms; empty for Prometheus' defaults
};

// One plugin as the library describes it, with a copy of its vtable at the current size.
struct PluginEntry {
  std::string name;
  std::string description;
  schedhost_plugin_vtable_t vtable{};
  std::vector<ResourceDecl> resources;  // ABI 1.9
  std::vector<MetricDecl> metrics;      // ABI 1.9
};

// ---- ABI 1.9's declarations: the resources a plugin reads and the metrics it reports ----

inline bool is_lower_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

// A DNS-1123 label: [a-z0-9]([-a-z0-9]*[a-z0-9])?, at most 63 characters.
inline bool is_dns_label(std::string_view s) {
  if (s.empty() || s.size() > 63 || !is_lower_alnum(s.front()) || !is_lower_alnum(s.back())) {
    return false;
  }
  return std::all_of(s.begin(), s.end(), [](char c) { return is_lower_alnum(c) || c == '-'; });
}

// A DNS-1123 subdomain: dot-separated labels, at most 253 characters.
inline bool is_dns_subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = s.find('.', start);
    if (!is_dns_label(s.substr(start, dot == std::string_view::npos ? dot : dot - start))) {
      return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// An API version: v1, v2beta3, v1alpha1.
inline bool is_api_version(std::string_view s) {
  if (s.size() < 2 || s[0] != 'v' || s[1] < '1' || s[1] > '9') return false;
  std::size_t i = 1;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9')
    ++i;
  if (i == s.size()) return true;
  std::string_view rest = s.substr(i);
  for (std::string_view stage : {std::string_view("alpha"), std::string_view("beta")}) {
    if (rest.substr(0, stage.size()) == stage) {
      rest.remove_prefix(stage.size());
      return !rest.empty() && rest[0] >= '1' && rest[0] <= '9' &&
             std::all_of(rest.begin(), rest.end(), [](char c) { return c >= '0' && c <= '9'; });
    }
  }
  return false;
}

// A kind: UpperCamelCase ASCII letters and digits.
inline bool is_kind_name(std::string_view s) {
  return !s.empty() && s.size() <= 63 && s[0] >= 'A' && s[0] <= 'Z' &&
         std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
         });
}

// A metric name without its prefix: ^[a-z][a-z0-9_]*$.
inline bool is_metric_name(std::string_view s) {
  return !s.empty() && s[0] >= 'a' && s[0] <= 'z' &&
         std::all_of(s.begin(), s.end(), [](char c) { return is_lower_alnum(c) || c == '_'; });
}

// The resources the host keeps itself, by their API path's plural in the core group and the
// groups it reads: a plugin looks them up by the host's name (object_kinds) instead of
// declaring them.
inline std::string_view host_kept_resource(std::string_view group, std::string_view plural) {
  struct Kept {
    std::string_view group, plural, name;
  };
  static constexpr Kept kKept[] = {
      {"", "pods", "Pod (the pod and node accessors)"},
      {"", "nodes", "Node (the pod and node accessors)"},
      {"", "namespaces", "Namespace (namespace_*)"},
      {"policy", "poddisruptionbudgets", "PodDisruptionBudget (process_preemption)"},
      {"", "persistentvolumes", "PersistentVolume"},
      {"", "persistentvolumeclaims", "PersistentVolumeClaim"},
      {"", "services", "Service"},
      {"", "replicationcontrollers", "ReplicationController"},
      {"apps", "replicasets", "apps/ReplicaSet"},
      {"apps", "statefulsets", "apps/StatefulSet"},
      {"storage.k8s.io", "storageclasses", "storage.k8s.io/StorageClass"},
      {"storage.k8s.io", "csinodes", "storage.k8s.io/CSINode"},
      {"storage.k8s.io", "csidrivers", "storage.k8s.io/CSIDriver"},
      {"storage.k8s.io", "csistoragecapacities", "storage.k8s.io/CSIStorageCapacity"},
  };
  for (const Kept& k : kKept) {
    if (k.group == group && k.plural == plural) return k.name;
  }
  return {};
}

inline std::string c_text(const char* s) {
  return s == nullptr ? std::string() : std::string(s);
}

// One declared resource: "" when it is well formed, else what is wrong with its fix.
inline std::string check_resource_decl(const ResourceDecl& r) {
  const std::string which = "declares the resource \"" + r.name() + "\"";
  if (!r.group.empty() && !is_dns_subdomain(r.group)) {
    return which + ": group \"" + r.group +
           "\" is not a DNS subdomain (lowercase, like \"scheduling.x-k8s.io\"; \"\" for core)";
  }
  if (!is_api_version(r.version)) {
    return which + ": version \"" + r.version + "\" is not an API version (v1, v1beta1, v1alpha2)";
  }
  if (!is_dns_label(r.plural)) {
    return which + ": \"" + r.plural +
           "\" is not a resource as API paths spell it (lowercase plural: \"podgroups\")";
  }
  if (!is_kind_name(r.kind)) {
    return which + ": kind \"" + r.kind + "\" is not a kind (UpperCamelCase: \"PodGroup\")";
  }
  if (const std::string_view kept = host_kept_resource(r.group, r.plural); !kept.empty()) {
    return which + ", which the host keeps already: look it up as " + std::string(kept) +
           " and drop the declaration";
  }
  return {};
}

// One declared metric, likewise.
inline std::string check_metric_decl(const MetricDecl& m) {
  const std::string which = "declares the metric \"" + m.name + "\"";
  if (!is_metric_name(m.name)) {
    return which + ": not a metric name: use ^[a-z][a-z0-9_]*$ (the host adds schedhost_plugin_)";
  }
  if (m.help.empty()) return which + " without help text: say in one line what it counts";
  if (m.kind != SCHEDHOST_METRIC_COUNTER && m.kind != SCHEDHOST_METRIC_HISTOGRAM) {
    return which + " of kind " + std::to_string(m.kind) +
           ": use SCHEDHOST_METRIC_COUNTER (0) or SCHEDHOST_METRIC_HISTOGRAM (1)";
  }
  if (m.kind == SCHEDHOST_METRIC_COUNTER && !m.buckets.empty()) {
    return which + ": a counter has no buckets: drop them, or make it a histogram";
  }
  for (std::size_t i = 0; i < m.buckets.size(); ++i) {
    const double b = m.buckets[i];
    if (!std::isfinite(b) || (i > 0 && !(b > m.buckets[i - 1]))) {
      return which + ": its buckets must be finite and strictly increasing";
    }
  }
  return {};
}

// Copies a descriptor's 1.9 declarations into entry and checks them (a descriptor older than
// 1.9 declares nothing). "" when they are fine, else the reason (after `plugin "Name" `).
inline std::string read_declarations(const schedhost_plugin_descriptor_t& desc,
                                     PluginEntry& entry) {
  if (desc.resource_count > 0 && desc.resources == nullptr) {
    return "has resource_count " + std::to_string(desc.resource_count) + " but resources is NULL";
  }
  if (desc.metric_count > 0 && desc.metrics == nullptr) {
    return "has metric_count " + std::to_string(desc.metric_count) + " but metrics is NULL";
  }
  std::set<std::string, std::less<>> seen;
  for (std::size_t i = 0; i < desc.resource_count; ++i) {
    const schedhost_resource_decl_t& d = desc.resources[i];
    ResourceDecl r{c_text(d.group), c_text(d.version), c_text(d.plural), c_text(d.kind),
                   d.namespaced};
    if (std::string err = check_resource_decl(r); !err.empty()) return err;
    if (!seen.insert(r.name()).second) return "declares the resource \"" + r.name() + "\" twice";
    entry.resources.push_back(std::move(r));
  }
  seen.clear();
  for (std::size_t i = 0; i < desc.metric_count; ++i) {
    const schedhost_metric_decl_t& d = desc.metrics[i];
    if (d.bucket_count > 0 && d.buckets == nullptr) {
      return "declares the metric \"" + c_text(d.name) + "\" with bucket_count " +
             std::to_string(d.bucket_count) + " but buckets NULL";
    }
    MetricDecl m{c_text(d.name), c_text(d.help), d.kind, {}};
    if (d.buckets != nullptr) m.buckets.assign(d.buckets, d.buckets + d.bucket_count);
    if (std::string err = check_metric_decl(m); !err.empty()) return err;
    if (!seen.insert(m.name).second) return "declares the metric \"" + m.name + "\" twice";
    entry.metrics.push_back(std::move(m));
  }
  return {};
}

// Reads the plugin descriptors and their vtables (checking pointers and struct sizes) into
// copies. lib is the library struct after check_library_header.
inline std::string read_plugin_descriptors(const schedhost_library_t& lib,
                                           std::vector<PluginEntry>& out) {
  if (lib.plugin_count > 0 && lib.plugins == nullptr) {
    return "plugin_count is " + std::to_string(lib.plugin_count) + " but plugins is NULL";
  }
  for (std::uint32_t i = 0; i < lib.plugin_count; ++i) {
    const schedhost_plugin_descriptor_t* d = lib.plugins[i];
    const std::string which = "plugin #" + std::to_string(i);
    if (d == nullptr) return which + " is NULL";
    if (d->struct_size < kPluginDescriptorSize_1_0) {
      return which + ": schedhost_plugin_descriptor_t is " + std::to_string(d->struct_size) +
             " bytes, smaller than the " + std::to_string(kPluginDescriptorSize_1_0) +
             " bytes of ABI 1.0: the library is corrupt or not built with the schedhost SDK";
    }
    const schedhost_plugin_descriptor_t desc = copy_struct_prefix(d, d->struct_size);
    if (desc.name == nullptr) return which + " has no name";
    const std::string name = desc.name;
    if (desc.vtable == nullptr) return "plugin \"" + name + "\" has no vtable";
    if (desc.vtable->struct_size < kPluginVtableSize_1_0) {
      return "plugin \"" + name + "\": schedhost_plugin_vtable_t is " +
             std::to_string(desc.vtable->struct_size) + " bytes, smaller than the " +
             std::to_string(kPluginVtableSize_1_0) +
             " bytes of ABI 1.0: the library is corrupt or not built with the schedhost SDK";
    }
    PluginEntry entry;
    entry.name = name;
    entry.description = desc.description == nullptr ? "" : desc.description;
    entry.vtable = copy_struct_prefix(desc.vtable, desc.vtable->struct_size);
    entry.vtable.struct_size = sizeof(schedhost_plugin_vtable_t);
    if (std::string err = read_declarations(desc, entry); !err.empty()) {
      return "plugin \"" + name + "\" " + std::move(err);
    }
    out.push_back(std::move(entry));
  }
  return {};
}

// True when the vtable has at least one extension point hook (create/destroy are not hooks).
inline bool has_any_hook(const schedhost_plugin_vtable_t& v) {
  return v.pre_enqueue || v.queue_sort_less || v.pre_filter || v.add_pod || v.remove_pod ||
         v.filter || v.post_filter || v.pre_score || v.score || v.normalize_score || v.reserve ||
         v.unreserve || v.permit || v.pre_bind || v.bind || v.post_bind;
}

// Hooks that only make sense together: the framework calls NormalizeScore after Score, Unreserve
// to undo Reserve, AddPod/RemovePod on PreFilter's state, a queueing hint for registered events.
inline std::string check_plugin_shape(const schedhost_plugin_vtable_t& v, const std::string& name) {
  const std::string plugin = "plugin \"" + name + "\"";
  if (v.create == nullptr || v.destroy == nullptr) {
    return plugin + " has no " + (v.create == nullptr ? "create" : "destroy") +
           " function: build it with the schedhost SDK";
  }
  if (v.normalize_score != nullptr && v.score == nullptr) {
    return plugin + " implements NormalizeScore without Score: add Score or drop NormalizeScore";
  }
  if (v.unreserve != nullptr && v.reserve == nullptr) {
    return plugin + " implements Unreserve without Reserve: add Reserve or drop Unreserve";
  }
  if ((v.add_pod != nullptr || v.remove_pod != nullptr) &&
      (v.add_pod == nullptr || v.remove_pod == nullptr || v.pre_filter == nullptr)) {
    return plugin +
           " implements AddPod/RemovePod without PreFilter and both of them: they extend "
           "PreFilter and come as a pair";
  }
  if (v.queueing_hint != nullptr && v.events_to_register == nullptr) {
    return plugin +
           " has a queueing hint without events_to_register: the hint answers for the events it "
           "registers";
  }
  return {};
}

// The resources a plugin may register events for (register_event, ABI 1.3): upstream's names
// (see schedhost_cluster_event_t in abi.h); "*" and "<plural>.<version>.<group>" besides.
inline constexpr std::string_view kEventResources[] = {"Pod",
                                                       "Node",
                                                       "PersistentVolume",
                                                       "PersistentVolumeClaim",
                                                       "storage.k8s.io/StorageClass",
                                                       "storage.k8s.io/CSINode",
                                                       "storage.k8s.io/CSIDriver",
                                                       "storage.k8s.io/CSIStorageCapacity",
                                                       "resource.k8s.io/ResourceClaim",
                                                       "resource.k8s.io/ResourceSlice",
                                                       "resource.k8s.io/DeviceClass"};
inline constexpr std::string_view kAnyEventResource = "*";

// Upstream's form for any other kind: <plural>.<version>.<group>, at least two dots, no slash,
// no empty part but the core group's ("configmaps.v1.", as upstream spells it).
inline bool is_custom_event_resource(std::string_view r) {
  if (r.empty() || r.find('/') != std::string_view::npos || r.front() == '.' ||
      r.find("..") != std::string_view::npos) {
    return false;
  }
  return std::count(r.begin(), r.end(), '.') >= 2;
}

// One registration of events_to_register: `resource` is one of kEventResources, "*" or a custom
// resource, and `actions` a non-empty set of SCHEDHOST_ACTION_* bits. "" when it is, else why
// not, phrased with its fix (the host prefixes `plugin "Name": `).
inline std::string check_event_registration(std::string_view resource, std::uint32_t actions) {
  const bool known = resource == kAnyEventResource ||
                     std::find(std::begin(kEventResources), std::end(kEventResources), resource) !=
                         std::end(kEventResources) ||
                     is_custom_event_resource(resource);
  if (!known) {
    std::string names;
    for (std::string_view k : kEventResources)
      names += std::string(names.empty() ? "" : ", ") + std::string(k);
    return "registers events for \"" + std::string(resource) +
           "\", which is not a resource: use one of " + names +
           ", \"*\", or \"<plural>.<version>.<group>\" for another kind";
  }
  if (actions == 0 || (actions & ~SCHEDHOST_ACTION_ANY) != 0) {
    return "registers events for \"" + std::string(resource) + "\" with action bits " +
           std::to_string(actions) + ": use SCHEDHOST_ACTION_* bits (1 to " +
           std::to_string(SCHEDHOST_ACTION_ANY) + ")";
  }
  return {};
}

// The rules on the plugins of one library, run after its init(): at least one plugin, valid and
// unique names, at least one hook each, coherent hooks.
inline std::string check_plugin_entries(const std::string& library_name,
                                        const std::vector<PluginEntry>& plugins) {
  if (plugins.empty()) return "library \"" + library_name + "\" contains no plugins";
  std::set<std::string, std::less<>> seen;
  for (const PluginEntry& p : plugins) {
    if (!is_valid_plugin_name(p.name)) {
      return "plugin \"" + p.name + "\" is not a valid name: must match " +
             std::string(kPluginNamePattern);
    }
    if (!seen.insert(p.name).second) {
      return "plugin \"" + p.name + "\" is defined twice in this library";
    }
    if (!has_any_hook(p.vtable)) return "plugin \"" + p.name + "\" implements no extension point";
    if (std::string err = check_plugin_shape(p.vtable, p.name); !err.empty()) return err;
  }
  return {};
}

}  // namespace schedhost::library_rules
