#include "framework/plugin_call_record.hpp"

#include "cluster/pod.hpp"
#include "framework/fatal_plugin_report.hpp"
#include "loader/plugin_definition.hpp"

namespace schedhost::framework {
namespace {

// Initial-exec TLS in the executable: reading it is async-signal-safe.
thread_local PluginCallRecord current;

}  // namespace

const PluginCallRecord& current_plugin_call() {
  return current;
}

PluginCallScope::PluginCallScope(const PluginCallRecord& record) : saved_(current) {
  ensure_signal_stack();
  current = record;
}

PluginCallScope::PluginCallScope(const loader::PluginDefinition& plugin, const CallSite& site)
    : saved_(current) {
  ensure_signal_stack();
  PluginCallRecord r;
  r.hook = site.hook;
  r.plugin = plugin.name.c_str();
  if (const loader::LoadedLibrary* lib = plugin.library; lib != nullptr) {
    r.file = lib->path.c_str();
    r.library = lib->name.c_str();
    r.version = lib->version.c_str();
  }
  if (site.pod != nullptr) {
    r.pod_namespace = site.pod->namespace_name().c_str();
    r.pod_name = site.pod->name().c_str();
  }
  if (site.node != nullptr) r.node = site.node->c_str();
  current = r;
}

PluginCallScope::~PluginCallScope() {
  current = saved_;
}

}  // namespace schedhost::framework
