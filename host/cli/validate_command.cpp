// schedhost validate: checks a configuration against the installed plugins, as `run` would use it,
// without scheduling anything: every profile resolves, and every enabled plugin accepts its args.
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cli/command_inputs.hpp"
#include "cli/commands.hpp"
#include "cluster/cluster_file.hpp"
#include "common/input_error.hpp"
#include "config/config_extension_point.hpp"
#include "framework/plugin_instance.hpp"

namespace schedhost::cli {
namespace {

struct ValidateOptions {
  std::string config;
  std::vector<std::string> plugin_dirs;
  loader::PluginTrust trust;  // --allow-insecure-plugins, --plugin-digests
  std::string cluster;
};

// Where to point the user when a plugin refuses its args: its pluginConfig entry, else where the
// profile enables it, else the profile.
config::SourceLocation args_location(const config::Profile& profile,
                                     const config::EnabledPlugin& plugin) {
  if (auto it = profile.plugin_config_locations.find(plugin.name);
      it != profile.plugin_config_locations.end()) {
    return it->second;
  }
  return plugin.location.known() ? plugin.location : profile.location;
}

// Creates (and destroys) each plugin every profile enables, once per profile, with that profile's
// args, as the scheduler does before the first pod. Prints one error line per refusal; returns
// whether every plugin accepted its args.
bool check_plugin_args(const config::SchedulerConfiguration& configuration,
                       const loader::PluginRegistry& registry) {
  bool ok = true;
  for (const config::Profile& profile : configuration.profiles) {
    std::set<std::string, std::less<>> created;
    for (const auto& plugins : profile.enabled) {
      for (const config::EnabledPlugin& plugin : plugins) {
        if (!created.insert(plugin.name).second) continue;
        const loader::PluginDefinition* definition = registry.find(plugin.name);
        if (definition == nullptr) continue;  // resolve_profiles() only keeps installed plugins
        const std::string args =
            profile.args_for(plugin.name)
                .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        try {
          // The instance is destroyed right away: only the plugin's verdict on its args matters.
          framework::PluginInstance::create(*definition, args);
        } catch (const InputError& e) {
          std::cerr << "error: " << args_location(profile, plugin).to_string() << ": " << e.what()
                    << '\n';
          ok = false;
        }
      }
    }
  }
  return ok;
}

// `profile "default-scheduler": queueSort: PrioritySort; filter: A, B; score: C (weight 2); ...`:
// the plugins of each configurable point that has any, in the order they run.
std::string profile_summary(const config::Profile& profile) {
  std::string points;
  for (const config::ConfigExtensionPoint point : config::kConcreteConfigExtensionPoints) {
    const ExtensionPoint cycle_point = *config::to_extension_point(point);
    const std::vector<config::EnabledPlugin>& plugins = profile.enabled_at(cycle_point);
    if (plugins.empty()) continue;
    std::string names;
    for (const config::EnabledPlugin& plugin : plugins) {
      names += (names.empty() ? "" : ", ") + plugin.name;
      if (cycle_point == ExtensionPoint::Score) {
        names += " (weight " + std::to_string(plugin.weight) + ")";
      }
    }
    points += (points.empty() ? "" : "; ") + std::string(config::field_name(point)) + ": " + names;
  }
  return "profile \"" + profile.scheduler_name + "\": " + points;
}

int run(const ValidateOptions& options) {
  loader::PluginRegistry registry;
  if (!load_plugins(registry, options.plugin_dirs, options.trust, std::cerr)) return kExitBadInput;
  const config::SchedulerConfiguration configuration =
      load_profiles(options.config, registry, std::cerr);
  if (!check_plugin_args(configuration, registry)) return kExitBadInput;

  std::vector<std::string> unserved;
  if (!options.cluster.empty()) {
    const cluster::Cluster cluster = cluster::load_cluster(options.cluster);
    for (const auto& pod : cluster.pending_pods) {
      if (configuration.find_profile(pod->scheduler_name()) == nullptr) {
        unserved.push_back("pod \"" + pod->key() + "\" asks for schedulerName \"" +
                           pod->scheduler_name() + "\", which no profile serves");
      }
    }
  }

  for (const config::Profile& profile : configuration.profiles) {
    std::cout << profile_summary(profile) << '\n';
  }
  for (const std::string& warning : unserved) {
    std::cerr << "warning: " << warning << '\n';
  }
  return kExitOk;
}

}  // namespace

Subcommand add_validate_command(CLI::App& app) {
  auto options = std::make_shared<ValidateOptions>();
  CLI::App* sub = app.add_subcommand(
      "validate",
      "Check a configuration against the installed plugins (and a cluster's schedulerNames) "
      "without scheduling");
  sub->add_option("--config", options->config, "The KubeSchedulerConfiguration file")->required();
  sub->add_option("--plugin-dir", options->plugin_dirs,
                  "A directory of plugin .so files (repeatable; default /plugins). The built-in "
                  "directory is always searched first");
  add_plugin_trust_flags(sub, options->trust);
  sub->add_option("--cluster", options->cluster,
                  "A cluster file or directory: warn about pending pods no profile serves");
  return {sub, [options] { return run(*options); }};
}

}  // namespace schedhost::cli
