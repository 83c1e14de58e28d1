// schedhost validate: checks a configuration against the installed plugins, as `run` would use it,
// without scheduling anything: every profile resolves, and every enabled plugin accepts its args.
// With --plugin FILE.so instead, it checks one plugin library the way clap-validator checks audio
// plugins (validator/plugin_validation.hpp), in child processes it starts as itself with the hidden
// --child flags.
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cli/command_inputs.hpp"
#include "cli/commands.hpp"
#include "cli/plugin_validation_output.hpp"
#include "cluster/cluster_file.hpp"
#include "common/input_error.hpp"
#include "common/typed_args.hpp"
#include "config/config_extension_point.hpp"
#include "config/config_parser.hpp"
#include "framework/plugin_instance.hpp"
#include "validator/child_entry.hpp"
#include "validator/child_process.hpp"
#include "validator/plugin_validation.hpp"
#include "validator/user_objects.hpp"

namespace schedhost::cli {
namespace {

struct ValidateOptions {
  std::string config;
  std::vector<std::string> plugin_dirs;
  loader::PluginTrust trust;  // --allow-insecure-plugins, --plugin-digests
  std::string cluster;  // with --plugin: the author's nodes and pods to check the plugin on too
  // --plugin mode
  std::vector<std::string> pods;  // --pod FILE: the author's pending pods
  std::string plugin_file;
  int timeout_ms = 2000;
  std::string output = "table";
  std::vector<std::string> args;  // "Name=JSON"
  bool child = false;             // hidden: this process is a validator child
  std::string child_plugin;       // hidden: the plugin the child checks (empty: list them)
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

// --args Name=JSON (repeatable) -> name -> compact JSON. Throws InputError.
std::map<std::string, std::string> parse_plugin_args(const std::vector<std::string>& entries) {
  std::map<std::string, std::string> args;
  for (const std::string& entry : entries) {
    const std::size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw InputError("--args \"" + entry + "\": expected Name=JSON, e.g. --args Foo='{\"a\":1}'");
    }
    const std::string name = entry.substr(0, eq);
    nlohmann::json parsed = nlohmann::json::parse(entry.substr(eq + 1), nullptr, false);
    if (parsed.is_discarded() || !parsed.is_object()) {
      throw InputError("--args " + name + ": not a JSON object");
    }
    // Upstream's apiVersion and kind, as in a profile: checked, then left out.
    if (auto problem = check_typed_args(parsed, name)) {
      throw InputError("--args " + name + ": " + problem->message);
    }
    strip_typed_args(parsed);
    args[name] = parsed.dump();
  }
  return args;
}

int run_plugin_validation(const ValidateOptions& options) {
  const std::map<std::string, std::string> args = parse_plugin_args(options.args);
  if (options.child) {
    validator::ChildRequest request;
    request.plugin_file = options.plugin_file;
    request.plugin_name = options.child_plugin;
    if (auto it = args.find(options.child_plugin); it != args.end()) request.args_json = it->second;
    request.cluster_file = options.cluster;
    request.pod_files = options.pods;
    validator::run_child_request(request, validator::kChildFd);
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(options.plugin_file, ec)) {
    throw InputError(options.plugin_file + ": no such file: give the path of a plugin .so");
  }
  if (options.timeout_ms <= 0) throw InputError("--timeout-ms must be a positive number");
  // Read here first, so that a bad file is one error line (exit 2), not a failed check.
  if (!options.cluster.empty() || !options.pods.empty()) {
    validator::read_user_objects(options.cluster, options.pods);
  }
  validator::ValidationOptions v;
  v.plugin_file = options.plugin_file;
  v.timeout = std::chrono::milliseconds(options.timeout_ms);
  v.args = args;
  v.cluster_file = options.cluster;
  v.pod_files = options.pods;
  const validator::ValidationReport report = validator::validate_plugin_file(v);
  if (!report.load_error.empty()) {
    std::cerr << "error: " << options.plugin_file << ": " << report.load_error << '\n';
    return kExitBadInput;
  }
  if (options.output == "json") {
    print_validation_json(options.plugin_file, report, std::cout);
  } else {
    print_validation_table(report, std::cout);
  }
  return report.passed() ? kExitOk : kExitFailure;
}

int run(const ValidateOptions& options) {
  // Worded as CLI11 words a missing required option, which it was before --plugin existed.
  if (options.plugin_file.empty() && options.config.empty()) {
    throw InputError("--config is required (see schedhost --help)");
  }
  if (!options.plugin_file.empty() && !options.config.empty()) {
    throw InputError("validate takes --config PROFILE.yaml or --plugin FILE.so, not both");
  }
  if (!options.plugin_file.empty()) return run_plugin_validation(options);
  if (!options.pods.empty()) {
    throw InputError(
        "--pod goes with --plugin FILE.so: it gives the plugin's validation pods of "
        "your own; remove it, or validate a plugin");
  }
  loader::PluginRegistry registry;
  if (!load_plugins(registry, options.plugin_dirs, options.trust, std::cerr)) return kExitBadInput;
  const config::SchedulerConfiguration configuration =
      load_profiles(options.config, registry, std::cerr);
  if (!check_plugin_args(configuration, registry)) return kExitBadInput;

  std::vector<std::string> unserved;
  if (!options.cluster.empty()) {
    const cluster::Cluster cluster = load_cluster(options.cluster, std::cerr);
    for (const auto& pod : cluster.pending_pods) {
      if (configuration.find_profile(pod->scheduler_name()) == nullptr) {
        unserved.push_back("pod \"" + pod->key() + "\" asks for schedulerName \"" +
                           pod->scheduler_name() + "\", which no profile serves");
      }
    }
  }

  // Which upstream the defaults (default plugins, their order, weights and args) follow.
  std::cout << "defaults: kube-scheduler v1.35 (" << config::kApiVersionV1 << ")\n";
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
      "without scheduling; or, with --plugin, check one plugin library in a child process");
  sub->add_option("--config", options->config, "The KubeSchedulerConfiguration file");
  sub->add_option("--plugin-dir", options->plugin_dirs,
                  "A directory of plugin .so files (repeatable; default /plugins). The built-in "
                  "directory is always searched first");
  add_plugin_trust_flags(sub, options->trust);
  sub->add_option("--cluster", options->cluster,
                  "A cluster file or directory: warn about pending pods no profile serves; with "
                  "--plugin, also drive the plugin on its nodes and pods");
  sub->add_option("--pod", options->pods,
                  "With --plugin: a YAML or JSON file of one or more Pods to drive the plugin on, "
                  "besides the generated ones (repeatable)")
      ->option_text("FILE");
  sub->add_option("--plugin", options->plugin_file,
                  "Instead of --config: load this plugin .so in a child process and drive every "
                  "hook of each of its plugins; exit 0 only when every check passes")
      ->option_text("FILE.so");
  sub->add_option("--timeout-ms", options->timeout_ms,
                  "With --plugin: how long one plugin call may take before it counts as a hang "
                  "(default 2000)");
  sub->add_option("-o,--output", options->output, "With --plugin: table or json")
      ->check(CLI::IsMember({"table", "json"}));
  sub->add_option("--args", options->args,
                  "With --plugin: Name=JSON, the args plugin Name is created with (repeatable; "
                  "default {})");
  // The validator's children: not for users, hence no help group.
  sub->add_flag("--child", options->child)->group("");
  sub->add_option("--child-plugin", options->child_plugin)->group("");
  return {sub, [options] { return run(*options); }};
}

}  // namespace schedhost::cli
