// Opens one plugin library and checks it against the ABI's rules, in order, the way LLVM's
// PassPlugin::Load does: every refusal says which file, what is wrong and, where versions are
// involved, both versions.
#pragma once

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

// Loads path (RTLD_NOW | RTLD_LOCAL), checks it and runs its init(). load_from, when given, is
// where the bytes are read from instead (the /proc/<pid>/fd path of the file the registry
// checked); path stays the name in LoadedLibrary and in messages.
OpenResult open_library(const std::string& path, const std::string& load_from = {});

}  // namespace schedhost::loader
