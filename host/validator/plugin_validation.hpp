// `schedhost validate --plugin FILE.so`, the parent side: loads the library in a child process to
// list its plugins, then checks each plugin in a child of its own, and turns how each child ended
// (a signal, a hang, an exit in the middle) into FAIL results naming the hook that was running.
// Nothing a plugin does can end the validator.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "validator/protocol.hpp"

namespace schedhost::validator {

struct ValidationOptions {
  std::string plugin_file;
  std::chrono::milliseconds timeout{2000};  // per plugin call, and for loading
  std::map<std::string, std::string> args;  // plugin name -> create() args (JSON)
  std::vector<std::string> child_flags;     // put before "validate" (e.g. --log-level)
  std::string cluster_file;                 // --cluster: the author's nodes (and pods)
  std::vector<std::string> pod_files;       // --pod: the author's pending pods
};

struct ValidationReport {
  std::string load_error;  // the loader refused the file (bad input): no checks ran
  std::vector<CheckResult> checks;
  bool passed() const;
};

// Throws InputError before any plugin is checked when options.args names a plugin the library
// does not define: `--args Nme: FILE.so has no plugin "Nme" (its plugins: "Name"): ...`.
ValidationReport validate_plugin_file(const ValidationOptions& options);

// What the loader would say of the file's owner and mode (loader/file_trust.hpp), as the
// (library) "file mode" check: a PASS with the mode and owner, or a FAIL with the loader's refusal.
CheckResult file_mode_check(const std::string& plugin_file);

}  // namespace schedhost::validator
