#include "common/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <thread>

namespace schedhost {
namespace {

using Clock = std::chrono::steady_clock;

ChildEnd ended(int status) {
  ChildEnd end;
  if (WIFSIGNALED(status)) {
    end.kind = ChildEnd::Kind::Signaled;
    end.signal = WTERMSIG(status);
  } else {
    end.kind = ChildEnd::Kind::Exited;
    end.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  return end;
}

ChildEnd not_started(const char* what) {
  ChildEnd end;
  end.start_error = std::string(what) + ": " + std::strerror(errno);
  return end;
}

ChildEnd timed_out() {
  ChildEnd end;
  end.kind = ChildEnd::Kind::TimedOut;
  return end;
}

// Our environment, with the sanitizers (in a sanitized build) told to leave fatal signals alone.
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

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (std::string& s : strings)
    out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

void kill_and_reap(pid_t pid) {
  ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

bool cancelled(const ChildSpec& spec) {
  return spec.cancel != nullptr && spec.cancel->load();
}

// How long one poll() may wait: to the deadline, or 100 ms when the caller may cancel.
long poll_slice(const ChildSpec& spec) {
  return spec.cancel != nullptr ? 100 : std::numeric_limits<int>::max();
}

}  // namespace

std::string signal_name(int signal) {
  const char* abbrev = ::sigabbrev_np(signal);
  return abbrev != nullptr ? "SIG" + std::string(abbrev) : "signal " + std::to_string(signal);
}

ChildEnd run_child_process(const ChildSpec& spec,
                           const std::function<void(std::string_view)>& on_line) {
  // A write to a pipe whose child end died must not kill the parent.
  ::signal(SIGPIPE, SIG_IGN);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return not_started("pipe");
  // Everything the child needs is built before fork: only async-signal-safe calls after it.
  std::vector<std::string> argv_storage{"schedhost"};
  argv_storage.insert(argv_storage.end(), spec.args.begin(), spec.args.end());
  std::vector<char*> argv = pointers(argv_storage);
  std::vector<std::string> env_storage = child_environment();
  std::vector<char*> envp = pointers(env_storage);

  const pid_t pid = ::fork();
  if (pid < 0) {
    ChildEnd end = not_started("fork");
    ::close(fds[0]);
    ::close(fds[1]);
    return end;
  }
  if (pid == 0) {
    if (fds[1] == kChildFd) {
      ::fcntl(kChildFd, F_SETFD, 0);
    } else if (::dup2(fds[1], kChildFd) < 0) {
      ::_exit(127);
    }
    if (spec.capture_output) {
      ::dup2(kChildFd, STDERR_FILENO);
    }
    ::dup2(STDERR_FILENO, STDOUT_FILENO);
    ::execve(spec.program.c_str(), argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(fds[1]);

  std::string buffer;
  Clock::time_point deadline = Clock::now() + std::max(spec.timeout, spec.startup);
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0 || cancelled(spec)) {
      kill_and_reap(pid);
      ::close(fds[0]);
      return timed_out();
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready =
        ::poll(&p, 1, static_cast<int>(std::min<long>(left.count(), poll_slice(spec))));
    if (ready <= 0) continue;  // EINTR, or the deadline check above ends it
    char chunk[4096];
    const ssize_t n = ::read(fds[0], chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    buffer.append(chunk, static_cast<std::size_t>(n));
    for (std::size_t nl = buffer.find('\n'); nl != std::string::npos; nl = buffer.find('\n')) {
      on_line(std::string_view(buffer).substr(0, nl));
      buffer.erase(0, nl + 1);
      deadline = Clock::now() + spec.timeout;  // progress: the next step gets its own timeout
    }
  }
  ::close(fds[0]);
  // The pipe closed (the child ended, or closed fd 3): wait for it, within the timeout too.
  for (;;) {
    int status = 0;
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return ended(status);
    if (r < 0 && errno != EINTR) {
      ChildEnd end;
      end.kind = ChildEnd::Kind::Exited;
      end.exit_code = -1;
      return end;
    }
    if (Clock::now() >= deadline || cancelled(spec)) {
      kill_and_reap(pid);
      return timed_out();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace schedhost
