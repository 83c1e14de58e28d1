// PluginHost: the host as one library or plugin instance sees it (schedhost_host_t). It names
// the plugin in everything the host prints on its behalf.
#pragma once

#include <schedhost/abi.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "config/feature_gates.hpp"

namespace schedhost::framework {

struct PluginHost {
  std::string name;  // "plugin \"Name\"" or "library \"name\" (path)": the log prefix
  // The metrics this plugin declared (ABI 1.9), name -> PluginMetrics id, which metric_id
  // answers from: filled before create(), read-only after, so any thread may read it. Empty for
  // a library's host, which has no plugin.
  std::vector<std::pair<std::string, std::int32_t>> metric_ids{};

  const schedhost_host_t* handle() const { return reinterpret_cast<const schedhost_host_t*>(this); }
  static const PluginHost& from(const schedhost_host_t* h) {
    return *reinterpret_cast<const PluginHost*>(h);
  }
};

// The host API table every plugin receives: static, valid for the life of the process.
const schedhost_host_api_t* host_api();

// The feature gates plugins see through feature_enabled (ABI 1.8): set once by the command,
// from --feature-gates, before any plugin is loaded; the v1.35 defaults until then.
void set_plugin_feature_gates(const config::FeatureGates& gates);

// Makes host_api() look like the table of an older 1.x host (struct_size and abi_minor of that
// minor: later functions read as absent), to test plugins' fallbacks end to end
// (SCHEDHOST_EMULATE_ABI_MINOR). Call before any plugin is loaded. False for a minor newer than
// this host's.
bool emulate_host_abi_minor(uint32_t minor);

}  // namespace schedhost::framework
