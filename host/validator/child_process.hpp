// Runs a validator child (this program, re-executed through /proc/self/exe with the hidden child
// flags of `validate`) and watches it: every line it writes on fd 3 is collected, and a child
// that writes nothing for `timeout` is killed. Whatever the child does (crash, hang, exit, close
// the pipe), the parent gets an outcome and never dies with it.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "validator/protocol.hpp"

namespace schedhost::validator {

struct ChildOutcome {
  enum class End { Exited, Signaled, TimedOut, NotStarted };
  End end = End::NotStarted;
  int exit_code = 0;
  int signal = 0;
  bool done = false;                      // the child said "done" before it ended
  std::string last_call;                  // the last "call" line: what was running
  std::vector<CheckResult> checks;        // "check" lines
  std::vector<std::string> plugins;       // "plugin" lines
  std::optional<std::string> load_error;  // a "load-error" line
  std::string start_error;                // End::NotStarted: why
};

// The fd the child writes its lines to.
inline constexpr int kChildFd = 3;

// args: what follows the program name. The child's stdout goes to our stderr, so that a plugin
// that prints cannot garble the report.
ChildOutcome run_child(const std::vector<std::string>& args, std::chrono::milliseconds timeout);

// "SIGSEGV" for SIGSEGV.
std::string signal_name(int signal);

}  // namespace schedhost::validator
