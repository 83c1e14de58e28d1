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
#include <vector>

namespace schedhost {

// One plugin of a library: its name as written in profiles, a one-line description, and its
// hooks (from T's methods).
struct PluginSpec {
  const char* name;
  const char* description;
  const schedhost_plugin_vtable_t* vtable;
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
  Library(const char* name, const char* version, const std::vector<PluginSpec>& specs) {
    descriptors_.reserve(specs.size());
    for (const PluginSpec& spec : specs) {
      descriptors_.push_back(
          {sizeof(schedhost_plugin_descriptor_t), spec.name, spec.description, spec.vtable});
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
