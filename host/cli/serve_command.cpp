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
#include <optional>
#include <string>
#include <vector>

#include "cli/command_inputs.hpp"
#include "cli/commands.hpp"
#include "common/go_duration.hpp"
#include "common/input_error.hpp"
#include "framework/plugin_host.hpp"
#include "kube/api_client.hpp"
#include "kube/event_recorder.hpp"
#include "live/config_watch.hpp"
#include "live/connection.hpp"
#include "live/hook_watchdog.hpp"
#include "live/leader_election.hpp"
#include "live/live_scheduler.hpp"
#include "live/own_object.hpp"
#include "live/reexec.hpp"
#include "loader/plugin_directories.hpp"
#include "loader/plugin_file.hpp"
#include "serving/configz.hpp"
#include "serving/secure_server.hpp"

namespace schedhost::cli {
namespace {

struct ServeCommandOptions {
  std::string config;
  std::string kubeconfig;
  std::vector<std::string> plugin_dirs;
  loader::PluginTrust trust;
  std::uint64_t seed = 0;
  std::string feature_gates;  // --feature-gates
  unsigned plugin_metrics_sample_percent = 10;
  // kube-scheduler's --leader-elect* flags: when given, they win over the configuration's
  // leaderElection block.
  std::optional<bool> leader_elect;
  std::optional<std::string> lease_duration;
  std::optional<std::string> renew_deadline;
  std::optional<std::string> retry_period;
  std::optional<std::string> resource_lock;
  std::optional<std::string> resource_name;
  std::optional<std::string> resource_namespace;
  serving::SecureServingOptions secure;
  std::vector<std::string> always_allow_paths;
  bool watch_config = false;
  std::string plugin_hook_timeout = "10s";
};

std::atomic<bool> g_stop{false};
std::atomic<bool> g_terminated{false};  // SIGTERM or SIGINT: stop for good, even amid a reload

void on_signal(int) {
  g_terminated.store(true);
  g_stop.store(true);
}

// --watch-config: what to poll (the configuration, the digests file, the user's plugin
// directories: the built-in one ships with the binary) and how to check a change.
live::ConfigWatchOptions watch_options(const ServeCommandOptions& o) {
  live::ConfigWatchOptions w;
  w.paths.files.push_back(o.config);
  if (!o.trust.digests_file.empty()) w.paths.files.push_back(o.trust.digests_file);
  for (const loader::PluginDirectory& dir : loader::plugin_directories(o.plugin_dirs)) {
    if (!dir.builtin) w.paths.plugin_dirs.push_back(dir.path);
  }
  w.check.config = o.config;
  w.check.plugin_dirs = o.plugin_dirs;
  w.check.trust = o.trust;
  return w;
}

// schedhost_config_reloads_total survives the re-execution in this variable: "success,failure".
constexpr const char* kReloadsVariable = "SCHEDHOST_CONFIG_RELOADS";

struct ReloadCounts {
  std::uint64_t success = 0;
  std::uint64_t failure = 0;
};

ReloadCounts inherited_reload_counts() {
  ReloadCounts counts;
  if (const char* text = std::getenv(kReloadsVariable)) {
    unsigned long long success = 0;
    unsigned long long failure = 0;
    if (std::sscanf(text, "%llu,%llu", &success, &failure) == 2) counts = {success, failure};
  }
  return counts;
}

// --watch-config accepted a change and the scheduler has stopped: this process becomes a new one
// on the same command line, which loads the new set. Returns never: if execve fails, exits 1.
[[noreturn]] void reexecute(const std::vector<std::string>& command_line, ReloadCounts reloads) {
  spdlog::info("serve: re-executing on the new configuration");
  spdlog::default_logger()->flush();
  std::fflush(nullptr);
  const std::string why = live::reexecute(
      command_line, {std::string(kReloadsVariable) + "=" + std::to_string(reloads.success) + "," +
                     std::to_string(reloads.failure)});
  spdlog::error("serve: {}; exiting", why);
  spdlog::shutdown();
  std::fflush(nullptr);
  std::_Exit(kExitFailure);
}

std::chrono::milliseconds flag_duration(const char* flag, const std::string& text) {
  const auto d = parse_go_duration(text);
  if (!d) {
    throw InputError(std::string(flag) + ": \"" + text +
                     "\" is not a duration: write it as Kubernetes does, e.g. 15s");
  }
  return std::chrono::duration_cast<std::chrono::milliseconds>(*d);
}

// --plugin-hook-timeout: a watchdog over the scheduling cycle's hooks, or none for 0.
std::unique_ptr<live::HookWatchdog> hook_watchdog(std::chrono::milliseconds bound,
                                                  serving::SchedulerMetrics& metrics) {
  if (bound.count() <= 0) return nullptr;
  return std::make_unique<live::HookWatchdog>(bound, [&metrics](const live::OverdueHook& h) {
    spdlog::error(
        "serve: plugin \"{}\"'s {} has run for more than {}s and is still running: the host "
        "cannot interrupt a plugin, so that scheduling thread waits for it (/livez fails while it "
        "lasts; fix or disable the plugin)",
        h.plugin, h.hook, std::chrono::duration<double>(h.running).count());
    metrics.plugin_fault(h.plugin, framework::PluginFault::Timeout);
  });
}

// The configuration's leaderElection block, then the flags given on the command line.
live::LeaderElectionConfig leader_election(const ServeCommandOptions& o,
                                           const config::SchedulerConfiguration& configuration) {
  return live::leader_election_config(configuration, [&o](live::LeaderElectionConfig& c) {
    if (o.leader_elect) c.enabled = *o.leader_elect;
    if (o.lease_duration) {
      c.lease_duration = flag_duration("--leader-elect-lease-duration", *o.lease_duration);
    }
    if (o.renew_deadline) {
      c.renew_deadline = flag_duration("--leader-elect-renew-deadline", *o.renew_deadline);
    }
    if (o.retry_period) {
      c.retry_period = flag_duration("--leader-elect-retry-period", *o.retry_period);
    }
    if (o.resource_lock) c.resource_lock = *o.resource_lock;
    if (o.resource_name) c.name = *o.resource_name;
    if (o.resource_namespace) c.namespace_name = *o.resource_namespace;
    return o.leader_elect || o.lease_duration || o.renew_deadline || o.retry_period ||
           o.resource_lock || o.resource_name || o.resource_namespace;
  });
}

int serve(const ServeCommandOptions& options) {
  // The log level is main()'s: -v (kube-scheduler's: 4 and up the API traffic) and --log-level
  // are global flags; without them serve logs at info, its start and stop lines included.

  // --watch-config: the files as they are before they are read (a change made while this
  // process loads them is then seen), and the command line to re-execute.
  const std::vector<std::string> command_line = live::own_command_line();
  std::optional<live::ConfigWatchOptions> watching;
  std::optional<live::WatchedFiles> loaded_files;
  ReloadCounts reloads = inherited_reload_counts();
  if (options.watch_config) {
    watching = watch_options(options);
    loaded_files = live::snapshot(watching->paths);
    if (reloads.success > 0) {
      spdlog::info("serve: re-executed on a changed configuration (reload {})", reloads.success);
    }
  }
  const std::chrono::milliseconds hook_bound =
      flag_duration("--plugin-hook-timeout", options.plugin_hook_timeout);
  const config::FeatureGates gates = config::parse_feature_gates(options.feature_gates);
  framework::set_plugin_feature_gates(gates);  // before any plugin is created
  loader::PluginRegistry registry;
  if (!load_plugins(registry, options.plugin_dirs, options.trust, std::cerr)) return kExitBadInput;
  const config::SchedulerConfiguration configuration =
      load_profiles(options.config, registry, std::cerr);
  const live::LeaderElectionConfig election = leader_election(options, configuration);

  kube::ApiClient client(live::resolve_client_config(configuration, options.kubeconfig),
                         "/scheduler");
  // With leader election, the Lease's permissions are checked too (and core/v1 events for it).
  std::optional<live::LeaseLock> lock;
  if (election.enabled) lock = live::LeaseLock{election.namespace_name, election.name};
  const live::ServerInfo server = live::preflight(client, lock);
  spdlog::info("serve: connected to {} (Kubernetes {}){}", client.config().server, server.version,
               server.user.empty() ? "" : " as " + server.user);

  serving::SchedulerMetrics metrics;
  std::unique_ptr<live::LeaderElector> elector;
  live::ServeOptions serve_options;
  serve_options.seed = options.seed;
  serve_options.feature_gates = gates;
  serve_options.plugin_metrics_sample_percent = options.plugin_metrics_sample_percent;
  if (election.enabled) {
    elector =
        std::make_unique<live::LeaderElector>(client.config(), election, live::leader_identity(),
                                              configuration.profiles.front().scheduler_name);
    serve_options.wait_for_leadership = [&elector, &metrics,
                                         name = election.name](const std::atomic<bool>& stop) {
      if (!elector->acquire(stop)) return false;
      metrics.set_leader(name, true);
      elector->keep_renewing([] {
        // Another replica may be scheduling already: stop at once, as kube-scheduler does.
        spdlog::error("serve: leader election lost; exiting");
        spdlog::shutdown();
        std::fflush(nullptr);
        std::_Exit(kExitFailure);
      });
      return true;
    };
  } else {
    spdlog::info("serve: leader election is off (leaderElection.leaderElect: false)");
  }
  for (const auto& library : registry.libraries()) {
    // The loader's own hashing of the file (done here only: without --plugin-digests the loader
    // does not hash).
    const std::string digest = loader::PluginFile::open(library->info.path).sha256();
    for (const loader::PluginDefinition& plugin : library->info.plugins) {
      metrics.plugin_loaded(
          plugin.name, library->info.name, library->info.version,
          std::to_string(library->info.abi_major) + "." + std::to_string(library->info.abi_minor),
          digest);
    }
  }
  if (elector) metrics.set_leader(election.name, false);
  if (watching) {
    metrics.config_reload("success", reloads.success);
    metrics.config_reload("failure", reloads.failure);
  }
  serve_options.metrics = &metrics;
  live::LiveScheduler scheduler(configuration, registry, client, serve_options);
  const std::unique_ptr<live::HookWatchdog> watchdog = hook_watchdog(hook_bound, metrics);

  // The secure port: health, /metrics and /configz, behind the API server's authentication and
  // authorization.
  std::unique_ptr<serving::DelegatedAuth> auth;
  std::unique_ptr<serving::SecureServer> secure;
  if (options.secure.port != 0) {
    serving::SecureServingOptions secure_options = options.secure;
    if (secure_options.cert_file.empty() != secure_options.key_file.empty()) {
      throw InputError(
          "--tls-cert-file and --tls-private-key-file go together: give both, or neither for a "
          "self-signed certificate");
    }
    if (!options.always_allow_paths.empty()) {
      secure_options.always_allow = {options.always_allow_paths.begin(),
                                     options.always_allow_paths.end()};
    }
    serving::TlsIdentity identity =
        secure_options.cert_file.empty()
            ? serving::self_signed_identity(secure_options.bind_address)
            : serving::load_identity(secure_options.cert_file, secure_options.key_file);
    auth = std::make_unique<serving::DelegatedAuth>(client.config(), secure_options.always_allow);
    serving::SecureEndpoints endpoints;
    endpoints.metrics = &metrics;
    endpoints.configz = serving::configz(configuration, election).dump();
    live::LiveScheduler* s = &scheduler;
    live::LeaderElector* e = elector.get();
    const live::HookWatchdog* w = watchdog.get();
    endpoints.checks = [s, e, w](const std::string& endpoint) {
      std::vector<serving::HealthCheck> checks;
      if (e != nullptr) {
        checks.push_back({"leaderElection", [e]() -> std::optional<std::string> {
                            if (!e->renewal_overdue(std::chrono::seconds(20))) return std::nullopt;
                            return "failed election to renew leadership on lease";
                          }});
      } else {
        checks.push_back({"ping", [] { return std::optional<std::string>(); }});
      }
      if (w != nullptr) checks.push_back({"plugin-hooks", [w] { return w->stuck(); }});
      if (endpoint == "readyz") {
        checks.push_back({"sched-handler-sync", [s]() -> std::optional<std::string> {
                            if (s->synced()) return std::nullopt;
                            return "waiting for the informers to list their objects";
                          }});
        checks.push_back({"shutdown", [s]() -> std::optional<std::string> {
                            if (!s->shutting_down()) return std::nullopt;
                            return "process is shutting down";
                          }});
      }
      return checks;
    };
    secure = std::make_unique<serving::SecureServer>(secure_options, std::move(identity), *auth,
                                                     std::move(endpoints));
  }

  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);

  // --watch-config: a refused change is reported (log, Event, metric) and serving goes on; an
  // accepted one stops the scheduler as SIGTERM does, and this process re-executes below.
  std::optional<kube::ApiClient> events_client;
  std::unique_ptr<kube::EventRecorder> events;
  std::unique_ptr<live::ConfigWatch> watch;
  std::atomic<bool> reload{false};
  if (watching) {
    events_client.emplace(client.config());
    events = std::make_unique<kube::EventRecorder>(*events_client);
    const std::string reporter = configuration.profiles.front().scheduler_name;
    auto accepted = [&reload](const std::string& changes) {
      spdlog::info("serve: configuration changed ({}) and passed validate: draining to re-execute",
                   changes);
      reload.store(true);
      g_stop.store(true);
    };
    auto refused = [&, reporter](const std::string& reason) {
      spdlog::error(
          "serve: configuration change refused, still serving the previous plugins and profiles: "
          "{}",
          reason);
      metrics.config_reload("failure");
      ++reloads.failure;
      const nlohmann::json self = live::own_object(*events_client, lock);
      if (!self.is_null()) {
        events->record(self, "Warning", "ConfigReloadRejected", "Reload",
                       "Configuration change refused, still serving the previous set: " + reason,
                       reporter, kube::reporting_instance_for(reporter));
      }
    };
    watch = std::make_unique<live::ConfigWatch>(*watching, *loaded_files, accepted, refused);
  }

  const std::size_t given_up = scheduler.run(g_stop);
  watch.reset();
  if (elector) elector->release();  // another replica takes over without waiting for the lease
  const live::ServeStats stats = scheduler.stats();
  const kube::EventRecorderStats events_written = scheduler.event_stats();
  spdlog::info(
      "serve: stopped: {} attempts, {} bound, {} unschedulable, {} errors; Events: {} posted, {} "
      "patched, {} counted in a series, {} dropped (queue full), {} failed",
      stats.attempts, stats.bound, stats.unschedulable, stats.errors, events_written.posted,
      events_written.patched, events_written.counted, events_written.dropped,
      events_written.failed);
  if (reload.load() && !g_terminated.load()) {
    secure.reset();  // the new process listens on the same port
    events->flush();
    reexecute(command_line, {reloads.success + 1, reloads.failure});
  }
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
  add_feature_gates_flag(sub, options->feature_gates);
  sub->add_option("--plugin-metrics-sample-percent", options->plugin_metrics_sample_percent,
                  "The share of scheduling cycles whose plugin hooks are timed for "
                  "scheduler_plugin_execution_duration_seconds (default 10, as upstream)")
      ->check(CLI::Range(0, 100));
  sub->add_option("--plugin-hook-timeout", options->plugin_hook_timeout,
                  "How long a scheduling-cycle hook (PreEnqueue to Permit) may run before it is "
                  "logged, counted as a timeout fault and fails /livez until it returns (default "
                  "10s; 0 turns the watchdog off). Binding hooks may block and are not watched");
  sub->add_option("--bind-address", options->secure.bind_address,
                  "The address the secure port listens on (default 0.0.0.0)");
  sub->add_option("--secure-port", options->secure.port,
                  "The HTTPS port of /healthz, /livez, /readyz, /metrics and /configz (default "
                  "10259; 0 turns it off)");
  sub->add_option("--tls-cert-file", options->secure.cert_file,
                  "PEM certificate of the secure port (default: a self-signed one made at start)");
  sub->add_option("--tls-private-key-file", options->secure.key_file,
                  "PEM private key of --tls-cert-file");
  sub->add_option("--authorization-always-allow-paths", options->always_allow_paths,
                  "Paths served without asking the API server (default /healthz,/readyz,/livez)")
      ->delimiter(',');
  sub->add_flag(
      "--watch-config", options->watch_config,
      "Poll --config, --plugin-digests and the plugin directories every second; once a change "
      "has settled for 2 s, check it with `schedhost validate` in child processes and, if it "
      "passes, drain as on SIGTERM and re-execute on it; if not, keep serving and report why "
      "(log, a ConfigReloadRejected Event, schedhost_config_reloads_total). Off by default, as "
      "in kube-scheduler: a re-execution drops the queue's backoff state, so it is opt-in");
  sub->add_option("--leader-elect", options->leader_elect,
                  "Elect a leader among replicas on a Lease before scheduling (default true, "
                  "or the configuration's leaderElection.leaderElect)");
  sub->add_option("--leader-elect-lease-duration", options->lease_duration,
                  "How long a follower waits, after it last saw the Lease change, before it takes "
                  "over (default 15s)");
  sub->add_option("--leader-elect-renew-deadline", options->renew_deadline,
                  "How long the leader keeps trying to renew before it gives up and exits 1 "
                  "(default 10s)");
  sub->add_option("--leader-elect-retry-period", options->retry_period,
                  "Time between two attempts to acquire or renew (default 2s)");
  sub->add_option("--leader-elect-resource-lock", options->resource_lock,
                  "The lock's kind: only \"leases\" (the default)");
  sub->add_option("--leader-elect-resource-name", options->resource_name,
                  "The Lease's name (default kube-scheduler)");
  sub->add_option("--leader-elect-resource-namespace", options->resource_namespace,
                  "The Lease's namespace (default kube-system)");
  return {sub, [options] { return serve(*options); }};
}

}  // namespace schedhost::cli
