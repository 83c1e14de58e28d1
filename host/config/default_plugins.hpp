// Upstream's default plugin set for v1beta3 (kube-scheduler 1.28, getDefaultPlugins with the
// PodSchedulingReadiness gate on, as it is by default). v1 in 1.28 has the same list.
#pragma once

#include "config/plugin_set.hpp"

namespace schedhost::config {

// Only multiPoint is non-empty; every entry has is_default set and no location.
const PluginSets& default_plugins();

}  // namespace schedhost::config
