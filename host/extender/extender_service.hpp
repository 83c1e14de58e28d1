// Filter and prioritize on one profile's plugins, as the extender protocol asks: the request's
// nodes (or the node cache's, for NodeNames) become a snapshot, and the framework runs PreFilter,
// Filter, PreScore, Score and NormalizeScore on it as the scheduling cycle does.
//
// Threading: any thread may call filter and prioritize. The request's pod and nodes are built
// outside the lock, concurrently; the plugins then run for one request at a time (the ABI lets
// only Filter and Score run concurrently), Filter and Score spread over the profile's parallelism.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <vector>

#include "config/scheduler_configuration.hpp"
#include "extender/cluster_source.hpp"
#include "extender/extender_protocol.hpp"
#include "extender/node_object_cache.hpp"
#include "framework/framework.hpp"
#include "framework/framework_metrics.hpp"
#include "framework/parallelizer.hpp"
#include "framework/waiting_pods.hpp"
#include "loader/plugin_registry.hpp"

namespace schedhost::extender {

// A plugin failed (an Error status, a fault) where the answer has no Error field: prioritize
// answers HTTP 500 with what() as its one line.
class PluginError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ExtenderService {
 public:
  // The plugins of profile (one of configuration's, resolved against registry; both outlive the
  // service). cache: the cluster's nodes and pods (NodeCache: the API server's), or null (then
  // only Nodes requests can be served); it must outlive the service. metrics: where plugin timings
  // and faults go, or null. Throws InputError when a plugin refuses its args.
  ExtenderService(const config::SchedulerConfiguration& configuration,
                  const config::Profile& profile, const loader::PluginRegistry& registry,
                  ClusterSource* cache, framework::FrameworkMetrics* metrics = nullptr);

  // The filter verb. Throws ProtocolError (HTTP 400) for a Pod or Node the model refuses; a
  // plugin's Error, or a NodeNames request without a cache, is the result's error.
  FilterResult filter(ExtenderArgs args);

  // The prioritize verb: every node of the request, in its order, with the plugins' weighted
  // total mapped to 0..10 (weighted_total / (10 x the profile's Score weights), rounded down).
  // Throws ProtocolError (400) as filter does, and for NodeNames without a cache; PluginError
  // (500) when a plugin fails.
  std::vector<HostPriority> prioritize(ExtenderArgs args);

  const std::string& profile_name() const { return framework_.name(); }
  bool has_node_cache() const { return cache_ != nullptr; }

 private:
  struct Request;
  Request prepare(ExtenderArgs args);
  // Under mutex_: the snapshot the request's plugins see, and the positions to evaluate.
  void resolve_nodes(Request& request);

  framework::Framework framework_;
  ClusterSource* cache_;
  NodeObjectCache node_objects_;    // a Nodes request's node objects, by their text
  std::int64_t score_weights_ = 0;  // sum of the profile's Score plugin weights
  std::mutex mutex_;                // one request at a time in the plugins and the cache
  framework::Parallelizer parallelizer_;
  framework::WaitingPods waiting_;  // always empty: no pod waits at Permit here
  // The last Nodes request's snapshot, under mutex_. kube-scheduler sends the same node list
  // while nothing changes, and building 5000 NodeInfos with the cache's pods on them was most of
  // such a request, so the next request with the same node objects (by identity, in order) and
  // an unchanged cache reuses it.
  struct NodesSnapshot {
    std::vector<const cluster::Node*> nodes;
    std::uint64_t cache_id = 0;  // the cache snapshot's journal id and generation when built
    std::uint64_t cache_generation = 0;
    std::optional<cluster::Snapshot> snapshot;
  };
  NodesSnapshot last_nodes_;
};

}  // namespace schedhost::extender
