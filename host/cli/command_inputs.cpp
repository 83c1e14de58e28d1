#include "cli/command_inputs.hpp"

#include "config/config_parser.hpp"
#include "config/profile_resolver.hpp"
#include "loader/plugin_directories.hpp"

namespace schedhost::cli {

bool load_plugins(loader::PluginRegistry& registry, const std::vector<std::string>& plugin_dirs,
                  std::ostream& err) {
  registry.load_directories(loader::plugin_directories(plugin_dirs));
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

config::SchedulerConfiguration load_profiles(const std::string& path,
                                             const loader::PluginRegistry& registry,
                                             std::ostream& err) {
  config::Resolution resolution =
      config::resolve_profiles(config::load_configuration(path), plugin_catalog(registry));
  for (const std::string& warning : resolution.warnings) {
    err << "warning: " << warning << '\n';
  }
  return std::move(resolution.configuration);
}

}  // namespace schedhost::cli
