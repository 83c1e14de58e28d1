// serve's hook watchdog (live/hook_watchdog.hpp) over threads that sit in a hook, as a plugin
// that sleeps or loops would leave them: one report per stuck call of the scheduling cycle, none
// for the binding cycle's hooks, and a /livez reason only while the call lasts.
#include "live/hook_watchdog.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "framework/hook_activity.hpp"
#include "loader/plugin_definition.hpp"

namespace schedhost::hook_watchdog_test {

using namespace std::chrono_literals;

// Reports as the watchdog's thread makes them.
struct Reports {
  std::vector<live::OverdueHook> list;
  std::mutex mutex;
  // The watchdog's callback, adding to this list.
  std::function<void(const live::OverdueHook&)> recorder() {
    return [this](const live::OverdueHook& h) {
      const std::lock_guard<std::mutex> lock(mutex);
      list.push_back(h);
    };
  }
  std::vector<live::OverdueHook> taken() {
    const std::lock_guard<std::mutex> lock(mutex);
    return list;
  }
};

// A thread that stays in plugin's hook for `hold`, as a hook that sleeps.
std::thread stay_in(const loader::PluginDefinition& plugin, const char* hook,
                    std::chrono::milliseconds hold) {
  return std::thread([&plugin, hook, hold] {
    const framework::HookActivity::Scope scope(plugin, hook);
    std::this_thread::sleep_for(hold);
  });
}

TEST(HookWatchdog, AStuckFilterIsReportedOnceAndFailsLivezWhileItLasts) {
  loader::PluginDefinition sleepy;
  sleepy.name = "Sleepy";
  Reports reports;
  live::HookWatchdog watchdog(100ms, reports.recorder());
  EXPECT_EQ(watchdog.stuck(), std::nullopt);
  std::thread filter = stay_in(sleepy, "Filter", 700ms);
  std::this_thread::sleep_for(450ms);
  const std::optional<std::string> stuck = watchdog.stuck();
  ASSERT_TRUE(stuck.has_value());
  EXPECT_EQ(stuck->rfind("plugin \"Sleepy\"'s Filter has run for ", 0), 0u) << *stuck;
  filter.join();
  std::this_thread::sleep_for(150ms);
  EXPECT_EQ(watchdog.stuck(), std::nullopt);
  const std::vector<live::OverdueHook> seen = reports.taken();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].plugin, "Sleepy");
  EXPECT_EQ(seen[0].hook, "Filter");
  EXPECT_GE(seen[0].running, 100ms);
}

TEST(HookWatchdog, BindingHooksMayBlockAndShortHooksAreNotReported) {
  loader::PluginDefinition binder;
  binder.name = "SlowBinder";
  Reports reports;
  live::HookWatchdog watchdog(100ms, reports.recorder());
  std::vector<std::thread> threads;
  for (const char* hook : {"PreBind", "Bind", "PostBind", "Unreserve"})
    threads.push_back(stay_in(binder, hook, 400ms));
  // Many short Filter calls on one thread: each is a new call, none lasts the bound.
  threads.emplace_back([&binder] {
    for (int i = 0; i < 40; ++i) {
      const framework::HookActivity::Scope scope(binder, "Filter");
      std::this_thread::sleep_for(10ms);
    }
  });
  for (std::thread& t : threads)
    t.join();
  EXPECT_TRUE(reports.taken().empty());
  EXPECT_EQ(watchdog.stuck(), std::nullopt);
}

// A PostFilter plugin's dry runs call Filter from inside PostFilter: the stuck inner call is
// named, and the outer hook is the thread's current one again after it.
TEST(HookWatchdog, NestedCallsNameTheInnermostHook) {
  loader::PluginDefinition outer;
  outer.name = "Preempter";
  loader::PluginDefinition inner;
  inner.name = "Sleepy";
  Reports reports;
  live::HookWatchdog watchdog(100ms, reports.recorder());
  std::thread post_filter([&] {
    const framework::HookActivity::Scope scope(outer, "PostFilter");
    {
      const framework::HookActivity::Scope dry_run(inner, "Filter");
      std::this_thread::sleep_for(400ms);
    }
    bool outer_current = false;
    for (const framework::HookActivity::Running& r : framework::HookActivity::running())
      outer_current = outer_current || (r.plugin == &outer && std::string(r.hook) == "PostFilter");
    EXPECT_TRUE(outer_current);
  });
  post_filter.join();
  const std::vector<live::OverdueHook> seen = reports.taken();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].plugin, "Sleepy");
  EXPECT_EQ(seen[0].hook, "Filter");
}

}  // namespace schedhost::hook_watchdog_test
