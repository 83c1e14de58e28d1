// schedhost plugins: every plugin the plugin directories hold, and every library that failed.
#include <nlohmann/json.hpp>

#include <iostream>
#include <string>
#include <vector>

#include "cli/command_inputs.hpp"
#include "cli/commands.hpp"
#include "cli/table.hpp"
#include "loader/plugin_registry.hpp"

namespace schedhost::cli {
namespace {

struct PluginsOptions {
  std::vector<std::string> plugin_dirs;
  loader::PluginTrust trust;  // --allow-insecure-plugins, --plugin-digests
  std::string output = "table";
};

std::vector<std::string> point_names(const ExtensionPointSet& points) {
  std::vector<std::string> names;
  for (ExtensionPoint p : kAllExtensionPoints) {
    if (points.contains(p)) names.emplace_back(to_string(p));
  }
  return names;
}

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (const auto& p : parts)
    out += (out.empty() ? "" : sep) + p;
  return out;
}

std::string abi_version(const loader::LoadedLibrary& lib) {
  return std::to_string(lib.abi_major) + "." + std::to_string(lib.abi_minor);
}

nlohmann::json to_json(const loader::PluginRegistry& registry) {
  nlohmann::json plugins = nlohmann::json::array();
  for (const loader::PluginDefinition* p : registry.plugins()) {
    nlohmann::json entry = {{"name", p->name},
                            {"description", p->description},
                            {"file", p->library->path},
                            {"library", p->library->name},
                            {"version", p->library->version},
                            {"abi", abi_version(*p->library)},
                            {"extensionPoints", point_names(p->points)}};
    // What it declared (ABI 1.9), only when it did: the listing of older plugins is unchanged.
    if (!p->resources.empty()) {
      nlohmann::json resources = nlohmann::json::array();
      for (const library_rules::ResourceDecl& r : p->resources) {
        resources.push_back({{"resource", r.name()},
                             {"apiVersion", r.api_version()},
                             {"kind", r.kind},
                             {"namespaced", r.namespaced}});
      }
      entry["resources"] = std::move(resources);
    }
    if (!p->metrics.empty()) {
      nlohmann::json metrics = nlohmann::json::array();
      for (const library_rules::MetricDecl& m : p->metrics) {
        metrics.push_back({{"name", "schedhost_plugin_" + m.name},
                           {"type", m.kind == SCHEDHOST_METRIC_COUNTER ? "counter" : "histogram"},
                           {"help", m.help}});
      }
      entry["metrics"] = std::move(metrics);
    }
    plugins.push_back(std::move(entry));
  }
  nlohmann::json failed = nlohmann::json::array();
  for (const loader::LoadFailure& f : registry.failures()) {
    failed.push_back({{"file", f.path}, {"error", f.message}});
  }
  return {{"plugins", plugins}, {"failed", failed}};
}

void print_table(const loader::PluginRegistry& registry) {
  Table table({"NAME", "EXTENSION POINTS", "LIBRARY", "VERSION", "ABI", "FILE"});
  for (const loader::PluginDefinition* p : registry.plugins()) {
    table.add_row({p->name, join(point_names(p->points), ","), p->library->name,
                   p->library->version, abi_version(*p->library), p->library->path});
  }
  table.print(std::cout);
}

int run(const PluginsOptions& options) {
  loader::PluginRegistry registry;
  load_plugin_directories(registry, options.plugin_dirs, options.trust, std::cerr);
  if (options.output == "json") {
    std::cout << to_json(registry).dump(2) << '\n';
  } else {
    print_table(registry);
  }
  for (const loader::LoadFailure& f : registry.failures()) {
    std::cerr << "error: " << f.path << ": " << f.message << '\n';
  }
  return registry.failures().empty() ? kExitOk : kExitBadInput;
}

}  // namespace

Subcommand add_plugins_command(CLI::App& app) {
  auto options = std::make_shared<PluginsOptions>();
  CLI::App* sub = app.add_subcommand("plugins", "List the plugins found in the plugin directories");
  sub->add_option("--plugin-dir", options->plugin_dirs,
                  "A directory of plugin .so files (repeatable; default /plugins). The built-in "
                  "directory is always searched first");
  add_plugin_trust_flags(sub, options->trust);
  sub->add_option("-o,--output", options->output, "table or json")
      ->check(CLI::IsMember({"table", "json"}));
  return {sub, [options] { return run(*options); }};
}

}  // namespace schedhost::cli
