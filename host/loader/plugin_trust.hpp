// What the operator told the loader about trust: --allow-insecure-plugins (load files that fail
// the ownership, permission and symlink checks, with a warning each) and --plugin-digests FILE
// (load only files whose SHA-256 FILE lists).
#pragma once

#include <string>

namespace schedhost::loader {

struct PluginTrust {
  bool allow_insecure = false;
  std::string digests_file;  // empty: no pinning
};

}  // namespace schedhost::loader
