// Turning a profile's merged PluginSets into the plugins that run at each cycle point, as
// upstream's framework does at construction (updatePluginList + expandMultiPointPlugins, spec
// §1.4): a multiPoint plugin joins every point it implements unless that point disables it (or
// "*"); a plugin also listed at the point itself overrides it and moves to the front.
#pragma once

#include <array>
#include <vector>

#include "config/plugin_catalog.hpp"
#include "config/plugin_set.hpp"
#include "framework/extension_point.hpp"

namespace schedhost::config {

// Indexed by ExtensionPoint; only the points a config can name are filled.
using ExpandedPlugins = std::array<std::vector<PluginReference>, kExtensionPointCount>;

// Per point: [explicit entries that override a multiPoint plugin, in explicit order] +
// [multiPoint plugins, in multiPoint order] + [other explicit entries, in their order].
// Every enabled plugin must be in the catalog (the resolver checks that first). Throws InputError
// for a plugin listed at a point it does not implement, or enabled twice at one point.
ExpandedPlugins expand_plugins(const PluginSets& merged, const PluginCatalog& catalog);

}  // namespace schedhost::config
