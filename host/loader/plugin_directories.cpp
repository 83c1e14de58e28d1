#include "loader/plugin_directories.hpp"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace schedhost::loader {

std::string builtin_plugin_directory() {
  if (const char* env = std::getenv("SCHEDHOST_BUILTIN_PLUGIN_DIR"); env != nullptr && *env) {
    return env;
  }
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return SCHEDHOST_BUILTIN_PLUGIN_SUBDIR;
  return (exe.parent_path().parent_path() / SCHEDHOST_BUILTIN_PLUGIN_SUBDIR).lexically_normal();
}

std::vector<PluginDirectory> plugin_directories(const std::vector<std::string>& user_dirs) {
  std::vector<PluginDirectory> dirs{{builtin_plugin_directory(), true, true}};
  if (user_dirs.empty()) {
    dirs.push_back({kDefaultUserPluginDir, false});
  } else {
    for (const std::string& d : user_dirs)
      dirs.push_back({d, true});
  }
  return dirs;
}

}  // namespace schedhost::loader
