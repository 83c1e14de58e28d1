// Which plugin code this thread is running, for the one line the host writes if that code
// crashes or exits (framework/fatal_plugin_report.hpp). Set around every call into a plugin, so
// it must cost next to nothing: the record is a few pointers on the caller's stack, and a
// thread-local pointer names the innermost one (no lock, no copy of a string), which the signal
// handler can read.
#pragma once

#include <string>

namespace schedhost::cluster {
class NodeInfo;
class Pod;
}  // namespace schedhost::cluster

namespace schedhost::loader {
struct PluginDefinition;
}  // namespace schedhost::loader

namespace schedhost::framework {

struct PluginCallRecord {
  const char* hook = nullptr;                        // "Filter", "init()", ...
  const loader::PluginDefinition* plugin = nullptr;  // nullptr for a library-wide call
  const std::string* file = nullptr;                 // a library-wide call's library path
  const cluster::Pod* pod = nullptr;                 // the pod and node the hook is given, if any
  const std::string* node = nullptr;
  // Filter and Score name their node by its NodeInfo, whose name is read only when asked for:
  // reading it per call was a cache miss per node (3 % of a 5000-node replay).
  const cluster::NodeInfo* node_info = nullptr;
};

// The node a call record names (node, else node_info's name), or nullptr. Reads memory only:
// safe in the signal handler.
const std::string* call_node_name(const PluginCallRecord& record);

// A hook about to be called: its name, and the pod and node it is given, if any.
struct CallSite {
  const char* hook;
  const cluster::Pod* pod = nullptr;
  const std::string* node = nullptr;
  const cluster::NodeInfo* node_info = nullptr;  // instead of node, for Filter and Score
};

namespace detail {
inline thread_local const PluginCallRecord* current_call = nullptr;
inline thread_local bool signal_stack_ready = false;
}  // namespace detail

// Gives this thread an alternate signal stack if it has none (fatal_plugin_report.cpp), so that a
// plugin's stack overflow still gets its line.
void ensure_signal_stack();

// The innermost plugin call in progress on this thread; nullptr outside plugin code.
inline const PluginCallRecord* current_plugin_call() {
  return detail::current_call;
}

// Marks this thread as inside plugin code for its lifetime, and then restores the outer call (a
// PostFilter plugin's dry runs call Filter plugins from inside PostFilter).
class PluginCallScope {
 public:
  // A library-wide call, or a record kept from earlier (a cycle-state value's owner).
  explicit PluginCallScope(const PluginCallRecord& record) : record_(record) { enter(); }
  // A hook of a loaded plugin.
  PluginCallScope(const loader::PluginDefinition& plugin, const CallSite& site)
      : record_{site.hook, &plugin, nullptr, site.pod, site.node, site.node_info} {
    enter();
  }
  ~PluginCallScope() { detail::current_call = previous_; }
  // For a loop of calls of one hook (HookActivity::Loop): the plugin called next. The signal
  // handler reads the record on this thread, and the call into the plugin comes after this
  // store, so no fence is needed.
  void switch_to(const loader::PluginDefinition& plugin) { record_.plugin = &plugin; }
  PluginCallScope(const PluginCallScope&) = delete;
  PluginCallScope& operator=(const PluginCallScope&) = delete;

 private:
  void enter() {
    if (!detail::signal_stack_ready) ensure_signal_stack();
    previous_ = detail::current_call;
    detail::current_call = &record_;
  }

  PluginCallRecord record_;
  const PluginCallRecord* previous_ = nullptr;
};

}  // namespace schedhost::framework
