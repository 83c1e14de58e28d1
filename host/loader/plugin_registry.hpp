// PluginRegistry: every plugin library found in the plugin directories, loaded once, checked,
// and kept for the life of the process. Plugins are looked up by the name profiles use.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "loader/library_loader.hpp"
#include "loader/plugin_definition.hpp"
#include "loader/plugin_directories.hpp"

namespace schedhost::loader {

class PluginRegistry {
 public:
  PluginRegistry() = default;
  PluginRegistry(const PluginRegistry&) = delete;
  PluginRegistry& operator=(const PluginRegistry&) = delete;
  // Runs each library's deinit() in reverse load order. Destroy every plugin instance first.
  ~PluginRegistry();

  // Loads every *.so of each directory (sorted by file name). A library that fails a check is
  // recorded in failures(), never fatal; a missing required directory throws InputError.
  void load_directories(const std::vector<PluginDirectory>& dirs);
  // Loads one file; the same file (also through a symlink) is loaded once.
  void load_file(const std::string& path);

  const std::vector<std::unique_ptr<OpenedLibrary>>& libraries() const { return libraries_; }
  const std::vector<LoadFailure>& failures() const { return failures_; }
  const PluginDefinition* find(std::string_view name) const;
  // Every plugin, in load order.
  std::vector<const PluginDefinition*> plugins() const;
  // Each plugin's name and the extension points it implements (config::PluginCatalog).
  std::map<std::string, ExtensionPointSet, std::less<>> catalog() const;

 private:
  std::vector<std::unique_ptr<OpenedLibrary>> libraries_;
  std::vector<LoadFailure> failures_;
  std::map<std::string, const PluginDefinition*, std::less<>> by_name_;
  std::set<std::pair<unsigned long, unsigned long>> loaded_files_;  // (device, inode)
};

}  // namespace schedhost::loader
