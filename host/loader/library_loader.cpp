#include "loader/library_loader.hpp"

#include <dlfcn.h>

#include <boost/dll/shared_library.hpp>
#include <cstdio>
#include <mutex>
#include <set>
#include <vector>

#include "framework/call.hpp"
#include "framework/plugin_host.hpp"
#include "loader/abi_layout.hpp"
#include "loader/elf_check.hpp"
#include "loader/plugin_name.hpp"

namespace schedhost::loader {
namespace {

// Every library ever opened stays here until the process exits: plugin code must never be
// unmapped while a function pointer, a cycle-state value or a sanitizer stack can reach it.
void keep_loaded(boost::dll::shared_library library) {
  static std::mutex mutex;
  static auto* libraries = new std::vector<boost::dll::shared_library>();  // never destroyed
  std::lock_guard lock(mutex);
  libraries->push_back(std::move(library));
}

std::string hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08X", v);
  return buf;
}

std::string version(std::uint32_t major, std::uint32_t minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

// The minor plugins are offered: this build's, or the older one SCHEDHOST_EMULATE_ABI_MINOR
// asked for, so an emulated host refuses what the real older host would.
std::uint32_t host_minor() {
  return framework::host_api()->abi_minor;
}
std::string host_abi() {
  return version(SCHEDHOST_ABI_MAJOR, host_minor());
}

std::string c_string(const char* s) {
  return s == nullptr ? std::string() : std::string(s);
}

// dlopen's own message for a file that exists but cannot be loaded. Boost.DLL clears dlerror(),
// so the file is opened once directly first; the extra reference is harmless, as nothing is
// ever unloaded.
std::string dlopen_error(const std::string& path) {
  if (dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL) != nullptr) return {};
  const char* err = dlerror();
  return err != nullptr ? err : "dlopen failed";
}

// dlerror() names the file dlopen was given: show the user's path instead of /proc/<pid>/fd/<n>.
std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  if (from == to) return text;
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

std::string check_plugin_shape(const schedhost_plugin_vtable_t& v, const std::string& name) {
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
  return {};
}

// Reads the descriptors and vtables (checking their sizes) into host-owned copies.
std::string read_plugins(const schedhost_library_t& lib, LoadedLibrary& out) {
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
    const auto desc = copy_struct_prefix(d, d->struct_size);
    if (desc.name == nullptr) return which + " has no name";
    const std::string name = desc.name;
    if (desc.vtable == nullptr) return "plugin \"" + name + "\" has no vtable";
    if (desc.vtable->struct_size < kPluginVtableSize_1_0) {
      return "plugin \"" + name + "\": schedhost_plugin_vtable_t is " +
             std::to_string(desc.vtable->struct_size) + " bytes, smaller than the " +
             std::to_string(kPluginVtableSize_1_0) +
             " bytes of ABI 1.0: the library is corrupt or not built with the schedhost SDK";
    }
    PluginDefinition def;
    def.name = name;
    def.description = c_string(desc.description);
    def.vtable = copy_struct_prefix(desc.vtable, desc.vtable->struct_size);
    def.vtable.struct_size = sizeof(schedhost_plugin_vtable_t);
    def.points = extension_points_of(def.vtable);
    out.plugins.push_back(std::move(def));
  }
  return {};
}

// The per-plugin rules that do not depend on other libraries.
std::string check_plugins(const LoadedLibrary& lib) {
  if (lib.plugins.empty()) return "library \"" + lib.name + "\" contains no plugins";
  std::set<std::string, std::less<>> seen;
  for (const PluginDefinition& p : lib.plugins) {
    if (!is_valid_plugin_name(p.name)) {
      return "plugin \"" + p.name + "\" is not a valid name: must match " +
             std::string(kPluginNamePattern);
    }
    if (!seen.insert(p.name).second) {
      return "plugin \"" + p.name + "\" is defined twice in this library";
    }
    if (p.points.empty()) return "plugin \"" + p.name + "\" implements no extension point";
    if (std::string err = check_plugin_shape(p.vtable, p.name); !err.empty()) return err;
  }
  return {};
}

}  // namespace

OpenResult open_library(const std::string& path, const std::string& load_from,
                        const LoadStepObserver& on_step) {
  const auto step = [&on_step](const char* what) {
    if (on_step) on_step(what);
  };
  const std::string& source = load_from.empty() ? path : load_from;
  if (std::string err = check_elf_shared_object(source); !err.empty()) return {nullptr, err};
  step("its static constructors");
  if (std::string err = dlopen_error(source); !err.empty()) {
    return {nullptr, "cannot be loaded: " + replace_all(err, source, path)};
  }

  boost::dll::shared_library handle;
  try {
    handle.load(source, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    return {nullptr, "cannot be loaded: " + replace_all(e.what(), source, path)};
  }
  if (!handle.has(SCHEDHOST_ENTRY_SYMBOL)) {
    return {nullptr, "not a schedhost plugin: it does not export " SCHEDHOST_ENTRY_SYMBOL
                     "() (build it with schedhost_add_plugin and SCHEDHOST_LIBRARY)"};
  }
  auto entry = handle.get<const schedhost_library_t*()>(SCHEDHOST_ENTRY_SYMBOL);
  keep_loaded(handle);

  step(SCHEDHOST_ENTRY_SYMBOL "()");
  const schedhost_library_t* raw = entry();
  if (raw == nullptr) {
    return {nullptr, SCHEDHOST_ENTRY_SYMBOL "() returned NULL: the library refused to load"};
  }
  if (raw->magic != SCHEDHOST_LIBRARY_MAGIC) {
    return {nullptr, "bad library magic " + hex32(raw->magic) + " (expected " +
                         hex32(SCHEDHOST_LIBRARY_MAGIC) +
                         "): the entry function does not return a schedhost_library_t"};
  }
  if (raw->abi_major != SCHEDHOST_ABI_MAJOR) {
    return {nullptr, "built for plugin ABI " + version(raw->abi_major, raw->abi_minor) +
                         ", this host has ABI " + host_abi() + ": rebuild the plugin with the " +
                         std::to_string(SCHEDHOST_ABI_MAJOR) + ".x SDK"};
  }
  if (raw->min_host_abi_minor > host_minor()) {
    return {nullptr, "needs plugin ABI " + version(raw->abi_major, raw->min_host_abi_minor) +
                         " or newer, this host has ABI " + host_abi() +
                         ": upgrade schedhost, or rebuild the plugin for ABI " + host_abi()};
  }
  if (raw->struct_size < kLibrarySize_1_0) {
    return {nullptr, "schedhost_library_t is " + std::to_string(raw->struct_size) +
                         " bytes, smaller than the " + std::to_string(kLibrarySize_1_0) +
                         " bytes of ABI 1.0: the library is corrupt or not built with the "
                         "schedhost SDK"};
  }
  const schedhost_library_t lib = copy_struct_prefix(raw, raw->struct_size);

  auto opened = std::make_unique<OpenedLibrary>();
  LoadedLibrary& info = opened->info;
  info.path = path;
  info.name = lib.name != nullptr ? lib.name : std::string();
  info.version = c_string(lib.version);
  info.build_info = c_string(lib.build_info);
  info.abi_major = lib.abi_major;
  info.abi_minor = lib.abi_minor;
  info.deinit = lib.deinit;
  if (info.name.empty()) return {nullptr, "the library has no name"};
  if (std::string err = read_plugins(lib, info); !err.empty()) return {nullptr, err};

  opened->host.name = "library \"" + info.name + "\"";
  if (lib.init != nullptr) {
    step("init()");
    framework::Call call;
    const schedhost_code_t code =
        lib.init(framework::host_api(), opened->host.handle(), call.handle());
    if (code != SCHEDHOST_SUCCESS) {
      const std::string reason = call.message();
      return {nullptr, "library \"" + info.name + "\" refused to initialise: " +
                           (reason.empty() ? "init() returned " + std::to_string(code) : reason)};
    }
  }
  if (std::string err = check_plugins(info); !err.empty()) {
    if (info.deinit != nullptr) {  // init succeeded: keep init/deinit balanced
      step("deinit()");
      info.deinit();
    }
    return {nullptr, err};
  }
  for (PluginDefinition& p : info.plugins)
    p.library = &info;
  return {std::move(opened), {}};
}

}  // namespace schedhost::loader
