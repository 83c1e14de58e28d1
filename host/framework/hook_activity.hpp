// HookActivity: how many plugin hooks each thread has run, and which one it is in now. The
// benchmarks read the totals ("plugin calls per pod"); serve's watchdog (live/hook_watchdog.hpp)
// reads the current hooks to find one that has run too long. Each thread writes only its own
// slot (relaxed stores, a cache line of its own, no locked instruction), so the Filter/Score
// threads share nothing; readers take a racy but safe look: a slot holds pointers to plugin
// definitions and string literals, which live as long as the process's plugins.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <string_view>
#include <vector>

namespace schedhost::loader {
struct PluginDefinition;
}

namespace schedhost::framework {

class HookActivity {
  struct Slot;

 public:
  // One hook invocation on this thread, for its lifetime. Nests: a PostFilter plugin's dry runs
  // call Filter plugins from inside PostFilter, and the outer hook is current again after them.
  class Scope {
   public:
    Scope(const loader::PluginDefinition& plugin, const char* hook);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    const loader::PluginDefinition* outer_plugin_;
    const char* outer_hook_;
  };

  // A run of one hook over several plugins on this thread (Filter on one node, plugin after
  // plugin), set up once and pointed at each plugin by enter(): two stores per call, where Scope
  // finds the thread's slot and saves and restores it around every call (the per-call scopes
  // were 8 % of a 5000-node replay). Between enter()s the thread still names the plugin before:
  // for the watchdog, a few host instructions more.
  class Loop {
   public:
    explicit Loop(const char* hook);
    ~Loop();
    Loop(const Loop&) = delete;
    Loop& operator=(const Loop&) = delete;
    // The next call of the hook, into plugin.
    void enter(const loader::PluginDefinition& plugin) {
      slot_.calls.store(slot_.calls.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
      slot_.plugin.store(&plugin, std::memory_order_release);
    }

   private:
    Slot& slot_;
    const loader::PluginDefinition* outer_plugin_;
    const char* outer_hook_;
  };

  // A hook some thread is in now. `call` numbers the thread's invocations: the same thread and
  // call seen twice is the same invocation, still running.
  struct Running {
    std::size_t thread = 0;
    std::uint64_t call = 0;
    const loader::PluginDefinition* plugin = nullptr;
    const char* hook = nullptr;
  };

  // Invocations so far, on every thread. Exact once the counting threads have finished their
  // calls (as after a scheduling run returns).
  static std::uint64_t total_calls();
  // The hooks running now, one per thread that is in one (its innermost). [any thread]
  static std::vector<Running> running();
  // The hook the calling thread is in ("Filter"), "" when none: for messages about it.
  static std::string_view current_hook() {
    const char* hook = own_slot().hook.load(std::memory_order_relaxed);
    return hook == nullptr ? std::string_view() : std::string_view(hook);
  }

 private:
  struct alignas(64) Slot {
    std::atomic<std::uint64_t> calls{0};
    std::atomic<const loader::PluginDefinition*> plugin{nullptr};
    std::atomic<const char*> hook{nullptr};
  };
  // The calling thread's slot, made on its first hook and kept until the process ends.
  static Slot& own_slot() {
    thread_local Slot* slot = nullptr;
    if (slot == nullptr) slot = add_thread();
    return *slot;
  }
  static Slot* add_thread();
  // Every thread's slot (a deque never moves its elements).
  static std::deque<Slot>& slots();
};

inline HookActivity::Scope::Scope(const loader::PluginDefinition& plugin, const char* hook) {
  Slot& s = own_slot();
  outer_plugin_ = s.plugin.load(std::memory_order_relaxed);
  outer_hook_ = s.hook.load(std::memory_order_relaxed);
  s.calls.store(s.calls.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  s.hook.store(hook, std::memory_order_relaxed);
  // Release: a reader that sees this plugin sees the call number and hook stored before it.
  s.plugin.store(&plugin, std::memory_order_release);
}

inline HookActivity::Loop::Loop(const char* hook) : slot_(own_slot()) {
  outer_plugin_ = slot_.plugin.load(std::memory_order_relaxed);
  outer_hook_ = slot_.hook.load(std::memory_order_relaxed);
  slot_.hook.store(hook, std::memory_order_relaxed);
}

inline HookActivity::Loop::~Loop() {
  slot_.plugin.store(outer_plugin_, std::memory_order_relaxed);
  slot_.hook.store(outer_hook_, std::memory_order_relaxed);
}

inline HookActivity::Scope::~Scope() {
  Slot& s = own_slot();
  s.plugin.store(outer_plugin_, std::memory_order_relaxed);
  s.hook.store(outer_hook_, std::memory_order_relaxed);
}

}  // namespace schedhost::framework
