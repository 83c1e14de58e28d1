#include "loader/library_loader.hpp"

#include <dlfcn.h>

#include <boost/dll/shared_library.hpp>
#include <mutex>
#include <vector>

#include "framework/call.hpp"
#include "framework/plugin_host.hpp"
#include "loader/abi_layout.hpp"
#include "loader/elf_check.hpp"

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

// The minor plugins are offered: this build's, or the older one SCHEDHOST_EMULATE_ABI_MINOR
// asked for, so an emulated host refuses what the real older host would.
std::uint32_t host_minor() {
  return framework::host_api()->abi_minor;
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

// The library's plugins as host definitions, from the entries the rules read.
void add_definitions(std::vector<library_rules::PluginEntry>& entries, LoadedLibrary& out) {
  for (library_rules::PluginEntry& entry : entries) {
    PluginDefinition def;
    def.name = std::move(entry.name);
    def.description = std::move(entry.description);
    def.vtable = entry.vtable;
    def.points = extension_points_of(def.vtable);
    def.resources = std::move(entry.resources);
    def.metrics = std::move(entry.metrics);
    out.plugins.push_back(std::move(def));
  }
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
  if (std::string err = library_rules::check_library_header(raw, host_minor()); !err.empty()) {
    return {nullptr, err};
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
  std::vector<library_rules::PluginEntry> entries;
  if (std::string err = library_rules::read_plugin_descriptors(lib, entries); !err.empty()) {
    return {nullptr, err};
  }

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
  if (std::string err = library_rules::check_plugin_entries(info.name, entries); !err.empty()) {
    if (info.deinit != nullptr) {  // init succeeded: keep init/deinit balanced
      step("deinit()");
      info.deinit();
    }
    return {nullptr, err};
  }
  add_definitions(entries, info);
  for (PluginDefinition& p : info.plugins)
    p.library = &info;
  return {std::move(opened), {}};
}

}  // namespace schedhost::loader
