#include "framework/fatal_plugin_report.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <mutex>

#include "cluster/node_info.hpp"
#include "cluster/pod.hpp"
#include "framework/plugin_call_record.hpp"
#include "loader/plugin_definition.hpp"

namespace schedhost::framework {
namespace {

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
struct sigaction previous_actions[NSIG];

// A line built in a fixed buffer: no allocation, no locks, no stdio.
class Line {
 public:
  Line& operator<<(const char* text) {
    for (; text != nullptr && *text != '\0' && used_ < sizeof buffer_ - 1; ++text)
      buffer_[used_++] = *text;
    return *this;
  }
  Line& operator<<(int value) {
    char digits[16];
    int n = 0;
    unsigned magnitude =
        value < 0 ? 0U - static_cast<unsigned>(value) : static_cast<unsigned>(value);
    do {
      digits[n++] = static_cast<char>('0' + magnitude % 10);
      magnitude /= 10;
    } while (magnitude != 0 && n < 15);
    if (value < 0) *this << "-";
    while (n > 0) {
      const char one[2] = {digits[--n], '\0'};
      *this << one;
    }
    return *this;
  }
  void write_to_stderr() {
    buffer_[used_++] = '\n';
    for (std::size_t sent = 0; sent < used_;) {
      const ssize_t n = ::write(STDERR_FILENO, buffer_ + sent, used_ - sent);
      if (n <= 0) return;
      sent += static_cast<std::size_t>(n);
    }
  }

 private:
  char buffer_[2048];
  std::size_t used_ = 0;
};

const char* signal_text(int signal) {
  switch (signal) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGBUS:
      return "SIGBUS";
    case SIGILL:
      return "SIGILL";
    case SIGFPE:
      return "SIGFPE";
    case SIGABRT:
      return "SIGABRT";
    default:
      return "a fatal signal";
  }
}

// "fatal: plugin "X" (FILE, library NAME VERSION) " or "fatal: plugin library FILE ".
void blame(Line& line, const PluginCallRecord& r) {
  line << "fatal: ";
  if (r.plugin == nullptr) {
    line << "plugin library " << (r.file != nullptr ? r.file->c_str() : "") << " ";
    return;
  }
  line << "plugin \"" << r.plugin->name.c_str() << "\" (";
  if (const loader::LoadedLibrary* lib = r.plugin->library; lib != nullptr) {
    line << lib->path.c_str();
    if (!lib->name.empty()) line << ", library " << lib->name.c_str();
    if (!lib->name.empty() && !lib->version.empty()) line << " " << lib->version.c_str();
  }
  line << ") ";
}

// " in Filter for pod NS/NAME on node N".
void where(Line& line, const PluginCallRecord& r) {
  line << " in " << r.hook;
  if (r.pod != nullptr) {
    line << " for pod " << r.pod->namespace_name().c_str() << "/" << r.pod->name().c_str();
  }
  if (const std::string* node = call_node_name(r)) line << " on node " << node->c_str();
}

void on_fatal_signal(int signal, siginfo_t* info, void* /*context*/) {
  if (const PluginCallRecord* r = current_plugin_call(); r != nullptr) {
    Line line;
    blame(line, *r);
    line << "crashed with " << signal_text(signal);
    where(line, *r);
    line.write_to_stderr();
    struct sigaction fallback {};
    fallback.sa_handler = SIG_DFL;
    ::sigaction(signal, &fallback, nullptr);
  } else {
    ::sigaction(signal, &previous_actions[signal], nullptr);
  }
  // A fault returns to the faulting instruction, which faults again under the action just set;
  // a signal someone sent (abort(), kill) is sent again.
  if (info == nullptr || info->si_code <= 0) {
    sigset_t just_this;
    ::sigemptyset(&just_this);
    ::sigaddset(&just_this, signal);
    ::pthread_sigmask(SIG_UNBLOCK, &just_this, nullptr);
    ::raise(signal);
  }
}

void report_exit(const char* what, int status) {
  const PluginCallRecord* r = current_plugin_call();
  if (r == nullptr) return;
  Line line;
  blame(line, *r);
  line << "called " << what;
  if (status >= 0) line << "(" << status << ")";
  where(line, *r);
  line << ": exiting " << kExitPluginExited;
  line.write_to_stderr();
  ::_exit(kExitPluginExited);
}

void on_exit_called(int status, void* /*unused*/) {
  report_exit("exit", status);
}

void on_quick_exit_called() {
  report_exit("quick_exit()", -1);
}

void install_signal_handlers() {
  ensure_signal_stack();
  for (int signal : kFatalSignals) {
    struct sigaction action {};
    action.sa_sigaction = on_fatal_signal;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    ::sigemptyset(&action.sa_mask);
    ::sigaction(signal, &action, &previous_actions[signal]);
  }
}

// An alternate signal stack this thread installed, taken down when the thread ends.
struct SignalStack {
  void* memory = nullptr;
  std::size_t size = 0;
  ~SignalStack() {
    if (memory == nullptr) return;
    stack_t current{};
    if (::sigaltstack(nullptr, &current) == 0 && current.ss_sp == memory) {
      stack_t off{};
      off.ss_flags = SS_DISABLE;
      ::sigaltstack(&off, nullptr);
      ::munmap(memory, size);
    }
  }
};

}  // namespace

const std::string* call_node_name(const PluginCallRecord& record) {
  if (record.node != nullptr) return record.node;
  return record.node_info != nullptr ? &record.node_info->name() : nullptr;
}

void ensure_signal_stack() {
  if (detail::signal_stack_ready) return;
  detail::signal_stack_ready = true;
  thread_local SignalStack stack;
  stack_t current{};
  if (::sigaltstack(nullptr, &current) != 0 || (current.ss_flags & SS_DISABLE) == 0) return;
  const std::size_t size = std::size_t{64} * 1024;
  void* memory = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return;
  stack_t mine{};
  mine.ss_sp = memory;
  mine.ss_size = size;
  if (::sigaltstack(&mine, nullptr) != 0) {
    ::munmap(memory, size);
    return;
  }
  stack.memory = memory;
  stack.size = size;
}

void install_fatal_plugin_report() {
  static std::once_flag signals;
  std::call_once(signals, install_signal_handlers);
  ::on_exit(on_exit_called, nullptr);
  std::at_quick_exit(on_quick_exit_called);
}

}  // namespace schedhost::framework
