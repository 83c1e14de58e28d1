#include "framework/plugin_call_counter.hpp"

#include <mutex>

namespace schedhost::framework {
namespace {

std::mutex& slots_mutex() {
  static std::mutex mutex;
  return mutex;
}

}  // namespace

std::deque<PluginCallCounter::Slot>& PluginCallCounter::slots() {
  // Never destroyed: a thread may still count while static destructors run at exit.
  static auto* all = new std::deque<Slot>();
  return *all;
}

PluginCallCounter::Slot* PluginCallCounter::add_thread() {
  const std::lock_guard<std::mutex> lock(slots_mutex());
  return &slots().emplace_back();
}

std::uint64_t PluginCallCounter::total() {
  const std::lock_guard<std::mutex> lock(slots_mutex());
  std::uint64_t sum = 0;
  for (const Slot& s : slots())
    sum += s.calls.load(std::memory_order_relaxed);
  return sum;
}

}  // namespace schedhost::framework
