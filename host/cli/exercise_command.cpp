// schedhost exercise: one plugin's hooks called directly on one pod and a cluster, the way
// upstream's plugin unit tests drive a plugin (framework/plugin_exerciser.hpp does the calls).
// Here: the flags and the order of the steps; exercise_inputs and exercise_output do the rest.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/command_inputs.hpp"
#include "cli/commands.hpp"
#include "cli/exercise_html.hpp"
#include "cli/exercise_inputs.hpp"
#include "cli/exercise_output.hpp"
#include "cluster/cluster_file.hpp"
#include "common/input_error.hpp"
#include "framework/plugin_exerciser.hpp"
#include "framework/plugin_host.hpp"

namespace schedhost::cli {
namespace {

using Json = nlohmann::ordered_json;
using framework::ExerciseResult;

struct ExerciseOptions {
  std::string plugin;
  std::string args;
  std::string pod;
  std::string cluster;
  std::vector<std::string> score_nodes;
  std::vector<std::string> plugin_dirs;
  loader::PluginTrust trust;  // --allow-insecure-plugins, --plugin-digests
  bool framework_order = false;
  std::string output = "json";
  std::string feature_gates;  // --feature-gates: what the plugin's feature_enabled answers
};

bool exercises_anything(const schedhost_plugin_vtable_t& v) {
  return v.pre_enqueue || v.pre_filter || v.filter || v.pre_score || v.score;
}

int run(const ExerciseOptions& options) {
  framework::set_plugin_feature_gates(config::parse_feature_gates(options.feature_gates));
  loader::PluginRegistry registry;  // declared first: outlives the plugin instance
  if (!load_plugins(registry, options.plugin_dirs, options.trust, std::cerr)) return kExitBadInput;
  const loader::PluginDefinition* definition = registry.find(options.plugin);
  if (definition == nullptr) {
    throw InputError(not_installed(registry, options.plugin,
                                   "put its .so in a --plugin-dir, or check the name with "
                                   "`schedhost plugins`"));
  }
  declare_plugin_resources(*definition);  // its custom resources are the cluster file's too
  const cluster::Cluster cluster = load_cluster(options.cluster, std::cerr);
  const cluster::Snapshot snapshot = cluster.snapshot();  // pending pods are not placed
  const std::shared_ptr<const cluster::Pod> pod = read_exercise_pod(options.pod);
  const std::string args = read_exercise_args(options.args);
  framework::ExerciseOptions exercise;
  exercise.framework_order = options.framework_order;
  if (!options.score_nodes.empty()) {
    check_score_nodes(options.score_nodes, snapshot, options.cluster);
    exercise.score_nodes = options.score_nodes;
  }
  const auto plugin = framework::PluginInstance::create(*definition, args);
  if (!exercises_anything(plugin->vtable())) {
    std::cerr << "warning: plugin \"" << options.plugin
              << "\" has none of PreEnqueue, PreFilter, Filter, PreScore and Score: there is "
                 "nothing to exercise\n";
  }

  const ExerciseResult result = framework::exercise_plugin(*plugin, snapshot, *pod, exercise);
  if (options.output == "table") {
    print_exercise_tables(options.plugin, result, snapshot, std::cout);
  } else if (options.output == "html") {
    write_exercise_html(options.plugin, pod->key(), result, snapshot, std::cout);
  } else {
    std::cout
        << exercise_json(options.plugin, result).dump(2, ' ', false, Json::error_handler_t::replace)
        << '\n';
  }
  return kExitOk;
}

}  // namespace

Subcommand add_exercise_command(CLI::App& app) {
  auto options = std::make_shared<ExerciseOptions>();
  CLI::App* sub = app.add_subcommand(
      "exercise",
      "Call one plugin's hooks directly on a pod and a cluster, as upstream's plugin unit tests "
      "do, and print what each returned");
  sub->add_option("--plugin", options->plugin, "The plugin's name")->required();
  sub->add_option("--args", options->args,
                  "The plugin's args: a JSON object, or @FILE (JSON, or YAML); default {}");
  sub->add_option("--pod", options->pod, "A YAML or JSON file holding the one Pod to exercise")
      ->required();
  sub->add_option("--cluster", options->cluster,
                  "The cluster: a YAML or JSON file of Node and Pod objects, or a directory of "
                  "them (only its nodes and running pods are used)")
      ->required();
  sub->add_option("--score-nodes", options->score_nodes,
                  "The nodes PreScore and Score see, comma-separated (default: every node)")
      ->delimiter(',');
  sub->add_option("--plugin-dir", options->plugin_dirs,
                  "A directory of plugin .so files (repeatable; default /plugins). The built-in "
                  "directory is always searched first");
  add_plugin_trust_flags(sub, options->trust);
  add_feature_gates_flag(sub, options->feature_gates);
  sub->add_flag("--framework-order", options->framework_order,
                "Stop where the scheduling framework would (after a PreFilter Skip or rejection, "
                "...) instead of calling every hook");
  sub->add_option("-o,--output", options->output, "json, table or html (a self-contained page)")
      ->check(CLI::IsMember({"json", "table", "html"}));
  return {sub, [options] { return run(*options); }};
}

}  // namespace schedhost::cli
