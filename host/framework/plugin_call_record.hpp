// Which plugin code this thread is running, for the one line the host writes if that code
// crashes or exits (framework/fatal_plugin_report.hpp). Set around every call into a plugin;
// thread-local and lock-free, so it costs a few stores per call and the signal handler can read
// it. Only pointers to strings that outlive the call: nothing is copied.
#pragma once

#include <string>

namespace schedhost::cluster {
class Pod;
}

namespace schedhost::loader {
struct LoadedLibrary;
struct PluginDefinition;
}  // namespace schedhost::loader

namespace schedhost::framework {

struct PluginCallRecord {
  const char* hook = nullptr;     // "Filter", "init()", ...; nullptr: no plugin code running
  const char* plugin = nullptr;   // nullptr for a library-wide call (constructors, init())
  const char* file = nullptr;     // the library's path as found in its plugin directory
  const char* library = nullptr;  // its name and version, once known
  const char* version = nullptr;
  const char* pod_namespace = nullptr;  // the pod and node the hook is given, if any
  const char* pod_name = nullptr;
  const char* node = nullptr;
};

// A hook about to be called: its name, and the pod and node it is given, if any.
struct CallSite {
  const char* hook;
  const cluster::Pod* pod = nullptr;
  const std::string* node = nullptr;
};

// This thread's record; hook is nullptr outside plugin code.
const PluginCallRecord& current_plugin_call();

// Marks this thread as inside plugin code for its lifetime, and restores what was there before
// (a PostFilter plugin's dry runs call Filter plugins from inside PostFilter).
class PluginCallScope {
 public:
  explicit PluginCallScope(const PluginCallRecord& record);
  // A hook of a loaded plugin.
  PluginCallScope(const loader::PluginDefinition& plugin, const CallSite& site);
  ~PluginCallScope();
  PluginCallScope(const PluginCallScope&) = delete;
  PluginCallScope& operator=(const PluginCallScope&) = delete;

 private:
  PluginCallRecord saved_;
};

}  // namespace schedhost::framework
