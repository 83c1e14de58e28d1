// Where plugins are looked for: the built-in directory first, then the user's directories
// (--plugin-dir, repeatable), or /plugins when none is given.
#pragma once

#include <string>
#include <vector>

namespace schedhost::loader {

struct PluginDirectory {
  std::string path;
  bool required;         // a missing required directory is an error; a missing /plugins is not
  bool builtin = false;  // the built-in directory: exempt from --plugin-digests unless listed
};

inline constexpr const char* kDefaultUserPluginDir = "/plugins";

// The built-in plugin directory: $SCHEDHOST_BUILTIN_PLUGIN_DIR when set, otherwise
// <directory of the schedhost executable>/../lib/schedhost/plugins (same in a build tree and an
// install).
std::string builtin_plugin_directory();

std::vector<PluginDirectory> plugin_directories(const std::vector<std::string>& user_dirs);

}  // namespace schedhost::loader
