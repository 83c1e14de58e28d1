// What the operator told the loader about trust: --allow-insecure-plugins (load files that fail
// the ownership, permission and symlink checks, with a warning each), --plugin-digests FILE
// (load only files whose SHA-256 FILE lists) and --plugin-load-timeout (how long a library may
// take to load in the probe child before it is refused).
#pragma once

#include <chrono>
#include <string>

namespace schedhost::loader {

struct PluginTrust {
  bool allow_insecure = false;
  std::string digests_file;  // empty: no pinning
  std::chrono::milliseconds load_timeout{10'000};
  // The program the probe child runs (schedhost itself: "/proc/self/exe"). Empty: libraries are
  // loaded without a probe, which only tests that link the loader into their own binary do.
  std::string probe_program;
};

}  // namespace schedhost::loader
