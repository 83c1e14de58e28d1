// schedhost extender: serves one profile's plugins over kube-scheduler's extender protocol, so an
// unchanged kube-scheduler with an `extenders:` entry pointing here runs .so plugins.
#include <signal.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cli/command_inputs.hpp"
#include "cli/commands.hpp"
#include "common/input_error.hpp"
#include "extender/extender_node_cache.hpp"
#include "extender/extender_server.hpp"
#include "extender/extender_service.hpp"
#include "kube/api_client.hpp"
#include "live/connection.hpp"
#include "serving/scheduler_metrics.hpp"
#include "serving/tls_identity.hpp"

namespace schedhost::cli {
namespace {

struct ExtenderCommandOptions {
  std::string config;
  std::string kubeconfig;
  std::vector<std::string> plugin_dirs;
  loader::PluginTrust trust;
  std::string profile;  // empty: the first
  std::string bind_address = "0.0.0.0";
  int port = 8888;
  std::string listen;  // DESIGN.md's --listen ADDR:PORT, the same as both flags above
  std::string cert_file;
  std::string key_file;
  int sync_timeout_seconds = 60;
};

std::atomic<bool> g_stop{false};

void on_signal(int) {
  g_stop.store(true);
}

// --listen HOST:PORT (or :PORT) into the bind address and the port.
void apply_listen(ExtenderCommandOptions& o) {
  if (o.listen.empty()) return;
  const auto colon = o.listen.rfind(':');
  const std::string port = colon == std::string::npos ? "" : o.listen.substr(colon + 1);
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string::npos || std::stoi(port) > 65535) {
    throw InputError("--listen " + o.listen +
                     ": not an address and port: write HOST:PORT, e.g. 127.0.0.1:8888 or :8888");
  }
  const std::string host = o.listen.substr(0, colon);
  o.bind_address = host.empty() ? "0.0.0.0" : host;
  o.port = std::stoi(port);
}

const config::Profile& chosen_profile(const config::SchedulerConfiguration& configuration,
                                      const std::string& name) {
  if (name.empty()) return configuration.profiles.front();
  if (const config::Profile* p = configuration.find_profile(name)) return *p;
  std::string names;
  for (const config::Profile& p : configuration.profiles)
    names += (names.empty() ? "" : ", ") + p.scheduler_name;
  throw InputError(configuration.file + ": --profile " + name +
                   ": no profile has this schedulerName (the profiles: " + names +
                   "): pass one of them");
}

// An API server to keep the node cache from: --kubeconfig, clientConnection.kubeconfig, or the
// in-cluster configuration. Without any, the extender serves Nodes requests only.
bool has_api_server(const config::SchedulerConfiguration& configuration,
                    const std::string& kubeconfig_flag) {
  if (!kubeconfig_flag.empty() || std::getenv("KUBERNETES_SERVICE_HOST") != nullptr) return true;
  const auto it = configuration.upstream_only_fields.find("clientConnection");
  return it != configuration.upstream_only_fields.end() && it->second.is_object() &&
         !it->second.value("kubeconfig", std::string()).empty();
}

std::unique_ptr<serving::TlsIdentity> tls_identity(const ExtenderCommandOptions& o) {
  if (o.cert_file.empty() != o.key_file.empty()) {
    throw InputError(
        "--tls-cert-file and --tls-private-key-file go together: give both for HTTPS, or neither "
        "for plain HTTP");
  }
  if (o.cert_file.empty()) return nullptr;
  return std::make_unique<serving::TlsIdentity>(serving::load_identity(o.cert_file, o.key_file));
}

int run_extender(ExtenderCommandOptions options) {
  apply_listen(options);
  loader::PluginRegistry registry;
  if (!load_plugins(registry, options.plugin_dirs, options.trust, std::cerr)) return kExitBadInput;
  const config::SchedulerConfiguration configuration =
      load_profiles(options.config, registry, std::cerr);
  const config::Profile& profile = chosen_profile(configuration, options.profile);

  std::unique_ptr<kube::ApiClient> client;
  std::unique_ptr<extender::NodeCache> cache;
  if (has_api_server(configuration, options.kubeconfig)) {
    client = std::make_unique<kube::ApiClient>(
        live::resolve_client_config(configuration, options.kubeconfig), "/extender");
    cache = std::make_unique<extender::NodeCache>(
        *client, std::chrono::seconds(options.sync_timeout_seconds));
    spdlog::info("extender: node cache synced from {}", client->config().server);
  }

  serving::SchedulerMetrics framework_metrics;
  for (const auto& library : registry.libraries()) {
    for (const loader::PluginDefinition& plugin : library->info.plugins) {
      framework_metrics.plugin_loaded(
          plugin.name, library->info.name, library->info.version,
          std::to_string(library->info.abi_major) + "." + std::to_string(library->info.abi_minor),
          "");
    }
  }
  extender::ExtenderMetrics metrics;
  extender::ExtenderService service(configuration, profile, registry, cache.get(),
                                    &framework_metrics);
  extender::ExtenderServerOptions server_options;
  server_options.bind_address = options.bind_address;
  server_options.port = options.port;
  server_options.tls = tls_identity(options);

  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);

  {
    extender::ExtenderServer server(std::move(server_options), service, metrics,
                                    &framework_metrics);
    while (!g_stop.load())
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  spdlog::info("extender: stopped");
  return kExitOk;
}

}  // namespace

Subcommand add_extender_command(CLI::App& app) {
  auto options = std::make_shared<ExtenderCommandOptions>();
  CLI::App* sub = app.add_subcommand(
      "extender",
      "Serve a profile's plugins to kube-scheduler over the extender protocol, until SIGTERM");
  sub->add_option("--config", options->config, "The KubeSchedulerConfiguration file")->required();
  sub->add_option("--profile", options->profile,
                  "The schedulerName of the profile to serve (default: the first profile)");
  sub->add_option("--plugin-dir", options->plugin_dirs,
                  "A directory of plugin .so files (repeatable; default /plugins). The built-in "
                  "directory is always searched first");
  add_plugin_trust_flags(sub, options->trust);
  sub->add_option("--kubeconfig", options->kubeconfig,
                  "The kubeconfig of the API server to keep the node cache from (needed for "
                  "nodeCacheCapable: true; default: clientConnection.kubeconfig, in-cluster when "
                  "in a pod, else no cache)");
  sub->add_option("--bind-address", options->bind_address,
                  "The address the verbs, health and metrics listen on (default 0.0.0.0)");
  sub->add_option("--port", options->port,
                  "The port of POST /filter, POST /prioritize, /healthz and /metrics (default "
                  "8888; 0: any free port, printed at start)")
      ->check(CLI::Range(0, 65535));
  sub->add_option("--listen", options->listen,
                  "HOST:PORT, the same as --bind-address HOST --port PORT");
  sub->add_option("--tls-cert-file", options->cert_file,
                  "PEM certificate: serve HTTPS (kube-scheduler's enableHTTPS: true); default "
                  "plain HTTP");
  sub->add_option("--tls-private-key-file", options->key_file,
                  "PEM private key of --tls-cert-file");
  sub->add_option("--sync-timeout", options->sync_timeout_seconds,
                  "Seconds the node cache may take to list the API server's objects at start "
                  "(default 60)")
      ->check(CLI::PositiveNumber);
  return {sub, [options] { return run_extender(*options); }};
}

}  // namespace schedhost::cli
