#include "live/hook_watchdog.hpp"

#include <algorithm>
#include <set>

#include "framework/hook_activity.hpp"
#include "loader/plugin_definition.hpp"

namespace schedhost::live {

bool must_not_block(std::string_view hook) {
  return hook != "PreBind" && hook != "Bind" && hook != "PostBind" && hook != "Unreserve";
}

HookWatchdog::HookWatchdog(std::chrono::milliseconds bound,
                           std::function<void(const OverdueHook&)> on_overdue)
    : bound_(bound), on_overdue_(std::move(on_overdue)), thread_([this] { watch(); }) {}

HookWatchdog::~HookWatchdog() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

std::optional<std::string> HookWatchdog::stuck() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return stuck_;
}

void HookWatchdog::watch() {
  // A quarter of the bound between looks (a stuck call is found within 1.25 bounds), within
  // 10 ms and 1 s.
  const auto period = std::clamp<std::chrono::milliseconds>(
      bound_ / 4, std::chrono::milliseconds(10), std::chrono::seconds(1));
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, period, [this] { return stopping_; })) {
    lock.unlock();
    look(std::chrono::steady_clock::now());
    lock.lock();
  }
}

void HookWatchdog::look(std::chrono::steady_clock::time_point now) {
  std::optional<std::string> longest;
  std::chrono::milliseconds longest_for{0};
  std::set<std::size_t> busy;
  for (const framework::HookActivity::Running& r : framework::HookActivity::running()) {
    if (!must_not_block(r.hook)) continue;
    busy.insert(r.thread);
    Seen& seen = seen_[r.thread];
    if (seen.call != r.call || seen.since == std::chrono::steady_clock::time_point{}) {
      seen = {r.call, now, false};
      continue;
    }
    const auto running = std::chrono::duration_cast<std::chrono::milliseconds>(now - seen.since);
    if (running < bound_) continue;
    if (!seen.reported) {
      seen.reported = true;
      on_overdue_({r.plugin->name, r.hook, running});
    }
    if (running > longest_for) {
      longest_for = running;
      longest = "plugin \"" + r.plugin->name + "\"'s " + r.hook + " has run for " +
                std::to_string(running.count() / 1000) + "s";
    }
  }
  std::erase_if(seen_, [&busy](const auto& entry) { return !busy.contains(entry.first); });
  const std::lock_guard<std::mutex> lock(mutex_);
  stuck_ = std::move(longest);
}

}  // namespace schedhost::live
