// HookLoop: the bookkeeping of a loop of calls of one hook on one node (Filter, plugin after
// plugin), set up once for the loop instead of once per call.
#pragma once

#include <chrono>

#include "framework/hook_activity.hpp"
#include "framework/plugin_call_record.hpp"

namespace schedhost::framework {

// What HookActivity::Scope and PluginCallScope do around each call (the watchdog's view, the
// bench's call count, the crash report's record), for a loop: the thread's slot and record are
// set up by the first plugin and pointed at each next one by enter(). Per call they were 8 % of a
// 5000-node replay. Host code between two calls counts as the plugin before, as host code inside
// a call's scope always did.
class HookLoop {
 public:
  HookLoop(const loader::PluginDefinition& first, const CallSite& site)
      : activity_(site.hook), record_(first, site) {}

  // The next call of the hook, into plugin.
  void enter(const loader::PluginDefinition& plugin) {
    activity_.enter(plugin);
    record_.switch_to(plugin);
  }

  // The clock of a timed loop (a sampled cycle): a call starts when the one before it ended, so
  // each call costs one clock read instead of two. On 5000 nodes the reads were a tenth of the
  // scheduling thread's time. The host's bookkeeping between two calls (tens of nanoseconds, the
  // histogram's first bucket is 10 µs) counts as the next call's.
  using Clock = std::chrono::steady_clock;
  Clock::time_point lap_start() {
    if (lap_ == Clock::time_point{}) lap_ = Clock::now();
    return lap_;
  }
  Clock::time_point lap_end() { return lap_ = Clock::now(); }

 private:
  HookActivity::Loop activity_;
  PluginCallScope record_;
  Clock::time_point lap_{};
};

}  // namespace schedhost::framework
