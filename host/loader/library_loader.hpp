// Opens one plugin library and checks it against the ABI's rules, in order, the way LLVM's
// PassPlugin::Load does: every refusal says which file, what is wrong and, where versions are
// involved, both versions.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "framework/plugin_host.hpp"
#include "loader/plugin_definition.hpp"

namespace schedhost::loader {

// A library that passed every check and whose init() succeeded. Never unloaded: the code it
// points into stays mapped for the life of the process.
struct OpenedLibrary {
  LoadedLibrary info;
  framework::PluginHost host;  // the schedhost_host_t handed to init(); lives as long as info
};

struct OpenResult {
  std::unique_ptr<OpenedLibrary> library;  // set on success
  std::string error;                       // otherwise: one line, without the path
};

// Told of each step that runs the library's code, just before it runs: "its static constructors"
// (dlopen), "schedhost_library()", "init()", "deinit()" (after a refusal that follows init()).
// The probe child reports them to its parent, the host records them for its crash line.
using LoadStepObserver = std::function<void(const char* step)>;

// Loads path (RTLD_NOW | RTLD_LOCAL), checks it and runs its init(). load_from, when given, is
// where the bytes are read from instead (the sealed in-memory copy the registry checked); path
// stays the name in LoadedLibrary and in messages.
OpenResult open_library(const std::string& path, const std::string& load_from = {},
                        const LoadStepObserver& on_step = {});

}  // namespace schedhost::loader
