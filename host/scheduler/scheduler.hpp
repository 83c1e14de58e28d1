// The scheduler: every pending pod of a cluster through the profiles of a configuration.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "cluster/cluster.hpp"
#include "config/feature_gates.hpp"
#include "config/scheduler_configuration.hpp"
#include "loader/plugin_registry.hpp"
#include "scheduler/explanation_digest.hpp"
#include "scheduler/run_result.hpp"

namespace schedhost::scheduler {

struct RunOptions {
  bool explain = false;
  std::uint64_t seed = 0;  // tie-break among equally scored nodes; same seed, same run
  // Called with the snapshot after every change a decision makes to it (a binding, an Unreserve,
  // an eviction), so tests can check its accounting. Empty: not called.
  std::function<void(const cluster::Snapshot&)> on_snapshot_change;
  // Explain every pod, condensed to a digest as it is decided (-o html); `explain` keeps all.
  std::optional<DigestOptions> digest;
  config::FeatureGates feature_gates = {};  // --feature-gates
};

// Schedules every pending pod of cluster, in queue order, each decision updating the snapshot
// before the next pod. configuration must be resolved (config::resolve_profiles) against
// registry's plugins. Throws InputError when a plugin refuses its args.
RunResult run_scheduler(const config::SchedulerConfiguration& configuration,
                        const loader::PluginRegistry& registry, const cluster::Cluster& cluster,
                        const RunOptions& options);

}  // namespace schedhost::scheduler
