// schedhost/plugin.hpp - write a schedhost plugin as an ordinary C++17 class.
//
//   class GpuFilter {
//    public:
//     explicit GpuFilter(const nlohmann::json& args);              // throw to refuse the args
//     schedhost::Status Filter(schedhost::Context&, const schedhost::CycleState&,
//                              const schedhost::Pod& pod, const schedhost::NodeInfo& node);
//   };
//   SCHEDHOST_LIBRARY("gpu-plugins", "1.0.0",
//                     schedhost::plugin<GpuFilter, schedhost::hook::Filter>("GpuFilter", "..."));
//
// A class implements an extension point by having the method named after it, with the signature
// listed in detail/hooks.hpp; only the methods it has are registered (no virtual functions, no
// no-op calls). The schedhost::hook:: tags after the class state which extension points it
// implements: a listed hook that is missing, misspelt (`filter`, `Filters`) or mistyped, or a hook
// method that is not listed, fails the build. Every hook runs behind a noexcept barrier: an
// exception becomes an Error status carrying what().
//
// Constructors: T(const nlohmann::json& args, const schedhost::Host&), T(const nlohmann::json&)
// or T(). Args arrive as the JSON of pluginConfig[].args ({} when absent); a T() plugin refuses
// non-empty args. Threading follows abi.h: Filter and Score run concurrently on one instance.
#pragma once

#include <schedhost/abi.h>
#include <schedhost/cluster_event.hpp>
#include <schedhost/context.hpp>
#include <schedhost/cycle_state.hpp>
#include <schedhost/detail/hooks.hpp>
#include <schedhost/host.hpp>
#include <schedhost/objects.hpp>
#include <schedhost/status.hpp>

#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedhost {

// A resource a plugin reads besides the host's own kinds (ABI 1.9), upstream's informer from
// framework.Handle: a custom resource such as scheduler-plugins' PodGroup. Declare it on the spec
// (plugin<T>(...).reads(kPodGroups)); the host keeps its objects (an informer in serve, the
// cluster file's objects in run) and plugins read them with Context::objects, object and select
// under name(), and register events for it under the same name.
//   constexpr schedhost::ApiResource kPodGroups{"scheduling.x-k8s.io", "v1alpha1", "podgroups",
//                                               "PodGroup", true};
struct ApiResource {
  const char* group;    // "" for the core group
  const char* version;  // "v1alpha1"
  const char* plural;   // as API paths spell it: "podgroups"
  const char* kind;     // as a cluster file names its objects: "PodGroup"
  bool namespaced = true;
  // Upstream's GVK string, the name lookups and events take:
  // "podgroups.v1alpha1.scheduling.x-k8s.io".
  std::string name() const { return std::string(plural) + "." + version + "." + group; }
  // The API path of its collection ("" ns: cluster-wide), of one object when name is given.
  std::string path(std::string_view ns = {}, std::string_view object_name = {}) const {
    std::string p = *group == '\0' ? std::string("/api/") + version
                                   : std::string("/apis/") + group + "/" + version;
    if (namespaced && !ns.empty()) p += "/namespaces/" + std::string(ns);
    p += "/" + std::string(plural);
    if (!object_name.empty()) p += "/" + std::string(object_name);
    return p;
  }
};

// One plugin of a library: its name as written in profiles, a one-line description, its hooks
// (from T's methods), and what it declares (ABI 1.9): the resources it reads and the metrics it
// reports, added with reads(), counter() and histogram().
struct PluginSpec {
  struct Metric {
    const char* name;
    const char* help;
    schedhost_metric_kind_t kind;
    std::vector<double> buckets;
  };

  PluginSpec(const char* plugin_name, const char* plugin_description,
             const schedhost_plugin_vtable_t* plugin_vtable)
      : name(plugin_name), description(plugin_description), vtable(plugin_vtable) {}

  // The plugin reads this resource: serve watches it before scheduling.
  PluginSpec reads(const ApiResource& resource) && {
    resources.push_back(resource);
    return std::move(*this);
  }
  // A counter, served as schedhost_plugin_<name>{plugin="<Name>"}: Host::metric(name).add(n).
  PluginSpec counter(const char* metric_name, const char* help) && {
    metrics.push_back({metric_name, help, SCHEDHOST_METRIC_COUNTER, {}});
    return std::move(*this);
  }
  // A histogram (buckets: upper bounds, increasing; none for Prometheus' defaults):
  // Host::metric(name).observe(v).
  PluginSpec histogram(const char* metric_name, const char* help,
                       std::vector<double> buckets = {}) && {
    metrics.push_back({metric_name, help, SCHEDHOST_METRIC_HISTOGRAM, std::move(buckets)});
    return std::move(*this);
  }

  const char* name;
  const char* description;
  const schedhost_plugin_vtable_t* vtable;
  std::vector<ApiResource> resources;
  std::vector<Metric> metrics;
};

// plugin<T>("Name", "description"): the hooks are T's methods, whatever they are.
// plugin<T, hook::Filter, hook::Score>(...): the hooks are stated, and the build fails when T's
// methods do not match the list exactly (a misspelt or mistyped hook, or one not listed), as
// Go's `var _ framework.FilterPlugin = &T{}` does. Prefer this form.
template <class T, class... Hooks>
PluginSpec plugin(const char* name, const char* description) {
  if constexpr (sizeof...(Hooks) > 0) static_assert(detail::check_declared_hooks<T, Hooks...>());
  return {name, description, &detail::kVtable<T>};
}

namespace detail {

// The library descriptor the entry function returns: built once, lives until the process ends.
class Library {
 public:
  Library(const char* name, const char* version, const std::vector<PluginSpec>& specs)
      : specs_(specs) {
    descriptors_.reserve(specs_.size());
    declarations_.resize(specs_.size());
    for (std::size_t i = 0; i < specs_.size(); ++i) {
      const PluginSpec& spec = specs_[i];
      Declarations& d = declarations_[i];
      for (const ApiResource& r : spec.resources)
        d.resources.push_back({r.group, r.version, r.plural, r.kind, r.namespaced});
      for (const PluginSpec::Metric& m : spec.metrics) {
        d.metrics.push_back({m.name, m.help, m.kind, m.buckets.empty() ? nullptr : m.buckets.data(),
                             m.buckets.size()});
      }
      descriptors_.push_back({sizeof(schedhost_plugin_descriptor_t), spec.name, spec.description,
                              spec.vtable, d.resources.empty() ? nullptr : d.resources.data(),
                              d.resources.size(), d.metrics.empty() ? nullptr : d.metrics.data(),
                              d.metrics.size()});
    }
    for (const auto& d : descriptors_)
      pointers_.push_back(&d);
    library_ = {SCHEDHOST_LIBRARY_MAGIC,
                sizeof(schedhost_library_t),
                SCHEDHOST_ABI_MAJOR,
                SCHEDHOST_ABI_MINOR,
                0,  // the wrapper feature-tests every host function, so any 1.x host will do
                name,
                version,
                "schedhost C++ SDK " SCHEDHOST_SDK_BUILD_INFO,
                nullptr,
                nullptr,
                static_cast<std::uint32_t>(pointers_.size()),
                pointers_.data()};
  }
  const schedhost_library_t* get() const { return &library_; }

 private:
  // The C arrays each descriptor points into (their buckets point into specs_).
  struct Declarations {
    std::vector<schedhost_resource_decl_t> resources;
    std::vector<schedhost_metric_decl_t> metrics;
  };
  std::vector<PluginSpec> specs_;
  std::vector<Declarations> declarations_;
  std::vector<schedhost_plugin_descriptor_t> descriptors_;
  std::vector<const schedhost_plugin_descriptor_t*> pointers_;
  schedhost_library_t library_{};
};

}  // namespace detail
}  // namespace schedhost

// Defines the library's entry function: its name, its version and its plugins
// (schedhost::plugin<T>("Name", "description"), ...). Use once per library.
#define SCHEDHOST_LIBRARY(library_name, library_version, ...)                                \
  extern "C" SCHEDHOST_EXPORT const schedhost_library_t* schedhost_plugin_library_v1(void) { \
    try {                                                                                    \
      static const ::schedhost::detail::Library library(library_name, library_version,       \
                                                        {__VA_ARGS__});                      \
      return library.get();                                                                  \
    } catch (...) {                                                                          \
      return nullptr;                                                                        \
    }                                                                                        \
  }
