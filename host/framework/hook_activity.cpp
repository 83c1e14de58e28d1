#include "framework/hook_activity.hpp"

#include <mutex>

namespace schedhost::framework {
namespace {

std::mutex& slots_mutex() {
  static std::mutex mutex;
  return mutex;
}

}  // namespace

std::deque<HookActivity::Slot>& HookActivity::slots() {
  // Never destroyed: a thread may still run a hook while static destructors run at exit.
  static auto* all = new std::deque<Slot>();
  return *all;
}

HookActivity::Slot* HookActivity::add_thread() {
  const std::lock_guard<std::mutex> lock(slots_mutex());
  return &slots().emplace_back();
}

std::uint64_t HookActivity::total_calls() {
  const std::lock_guard<std::mutex> lock(slots_mutex());
  std::uint64_t sum = 0;
  for (const Slot& s : slots())
    sum += s.calls.load(std::memory_order_relaxed);
  return sum;
}

std::vector<HookActivity::Running> HookActivity::running() {
  const std::lock_guard<std::mutex> lock(slots_mutex());
  std::vector<Running> now;
  std::size_t thread = 0;
  for (const Slot& s : slots()) {
    // The thread may move on while it is read: a look whose call number changed is skipped.
    const std::uint64_t call = s.calls.load(std::memory_order_acquire);
    const loader::PluginDefinition* plugin = s.plugin.load(std::memory_order_acquire);
    const char* hook = s.hook.load(std::memory_order_relaxed);
    if (plugin != nullptr && s.calls.load(std::memory_order_relaxed) == call)
      now.push_back({thread, call, plugin, hook});
    ++thread;
  }
  return now;
}

}  // namespace schedhost::framework
