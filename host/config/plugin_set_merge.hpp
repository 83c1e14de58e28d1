// Merging a profile's `plugins:` into the default set, exactly as upstream's mergePlugins /
// mergePluginSet do it (spec §1.4). MultiPoint expansion happens later, per installed plugin.
#pragma once

#include <optional>

#include "config/plugin_set.hpp"

namespace schedhost::config {

// One extension point: disabled = custom's then default's (names only); enabled = the defaults not
// disabled (none if "*" is disabled), each replaced in place by a custom entry of the same name,
// then the remaining custom entries in their order. Duplicates are kept for validation to report.
PluginSet merge_plugin_set(const PluginSet& defaults, const PluginSet& custom);

// Every point, multiPoint included. No custom plugins (nullopt) leaves the defaults unchanged.
PluginSets merge_plugins(const PluginSets& defaults, const std::optional<PluginSets>& custom);

}  // namespace schedhost::config
