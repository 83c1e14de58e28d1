// HookWatchdog: finds a plugin hook of the scheduling cycle that has run longer than a bound.
// Upstream expects PreEnqueue through Permit not to block (only the binding cycle's PreBind, Bind
// and PostBind, and Unreserve, may wait on the API server); one that does holds every pod behind
// it. The host cannot stop code it runs in its own process, so it says so: one warning and one
// `timeout` fault per stuck call, and a failing /livez check while the call lasts, so the
// kubelet restarts a scheduler that can no longer schedule.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

namespace schedhost::live {

// Whether a hook (framework/CallSite's name) must not block: false for the binding cycle's.
bool must_not_block(std::string_view hook);

struct OverdueHook {
  std::string plugin;
  std::string hook;
  std::chrono::milliseconds running{0};  // when it was found, at least the bound
};

class HookWatchdog {
 public:
  // on_overdue runs on the watchdog's thread, once per stuck call.
  HookWatchdog(std::chrono::milliseconds bound, std::function<void(const OverdueHook&)> on_overdue);
  ~HookWatchdog();
  HookWatchdog(const HookWatchdog&) = delete;
  HookWatchdog& operator=(const HookWatchdog&) = delete;

  // "plugin "X"'s Filter has run for 12s" for the longest stuck call now, or nullopt. [any thread]
  std::optional<std::string> stuck() const;

 private:
  // One thread's current call, as the watchdog last saw it.
  struct Seen {
    std::uint64_t call = 0;
    std::chrono::steady_clock::time_point since;
    bool reported = false;
  };
  void watch();
  void look(std::chrono::steady_clock::time_point now);

  const std::chrono::milliseconds bound_;
  const std::function<void(const OverdueHook&)> on_overdue_;
  std::map<std::size_t, Seen> seen_;  // by HookActivity's thread number; watchdog thread only
  mutable std::mutex mutex_;          // guards stuck_ and stopping_
  std::optional<std::string> stuck_;
  bool stopping_ = false;
  std::condition_variable wake_;
  std::thread thread_;
};

}  // namespace schedhost::live
