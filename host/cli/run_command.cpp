// schedhost run: every pending pod of a cluster through the profiles of a configuration.
#include <charconv>
#include <chrono>
#include <cstdint>
#include <future>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "cli/command_inputs.hpp"
#include "cli/commands.hpp"
#include "cli/kept_until_exit.hpp"
#include "cli/nodes_after_run.hpp"
#include "cli/result_html.hpp"
#include "cli/result_json.hpp"
#include "cli/result_table.hpp"
#include "cli/result_yaml.hpp"
#include "cluster/cluster_file.hpp"
#include "framework/plugin_host.hpp"
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
  std::size_t html_nodes = 10;  // -o html: scored nodes per pod shown at first (0: all)
  std::string feature_gates;    // --feature-gates, as kube-scheduler's
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

// How long each phase of a run took, at --log-level debug (where a replay's time goes: issue
// 21 counts the whole process, file to output).
class PhaseClock {
 public:
  void lap(const char* phase) {
    const auto now = std::chrono::steady_clock::now();
    spdlog::debug("run: {} took {:.1f} ms", phase,
                  std::chrono::duration<double, std::milli>(now - last_).count());
    last_ = now;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

int run(const RunCommandOptions& options) {
  PhaseClock clock;
  const config::FeatureGates gates = config::parse_feature_gates(options.feature_gates);
  framework::set_plugin_feature_gates(gates);  // before any plugin is created
  // The cluster files are read and parsed while the plugins load: neither needs the other. The
  // objects are made once the plugins have declared the kinds they read, and errors keep their
  // order (plugins, configuration, cluster).
  std::future<cluster::ClusterReading> reading = std::async(
      std::launch::async, [path = options.cluster] { return cluster::ClusterReading(path); });
  loader::PluginRegistry registry;
  if (!load_plugins(registry, options.plugin_dirs, options.trust, std::cerr)) return kExitBadInput;
  clock.lap("loading the plugins");
  const config::SchedulerConfiguration configuration =
      load_profiles(options.config, registry, std::cerr);
  clock.lap("reading the configuration");
  const cluster::Cluster& cluster = keep_until_exit(load_cluster(reading.get(), std::cerr));
  clock.lap("reading the cluster");

  scheduler::RunOptions run_options;
  run_options.explain = options.explain && options.output != "html";
  run_options.seed = options.seed;
  run_options.feature_gates = gates;
  // The page is the explanation, whether or not --explain was given; each pod's is condensed to
  // what the page shows as it is decided, so memory stays bounded at thousands of nodes.
  HtmlPage page;
  page.top_nodes = options.html_nodes;
  if (options.output == "html") run_options.digest = {page.top_nodes, page.more_rows};
  const scheduler::RunResult& result =
      keep_until_exit(scheduler::run_scheduler(configuration, registry, cluster, run_options));
  clock.lap("scheduling");
  if (options.output == "html") {
    page.title = "--config " + options.config + " --cluster " + options.cluster;
    for (const config::Profile& profile : configuration.profiles) {
      for (const config::EnabledPlugin& p : profile.enabled_at(ExtensionPoint::Score))
        page.weights[profile.scheduler_name][p.name] = p.weight;
    }
    page.nodes = nodes_after_run(cluster, result);
    write_html(result, page, std::cout);
  } else if (options.output == "json") {
    write_json(result, std::cout);
  } else if (options.output == "yaml") {
    write_yaml(result, std::cout);
  } else {
    write_table(result, std::cout);
  }
  std::cout.flush();
  clock.lap("writing the output");
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
  sub->add_option("-o,--output", options->output,
                  "table, json, yaml, or html (one self-contained page of every decision, with "
                  "--explain's detail)")
      ->check(CLI::IsMember({"table", "json", "yaml", "html"}));
  sub->add_option("--html-nodes", options->html_nodes,
                  "With -o html: the best-scored nodes each pod's grid shows at first (default "
                  "10, 0 for all); the page holds the rest, up to 200,000 rows, behind a button")
      ->option_text("N");
  sub->add_flag("--explain", options->explain,
                "Show every node's filter verdict and per-plugin scores for each pod");
  sub->add_option("--seed", options->seed,
                  "Seed of the tie-break among equally scored nodes (default 0: runs reproduce)")
      ->check(CLI::Validator(check_seed, ""));
  add_feature_gates_flag(sub, options->feature_gates);
  return {sub, [options] { return run(*options); }};
}

}  // namespace schedhost::cli
