// The inputs `schedhost run` and `schedhost validate` share: the plugins of the plugin
// directories, and the profiles of --config resolved against them. Both commands report
// problems the same way (one line each on stderr) and fail with the same exit code.
#pragma once

#include <CLI/CLI.hpp>

#include <ostream>
#include <string>
#include <vector>

#include "cluster/cluster.hpp"
#include "cluster/cluster_file.hpp"
#include "config/feature_gates.hpp"
#include "config/plugin_catalog.hpp"
#include "config/scheduler_configuration.hpp"
#include "loader/plugin_registry.hpp"
#include "loader/plugin_trust.hpp"

namespace schedhost::cli {

// Adds --allow-insecure-plugins and --plugin-digests FILE, which every command that loads
// plugins takes, to sub.
void add_plugin_trust_flags(CLI::App* sub, loader::PluginTrust& trust);

// Adds --feature-gates (kube-scheduler's "Name=true,Other=false") to sub; the commands parse
// it with config::parse_feature_gates before anything else.
void add_feature_gates_flag(CLI::App* sub, std::string& value);

// Loads the built-in directory and plugin_dirs (or /plugins) into registry under trust, and
// prints each warning (what --allow-insecure-plugins let through, unused pins) as
// "warning: <file>: <message>" on err. A missing or insecure directory, or a bad
// --plugin-digests file, throws InputError.
void load_plugin_directories(loader::PluginRegistry& registry,
                             const std::vector<std::string>& plugin_dirs,
                             const loader::PluginTrust& trust, std::ostream& err);

// load_plugin_directories(), then prints every library that failed a check as
// "error: <file>: <message>" on err and returns false if any did.
bool load_plugins(loader::PluginRegistry& registry, const std::vector<std::string>& plugin_dirs,
                  const loader::PluginTrust& trust, std::ostream& err);

// Installed plugin name -> the extension points it implements.
config::PluginCatalog plugin_catalog(const loader::PluginRegistry& registry);

// The directories the registry searched and each plugin's file, for the resolver's messages.
config::PluginOrigins plugin_origins(const loader::PluginRegistry& registry);

// What to say when `name` is not among the registry's plugins (the directories searched, a near
// name): `plugin "X" is not installed (searched, in order: ...): <fix>`.
std::string not_installed(const loader::PluginRegistry& registry, std::string_view name,
                          std::string_view fix);

// Reads the KubeSchedulerConfiguration at path and resolves its profiles against the registry's
// plugins; prints each resolution warning as "warning: <text>" on err; declares the resources
// the enabled plugins read (declare_plugin_resources). Throws InputError.
config::SchedulerConfiguration load_profiles(const std::string& path,
                                             const loader::PluginRegistry& registry,
                                             std::ostream& err);

// Makes the resources plugins declared (ABI 1.9) kinds the cluster file, the snapshot and
// serve's informers keep: those of every plugin a profile enables, or of one plugin (exercise).
// Before the cluster is read. Throws InputError when two plugins disagree on one.
void declare_plugin_resources(const config::SchedulerConfiguration& configuration,
                              const loader::PluginRegistry& registry);
void declare_plugin_resources(const loader::PluginDefinition& plugin);

// Reads the cluster file or directory at path; prints each of its warnings (objects that count
// for nothing: unmodelled kinds, pods bound to a missing node) as "warning: <text>" on err.
// Throws InputError.
cluster::Cluster load_cluster(const std::string& path, std::ostream& err);
// The same, for a cluster already read (cluster::ClusterReading) while the plugins loaded.
cluster::Cluster load_cluster(cluster::ClusterReading reading, std::ostream& err);

}  // namespace schedhost::cli
