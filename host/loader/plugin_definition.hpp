// A plugin as a loaded library defines it, and the library it came from.
#pragma once

#include <schedhost/abi.h>

#include <cstdint>
#include <string>
#include <vector>

#include <schedhost/detail/library_rules.hpp>

#include "framework/extension_point.hpp"

namespace schedhost::loader {

struct LoadedLibrary;

struct PluginDefinition {
  std::string name;
  std::string description;
  // A host-owned copy of the plugin's vtable at the host's struct size: hooks the plugin's
  // (older) table does not have are NULL, so the rest of the host never checks sizes.
  schedhost_plugin_vtable_t vtable{};
  ExtensionPointSet points;
  // What it declared (ABI 1.9): the resources it reads beside the host's own kinds, and the
  // metrics it reports.
  std::vector<library_rules::ResourceDecl> resources;
  std::vector<library_rules::MetricDecl> metrics;
  const LoadedLibrary* library = nullptr;
};

struct LoadedLibrary {
  std::string path;  // as found in the plugin directory
  std::string name;
  std::string version;
  std::string build_info;
  std::uint32_t abi_major = 0;
  std::uint32_t abi_minor = 0;
  void (*deinit)(void) = nullptr;  // NULL when the library has none
  std::vector<PluginDefinition> plugins;
};

// A library that failed a check: which file, and the one-line reason (without the path).
struct LoadFailure {
  std::string path;
  std::string message;
};

// What the loader let through without refusing it: a directory, file or symlink that
// --allow-insecure-plugins allowed, or a --plugin-digests line no file matched. Where (a path, or
// file:line), and the one-line text.
struct LoadWarning {
  std::string path;
  std::string message;
};

// The extension points a vtable implements (its non-NULL hooks).
ExtensionPointSet extension_points_of(const schedhost_plugin_vtable_t& vtable);

}  // namespace schedhost::loader
