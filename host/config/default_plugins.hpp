// Upstream's default plugin set for v1beta3 (kube-scheduler 1.28, getDefaultPlugins with the
// PodSchedulingReadiness gate on, as it is by default), minus the volume plugins, which schedhost
// does not support yet. v1 in 1.28 has the same list.
#pragma once

#include <string_view>

#include "config/plugin_set.hpp"

namespace schedhost::config {

// Only multiPoint is non-empty; every entry has is_default set and no location.
const PluginSets& default_plugins();

}  // namespace schedhost::config
