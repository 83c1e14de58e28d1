#include "cli/command_inputs.hpp"

#include <chrono>
#include <cmath>
#include <set>
#include <stdexcept>

#include "cluster/cluster_file.hpp"
#include "cluster/object_kinds.hpp"
#include "common/input_error.hpp"
#include "config/config_parser.hpp"
#include "config/profile_resolver.hpp"
#include "framework/fatal_plugin_report.hpp"
#include "loader/plugin_directories.hpp"

namespace schedhost::cli {

void add_feature_gates_flag(CLI::App* sub, std::string& value) {
  sub->add_option("--feature-gates", value,
                  "Upstream feature gates, as kube-scheduler takes them (Name=true,Other=false), "
                  "with v1.35's defaults: " +
                      config::known_feature_gates())
      ->option_text("GATES");
}

void add_plugin_trust_flags(CLI::App* sub, loader::PluginTrust& trust) {
  sub->add_flag("--allow-insecure-plugins", trust.allow_insecure,
                "Load plugin files and directories that group or others may write to or that "
                "another user owns, and symlinks that leave their directory, with a warning each "
                "(default: refuse them)");
  sub->add_option("--plugin-digests", trust.digests_file,
                  "A sha256sum file (\"sha256  filename\" lines): load only the plugin files "
                  "whose SHA-256 it lists. Built-in plugins are checked only when listed")
      ->option_text("FILE");
  sub->add_option_function<double>(
         "--plugin-load-timeout",
         [&trust](double seconds) {
           trust.load_timeout = std::chrono::milliseconds(std::llround(seconds * 1000));
         },
         "Seconds a plugin library may take to load (its constructors and init()) in the probe "
         "child before it is refused (default 10)")
      ->check(CLI::Range(0.001, 3600.0))
      ->option_text("SECONDS");
}

void load_plugin_directories(loader::PluginRegistry& registry,
                             const std::vector<std::string>& plugin_dirs,
                             const loader::PluginTrust& trust, std::ostream& err) {
  // Warnings come out even when loading throws: an override that was used is never silent.
  struct PrintWarnings {
    const loader::PluginRegistry& registry;
    std::ostream& err;
    ~PrintWarnings() {
      for (const loader::LoadWarning& w : registry.warnings()) {
        err << "warning: " << w.path << ": " << w.message << '\n';
      }
    }
  } print{registry, err};
  // A plugin that crashes or exits in the host gets its line, from its init() on.
  framework::install_fatal_plugin_report();
  loader::PluginTrust with_probe = trust;
  with_probe.probe_program = "/proc/self/exe";  // `schedhost probe-plugins`
  registry.set_trust(with_probe);
  registry.load_directories(loader::plugin_directories(plugin_dirs));
  // Again, so that the host's exit handler runs before the destructors the libraries registered.
  framework::install_fatal_plugin_report();
}

bool load_plugins(loader::PluginRegistry& registry, const std::vector<std::string>& plugin_dirs,
                  const loader::PluginTrust& trust, std::ostream& err) {
  load_plugin_directories(registry, plugin_dirs, trust, err);
  for (const loader::LoadFailure& f : registry.failures()) {
    err << "error: " << f.path << ": " << f.message << '\n';
  }
  return registry.failures().empty();
}

config::PluginCatalog plugin_catalog(const loader::PluginRegistry& registry) {
  config::PluginCatalog catalog;
  for (const loader::PluginDefinition* plugin : registry.plugins()) {
    catalog.emplace(plugin->name, plugin->points);
  }
  return catalog;
}

config::PluginOrigins plugin_origins(const loader::PluginRegistry& registry) {
  config::PluginOrigins origins;
  origins.searched = registry.searched();
  for (const loader::PluginDefinition* plugin : registry.plugins()) {
    origins.files.emplace(plugin->name, plugin->library->path);
  }
  return origins;
}

std::string not_installed(const loader::PluginRegistry& registry, std::string_view name,
                          std::string_view fix) {
  return not_installed_message(name, registry.names(), registry.searched(), fix);
}

config::SchedulerConfiguration load_profiles(const std::string& path,
                                             const loader::PluginRegistry& registry,
                                             std::ostream& err) {
  config::Resolution resolution = config::resolve_profiles(
      config::load_configuration(path), plugin_catalog(registry), plugin_origins(registry));
  for (const std::string& warning : resolution.warnings) {
    err << "warning: " << warning << '\n';
  }
  declare_plugin_resources(resolution.configuration, registry);
  return std::move(resolution.configuration);
}

void declare_plugin_resources(const loader::PluginDefinition& plugin) {
  for (const library_rules::ResourceDecl& resource : plugin.resources) {
    try {
      cluster::declare_object_kind(resource, plugin.name);
    } catch (const std::invalid_argument& e) {
      throw InputError(e.what());
    }
  }
}

void declare_plugin_resources(const config::SchedulerConfiguration& configuration,
                              const loader::PluginRegistry& registry) {
  std::set<std::string, std::less<>> seen;
  for (const config::Profile& profile : configuration.profiles) {
    for (const std::vector<config::EnabledPlugin>& point : profile.enabled) {
      for (const config::EnabledPlugin& enabled : point) {
        if (!seen.insert(enabled.name).second) continue;
        if (const loader::PluginDefinition* plugin = registry.find(enabled.name)) {
          declare_plugin_resources(*plugin);
        }
      }
    }
  }
}

cluster::Cluster load_cluster(const std::string& path, std::ostream& err) {
  return load_cluster(cluster::ClusterReading(path), err);
}

cluster::Cluster load_cluster(cluster::ClusterReading reading, std::ostream& err) {
  cluster::Cluster cluster = std::move(reading).build();
  for (const std::string& warning : cluster.warnings) {
    err << "warning: " << warning << '\n';
  }
  return cluster;
}

}  // namespace schedhost::cli
