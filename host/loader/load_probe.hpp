// The probe: before the host maps a plugin library into its own process, a short-lived child
// (schedhost itself, hidden command `probe-plugins`) loads it: maps it, runs its static
// constructors, schedhost_library() and init(), reads its descriptors and runs deinit(). A
// library that crashes, exits or hangs there is refused with one line that says what it did;
// the host never runs it. All libraries go through one child; one that kills the child is
// blamed, and a new child goes on with the rest.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace schedhost::loader {

struct ProbeInput {
  std::string path;       // as found in the plugin directory: for messages
  std::string load_path;  // what to dlopen (the sealed in-memory copy)
  std::string identity;   // device, inode, size, mtime and SHA-256: the cache key
};

struct ProbeVerdict {
  bool ok = false;
  std::string error;  // otherwise: one line, without the path
};

struct ProbeOptions {
  std::string program;  // schedhost's executable
  std::chrono::milliseconds timeout{10'000};
};

// One verdict per input, in order. A verdict for the same identity is remembered for the life of
// the process (a library is probed once however many registries load it).
std::vector<ProbeVerdict> probe_libraries(const std::vector<ProbeInput>& inputs,
                                          const ProbeOptions& options);

// The child's side (`schedhost probe-plugins PATH LOAD_PATH ...`): probes each pair in turn and
// writes its lines to fd. Never returns: ends with _exit(0) so that no plugin static destructor
// runs.
[[noreturn]] void run_probe_child(const std::vector<ProbeInput>& inputs, int fd);

}  // namespace schedhost::loader
