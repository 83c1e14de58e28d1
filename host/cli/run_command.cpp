// schedhost run: every pending pod of a cluster through the profiles of a configuration.
#include <charconv>
#include <cstdint>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "cli/command_inputs.hpp"
#include "cli/commands.hpp"
#include "cli/result_json.hpp"
#include "cli/result_table.hpp"
#include "cli/result_yaml.hpp"
#include "cluster/cluster_file.hpp"
#include "scheduler/scheduler.hpp"

namespace schedhost::cli {
namespace {

struct RunCommandOptions {
  std::string config;
  std::string cluster;
  std::vector<std::string> plugin_dirs;
  loader::PluginTrust trust;  // --allow-insecure-plugins, --plugin-digests
  std::string output = "table";
  bool explain = false;
  std::uint64_t seed = 0;
};

// CLI11 would wrap "-1" around and saturate past 2^64-1: only a whole number that fits is a seed.
std::string check_seed(std::string& value) {
  std::uint64_t seed = 0;
  const char* end = value.data() + value.size();
  const auto [stop, error] = std::from_chars(value.data(), end, seed);
  if (value.empty() || error != std::errc{} || stop != end) {
    return "\"" + value + "\" is not a valid seed: use a whole number from 0 to " +
           std::to_string(std::numeric_limits<std::uint64_t>::max());
  }
  return {};
}

int run(const RunCommandOptions& options) {
  loader::PluginRegistry registry;
  if (!load_plugins(registry, options.plugin_dirs, options.trust, std::cerr)) return kExitBadInput;
  const config::SchedulerConfiguration configuration =
      load_profiles(options.config, registry, std::cerr);
  const cluster::Cluster cluster = cluster::load_cluster(options.cluster);

  const scheduler::RunResult result = scheduler::run_scheduler(
      configuration, registry, cluster, scheduler::RunOptions{options.explain, options.seed, {}});
  if (options.output == "json") {
    write_json(result, std::cout);
  } else if (options.output == "yaml") {
    write_yaml(result, std::cout);
  } else {
    write_table(result, std::cout);
  }
  // Unschedulable, skipped and failed pods are part of the result: the run itself completed.
  return kExitOk;
}

}  // namespace

Subcommand add_run_command(CLI::App& app) {
  auto options = std::make_shared<RunCommandOptions>();
  CLI::App* sub = app.add_subcommand(
      "run", "Schedule every pending pod of a cluster file with the profiles of a configuration");
  sub->add_option("--config", options->config, "The KubeSchedulerConfiguration file")->required();
  sub->add_option(
         "--cluster", options->cluster,
         "The cluster: a YAML or JSON file of Node and Pod objects, or a directory of them")
      ->required();
  sub->add_option("--plugin-dir", options->plugin_dirs,
                  "A directory of plugin .so files (repeatable; default /plugins). The built-in "
                  "directory is always searched first");
  add_plugin_trust_flags(sub, options->trust);
  sub->add_option("-o,--output", options->output, "table, json or yaml")
      ->check(CLI::IsMember({"table", "json", "yaml"}));
  sub->add_flag("--explain", options->explain,
                "Show every node's filter verdict and per-plugin scores for each pod");
  sub->add_option("--seed", options->seed,
                  "Seed of the tie-break among equally scored nodes (default 0: runs reproduce)")
      ->check(CLI::Validator(check_seed, ""));
  return {sub, [options] { return run(*options); }};
}

}  // namespace schedhost::cli
