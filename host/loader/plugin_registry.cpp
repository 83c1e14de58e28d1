#include "loader/plugin_registry.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "common/input_error.hpp"

namespace schedhost::loader {

namespace fs = std::filesystem;

PluginRegistry::~PluginRegistry() {
  for (auto it = libraries_.rbegin(); it != libraries_.rend(); ++it) {
    if ((*it)->info.deinit != nullptr) (*it)->info.deinit();
  }
}

void PluginRegistry::load_directories(const std::vector<PluginDirectory>& dirs) {
  for (const PluginDirectory& dir : dirs) {
    std::error_code ec;
    if (!fs::is_directory(dir.path, ec)) {
      if (!dir.required) continue;
      throw InputError(dir.path +
                       ": plugin directory does not exist: create it or fix --plugin-dir");
    }
    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(dir.path, ec)) {
      if (entry.path().extension() == ".so") files.push_back(entry.path().string());
    }
    if (ec) throw InputError(dir.path + ": plugin directory cannot be read: " + ec.message());
    std::sort(files.begin(), files.end());
    for (const std::string& f : files)
      load_file(f);
  }
}

void PluginRegistry::load_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    failures_.push_back({path, "cannot be read: " + std::string(std::strerror(errno))});
    return;
  }
  // The same file through another name or a symlink: already loaded (or already refused).
  if (!loaded_files_.insert({static_cast<unsigned long>(st.st_dev), st.st_ino}).second) return;

  OpenResult opened = open_library(path);
  if (!opened.library) {
    failures_.push_back({path, std::move(opened.error)});
    return;
  }
  LoadedLibrary& lib = opened.library->info;
  for (const PluginDefinition& p : lib.plugins) {
    if (const PluginDefinition* other = find(p.name); other != nullptr) {
      failures_.push_back({path, "plugin \"" + p.name + "\" is already defined by " +
                                     other->library->path + ": remove one of the two files"});
      if (lib.deinit != nullptr) lib.deinit();
      return;
    }
  }
  for (const PluginDefinition& p : lib.plugins)
    by_name_.emplace(p.name, &p);
  libraries_.push_back(std::move(opened.library));
}

const PluginDefinition* PluginRegistry::find(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::vector<const PluginDefinition*> PluginRegistry::plugins() const {
  std::vector<const PluginDefinition*> out;
  for (const auto& lib : libraries_) {
    for (const PluginDefinition& p : lib->info.plugins)
      out.push_back(&p);
  }
  return out;
}

std::map<std::string, ExtensionPointSet, std::less<>> PluginRegistry::catalog() const {
  std::map<std::string, ExtensionPointSet, std::less<>> out;
  for (const auto& [name, def] : by_name_)
    out.emplace(name, def->points);
  return out;
}

}  // namespace schedhost::loader
