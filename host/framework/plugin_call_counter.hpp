// PluginCallCounter: how many plugin hooks this process has run, for the benchmarks' "plugin
// calls per pod". Each thread counts on its own counter (a relaxed load and store, no locked
// instruction and no cache line shared with the other Filter/Score threads); total() adds
// them up, including those of threads that have ended.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>

namespace schedhost::framework {

class PluginCallCounter {
 public:
  // One hook invocation on this thread.
  static void count() {
    thread_local Slot* slot = nullptr;
    if (slot == nullptr) slot = add_thread();
    slot->calls.store(slot->calls.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  // Invocations so far, on every thread. Exact once the counting threads have finished their
  // calls (as after a scheduling run returns).
  static std::uint64_t total();

 private:
  // A cache line each: threads counting on neighbouring slots would otherwise take the line
  // from each other on every call.
  struct alignas(64) Slot {
    std::atomic<std::uint64_t> calls{0};
  };
  // A new slot for the calling thread, kept until the process ends.
  static Slot* add_thread();
  // Every thread's slot (a deque never moves its elements).
  static std::deque<Slot>& slots();
};

}  // namespace schedhost::framework
