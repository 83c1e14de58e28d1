// The check `serve --watch-config` makes of a changed configuration before it re-executes: this
// same program run as children, `schedhost validate --plugin FILE.so` for each new or changed
// plugin file (its hooks are driven in a sandboxed grandchild), then `schedhost validate
// --config ... --plugin-dir ...` with the serving process's trust flags (the profiles resolve
// against the plugins, every plugin accepts its args). Nothing is loaded into the serving
// process, so a half-copied or crashing library cannot take it down.
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "loader/plugin_trust.hpp"

namespace schedhost::live {

struct ConfigCheck {
  std::string config;                    // --config
  std::vector<std::string> plugin_dirs;  // --plugin-dir, as given (empty: the default)
  loader::PluginTrust trust;
  // How long one child may take, from its start to its end.
  std::chrono::milliseconds timeout{60'000};
  // Set when serve stops: the child running is killed, and the verdict does not matter.
  const std::atomic<bool>* cancel = nullptr;
};

struct CheckVerdict {
  bool ok = false;
  // When refused: `<file>: <the validator's reason>`, one line.
  std::string message;
};

// Checks plugin_files one by one, then the configuration; stops at the first refusal.
CheckVerdict check_out_of_process(const ConfigCheck& check,
                                  const std::vector<std::string>& plugin_files);

}  // namespace schedhost::live
