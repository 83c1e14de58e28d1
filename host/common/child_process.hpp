// Runs a child process and watches it: every line it writes on fd 3 goes to a callback, and a
// child that stays silent for longer than allowed is killed. Whatever the child does (crash, hang,
// exit, close the pipe), the parent learns how it ended and never dies with it. The plugin
// validator and the loader's probe both run plugin code this way.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace schedhost {

// The fd a child writes its lines to.
inline constexpr int kChildFd = 3;

struct ChildSpec {
  std::string program = "/proc/self/exe";
  std::vector<std::string> args;  // what follows the program name
  // The silence allowed between two lines; the first line gets at least `startup`, since
  // starting a process (a sanitized one on a loaded machine) is not the child's work.
  std::chrono::milliseconds timeout{2000};
  std::chrono::milliseconds startup{10'000};
  // The child's stdout and stderr go to on_line too (instead of our stderr): for a child whose
  // error lines the caller reports, e.g. `schedhost validate` run by `serve --watch-config`.
  bool capture_output = false;
  // When set (by another thread), the child is killed at once, as if its time were up
  // (Kind::TimedOut): for a caller that is shutting down. Checked every 100 ms.
  const std::atomic<bool>* cancel = nullptr;
};

struct ChildEnd {
  enum class Kind { Exited, Signaled, TimedOut, NotStarted };
  Kind kind = Kind::NotStarted;
  int exit_code = 0;        // Exited
  int signal = 0;           // Signaled
  std::string start_error;  // NotStarted: why
};

// Starts spec.program with our environment (the sanitizers told to leave fatal signals alone, so
// a plugin's SIGSEGV ends the child by that signal), its stdout sent to our stderr so that a
// chatty plugin cannot garble anything (or both to on_line with spec.capture_output), and calls
// on_line for each line it writes on kChildFd (without the newline), on this thread.
ChildEnd run_child_process(const ChildSpec& spec,
                           const std::function<void(std::string_view)>& on_line);

// "SIGSEGV" for SIGSEGV.
std::string signal_name(int signal);

}  // namespace schedhost
