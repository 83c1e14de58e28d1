// schedhost serve: schedules the pods of a real cluster through the Kubernetes API, with the
// same profiles, plugins and scheduling cycle as `run`.
#include <signal.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/command_inputs.hpp"
#include "cli/commands.hpp"
#include "kube/api_client.hpp"
#include "live/connection.hpp"
#include "live/live_scheduler.hpp"

namespace schedhost::cli {
namespace {

struct ServeCommandOptions {
  std::string config;
  std::string kubeconfig;
  std::vector<std::string> plugin_dirs;
  loader::PluginTrust trust;
  std::uint64_t seed = 0;
};

std::atomic<bool> g_stop{false};

void on_signal(int) {
  g_stop.store(true);
}

int serve(const ServeCommandOptions& options) {
  // The log level is main()'s: -v (kube-scheduler's: 4 and up the API traffic) and --log-level
  // are global flags; without them serve logs at info, its start and stop lines included.
  loader::PluginRegistry registry;
  if (!load_plugins(registry, options.plugin_dirs, options.trust, std::cerr)) return kExitBadInput;
  const config::SchedulerConfiguration configuration =
      load_profiles(options.config, registry, std::cerr);

  kube::ApiClient client(live::resolve_client_config(configuration, options.kubeconfig),
                         "/scheduler");
  const live::ServerInfo server = live::preflight(client);
  spdlog::info("serve: connected to {} (Kubernetes {}){}", client.config().server, server.version,
               server.user.empty() ? "" : " as " + server.user);

  live::ServeOptions serve_options;
  serve_options.seed = options.seed;
  live::LiveScheduler scheduler(configuration, registry, client, serve_options);

  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
  const std::size_t given_up = scheduler.run(g_stop);
  const live::ServeStats stats = scheduler.stats();
  spdlog::info("serve: stopped: {} attempts, {} bound, {} unschedulable, {} errors", stats.attempts,
               stats.bound, stats.unschedulable, stats.errors);
  if (given_up > 0) {
    // Threads still run plugin code: unloading the plugins under them would crash, so the
    // process ends here, without destructors.
    spdlog::shutdown();
    std::fflush(nullptr);
    std::_Exit(kExitOk);
  }
  return kExitOk;
}

}  // namespace

Subcommand add_serve_command(CLI::App& app) {
  auto options = std::make_shared<ServeCommandOptions>();
  CLI::App* sub = app.add_subcommand(
      "serve", "Schedule the pods of a cluster through its API server, until SIGTERM");
  sub->add_option("--config", options->config, "The KubeSchedulerConfiguration file")->required();
  sub->add_option("--kubeconfig", options->kubeconfig,
                  "The kubeconfig to reach the API server (used when the configuration's "
                  "clientConnection.kubeconfig is empty; default: in-cluster, then $KUBECONFIG)");
  sub->add_option("--plugin-dir", options->plugin_dirs,
                  "A directory of plugin .so files (repeatable; default /plugins). The built-in "
                  "directory is always searched first");
  add_plugin_trust_flags(sub, options->trust);
  sub->add_option("--seed", options->seed,
                  "Seed of the tie-break among equally scored nodes (as run --seed)");
  return {sub, [options] { return serve(*options); }};
}

}  // namespace schedhost::cli
