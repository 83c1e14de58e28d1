#include "validator/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <thread>

namespace schedhost::validator {
namespace {

using Clock = std::chrono::steady_clock;

void take_line(ChildOutcome& out, std::string_view line) {
  const ChildLine l = parse_child_line(line);
  if (l.kind == "call") {
    out.last_call = l.payload;
  } else if (l.kind == "check") {
    if (auto check = parse_check(l.payload)) out.checks.push_back(std::move(*check));
  } else if (l.kind == "plugin") {
    out.plugins.push_back(l.payload);
  } else if (l.kind == "load-error") {
    out.load_error = l.payload;
  } else if (l.kind == "done") {
    out.done = true;
  }
}

void record_status(ChildOutcome& out, int status) {
  if (WIFSIGNALED(status)) {
    out.end = ChildOutcome::End::Signaled;
    out.signal = WTERMSIG(status);
  } else {
    out.end = ChildOutcome::End::Exited;
    out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
}

// Our environment, with the sanitizers (in a sanitized build) told to leave fatal signals alone:
// a plugin's SIGSEGV must end the child by that signal, for the parent to name it.
std::vector<std::string> child_environment() {
  static const char* const kSanitizers[] = {"ASAN_OPTIONS", "UBSAN_OPTIONS", "TSAN_OPTIONS"};
  static const char kLeaveSignals[] =
      "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0";
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    bool sanitizer = false;
    for (const char* name : kSanitizers) {
      sanitizer = sanitizer || entry.substr(0, entry.find('=')) == name;
    }
    if (!sanitizer) env.emplace_back(entry);
  }
  for (const char* name : kSanitizers) {
    const char* current = std::getenv(name);
    env.push_back(std::string(name) + "=" +
                  (current != nullptr && *current != '\0' ? std::string(current) + ":" : "") +
                  kLeaveSignals);
  }
  return env;
}

void kill_and_reap(pid_t pid) {
  ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace

std::string signal_name(int signal) {
  const char* abbrev = ::sigabbrev_np(signal);
  return abbrev != nullptr ? "SIG" + std::string(abbrev) : "signal " + std::to_string(signal);
}

ChildOutcome run_child(const std::vector<std::string>& args, std::chrono::milliseconds timeout) {
  ChildOutcome out;
  // A write to a pipe whose child end died must not kill the validator.
  ::signal(SIGPIPE, SIG_IGN);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    out.start_error = std::string("pipe: ") + std::strerror(errno);
    return out;
  }
  // Everything the child needs is built before fork: only async-signal-safe calls after it.
  const std::string exe = "/proc/self/exe";
  std::vector<std::string> argv_storage{"schedhost"};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_storage)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_storage = child_environment();
  std::vector<char*> envp;
  for (std::string& e : env_storage)
    envp.push_back(e.data());
  envp.push_back(nullptr);

  const pid_t pid = ::fork();
  if (pid < 0) {
    out.start_error = std::string("fork: ") + std::strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    return out;
  }
  if (pid == 0) {
    if (fds[1] == kChildFd) {
      ::fcntl(kChildFd, F_SETFD, 0);
    } else if (::dup2(fds[1], kChildFd) < 0) {
      ::_exit(127);
    }
    ::dup2(STDERR_FILENO, STDOUT_FILENO);
    ::execve(exe.c_str(), argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(fds[1]);

  std::string buffer;
  // Starting a process (a sanitized one on a loaded machine) is not the plugin's time: the
  // timeout starts with the child's first line, which it writes before it loads the library.
  constexpr std::chrono::milliseconds kStartup{10'000};
  Clock::time_point deadline = Clock::now() + std::max(timeout, kStartup);
  bool eof = false;
  while (!eof) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      kill_and_reap(pid);
      ::close(fds[0]);
      out.end = ChildOutcome::End::TimedOut;
      return out;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;  // the deadline check above ends it
    char chunk[4096];
    const ssize_t n = ::read(fds[0], chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      eof = true;
      break;
    }
    buffer.append(chunk, static_cast<std::size_t>(n));
    for (std::size_t nl = buffer.find('\n'); nl != std::string::npos; nl = buffer.find('\n')) {
      take_line(out, std::string_view(buffer).substr(0, nl));
      buffer.erase(0, nl + 1);
      deadline = Clock::now() + timeout;  // progress: the next call gets its own timeout
    }
  }
  ::close(fds[0]);
  // The pipe closed (the child ended, or closed fd 3): wait for it, within the timeout too.
  for (;;) {
    int status = 0;
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      record_status(out, status);
      return out;
    }
    if (r < 0 && errno != EINTR) {
      out.end = ChildOutcome::End::Exited;
      out.exit_code = -1;
      return out;
    }
    if (Clock::now() >= deadline) {
      kill_and_reap(pid);
      out.end = ChildOutcome::End::TimedOut;
      return out;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace schedhost::validator
