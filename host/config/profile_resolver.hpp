// From a parsed configuration and the installed plugins to the plugins each profile runs, per
// extension point, in order: defaults merged with the user's plugins, multiPoint expanded, every
// reference checked. Upstream does this in SetDefaults + ValidateKubeSchedulerConfiguration +
// NewFramework; schedhost does it before creating any plugin instance, so a bad profile fails fast.
#pragma once

#include <string>
#include <vector>

#include "config/plugin_catalog.hpp"
#include "config/scheduler_configuration.hpp"

namespace schedhost::config {

struct Resolution {
  SchedulerConfiguration configuration;  // every profile's `enabled` filled in
  // One line each, in file order per profile: a default plugin that is not installed (skipped),
  // a plugin the user enabled in multiPoint that ends up at no extension point, a pluginConfig
  // entry for a plugin the profile does not enable (ignored).
  std::vector<std::string> warnings;
};

// Throws InputError (one line, file:line:column when known) at the first problem: any check of
// validate_configuration(); a plugin the user names that is not installed; a plugin at a point it
// does not implement; a plugin twice at one point; not exactly one queueSort plugin; no bind
// plugin; a different queueSort plugin (or its args) between profiles; an overflowing score total.
// Plugin args are not checked here: each plugin validates its own when it is created.
// origins (optional) lets the messages name the directories searched and the plugins' files.
Resolution resolve_profiles(SchedulerConfiguration configuration, const PluginCatalog& catalog,
                            const PluginOrigins& origins = {});

}  // namespace schedhost::config
