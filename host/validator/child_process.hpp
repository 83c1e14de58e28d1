// Runs a validator child (this program, re-executed with the hidden child flags of `validate`)
// through common/child_process.hpp and collects its protocol lines (validator/protocol.hpp).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "common/child_process.hpp"
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

using schedhost::kChildFd;
using schedhost::signal_name;

// args: what follows the program name; timeout: the silence allowed between two lines.
ChildOutcome run_child(const std::vector<std::string>& args, std::chrono::milliseconds timeout);

}  // namespace schedhost::validator
