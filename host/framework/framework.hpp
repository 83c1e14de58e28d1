// Framework: one profile's plugins, instantiated once each with their args, and the extension
// points run in upstream's order with upstream's status semantics (framework/runtime in
// kube-scheduler). The scheduler drives it; each run_* method is one extension point.
#pragma once

#include <schedhost/abi.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/node_info.hpp"
#include "cluster/pod.hpp"
#include "cluster/snapshot.hpp"
#include "config/scheduler_configuration.hpp"
#include "framework/api_access.hpp"
#include "framework/cluster_event.hpp"
#include "framework/cycle_state.hpp"
#include "framework/extension_point.hpp"
#include "framework/framework_metrics.hpp"
#include "framework/nominated_pods.hpp"
#include "framework/parallelizer.hpp"
#include "framework/plugin_call_record.hpp"
#include "framework/plugin_events.hpp"
#include "framework/plugin_instance.hpp"
#include "framework/preemption_extenders.hpp"
#include "framework/status.hpp"
#include "framework/waiting_pods.hpp"
#include "loader/plugin_registry.hpp"

namespace schedhost::framework {

class HookLoop;

class Call;

// What one scheduling attempt of one pod keeps besides the plugins' CycleState.
struct CycleContext {
  CycleState state;
  std::vector<bool> skip_filter;    // by plugin instance: PreFilter returned Skip
  std::vector<bool> skip_score;     // by plugin instance: PreScore returned Skip
  std::vector<bool> skip_pre_bind;  // by plugin instance: PreBindPreFlight returned Skip
  // This cycle's plugin hooks are timed for /metrics (upstream times 10% of the cycles).
  bool sample_plugin_metrics = false;

  // A copy for a dry run (upstream's CycleState.Clone); nullopt when a plugin's clone fails.
  std::optional<CycleContext> clone() const;
};

// Go's %v of a []string, as upstream's messages print plugin lists: "[A B]".
std::string go_list(const std::vector<std::string>& items);

struct PreFilterOutcome {
  Status status;
  std::optional<std::vector<std::string>> node_names;  // nullopt: all nodes
  // The plugins that narrowed node_names, sorted: the nodes left out are reported as
  // "node(s) didn't satisfy plugin(s) [A B]" (upstream v1.35).
  std::vector<std::string> narrowing;
};

struct PostFilterOutcome {
  Status status;
  std::optional<std::string> nominated_node;
  std::vector<std::string> victims;  // uids of the pods to evict from nominated_node
  std::string plugin;                // the PostFilter plugin that succeeded
};

// Normalized scores per Score plugin and node, and the weighted totals per node.
struct ScoreOutcome {
  Status status;
  std::vector<std::string> plugins;               // the Score plugins that ran, in profile order
  std::vector<std::vector<std::int64_t>> scores;  // [plugin][node], 0..100 before the weight
  std::vector<std::int64_t> totals;               // [node], the weighted sums
};

struct PermitOutcome {
  Status status;  // Success, Wait, or a rejection / error
  std::vector<WaitingPods::Wait> waits;
};

class Framework {
 public:
  // Creates every plugin the profile enables (once each, whatever the number of its points).
  // Throws InputError when a plugin is not installed or refuses its args.
  Framework(const config::Profile& profile, const loader::PluginRegistry& registry);

  const std::string& name() const { return name_; }
  std::optional<int> percentage_of_nodes_to_score() const { return percentage_; }
  bool has(ExtensionPoint point) const { return !points_[index(point)].empty(); }
  // Whether the plugin with that name is enabled at point.
  bool enables(std::string_view plugin, ExtensionPoint point) const;
  CycleContext new_cycle() const;

  // Opportunistic batching (upstream v1.35): whether every PreFilter, Filter, PreScore and Score
  // plugin of the profile can sign pods (ABI 1.6 sign_pod); the ones that cannot, sorted.
  bool signs_pods() const { return unsigned_plugins_.empty(); }
  const std::vector<std::string>& unsigned_plugins() const { return unsigned_plugins_; }
  // The pod's signature: canonical JSON of every signing plugin's fragments and the
  // schedulerName, equal for two pods exactly when their fragments are; nullopt when the
  // profile does not sign, or a plugin refused this pod or gave a fragment that is not JSON.
  // Scheduling thread.
  std::optional<std::string> sign_pod(const cluster::Pod& pod) const;

  // What plugins see of the cluster during calls: the snapshot and the pods waiting at Permit;
  // the pool parallel_for uses in PreFilter and PreScore (null: it runs inline); the nominated
  // pods Filter counts (null: none).
  void set_environment(const cluster::Snapshot* snapshot, WaitingPods* waiting_pods,
                       Parallelizer* parallelizer = nullptr,
                       const NominatedPods* nominated_pods = nullptr);

  // Where extension point and plugin timings and plugin faults go (serve's /metrics); null:
  // nowhere, at no cost. The plugin hooks of sample_percent of the cycles are timed (upstream
  // times 10%). Set before the first cycle.
  void set_metrics(FrameworkMetrics* metrics, unsigned sample_percent = 10) {
    metrics_ = metrics;
    sample_percent_ = sample_percent;
  }

  // The API server for plugins' api_request (ABI 1.8), offered to PreBind, Bind, PostBind and
  // Unreserve only; null (run): there is none. Set before the first cycle.
  void set_api_access(ApiAccess* api) { api_ = api; }

  // Where the Events plugins record (ABI 1.9 record_event) go, from every hook but sign_pod; null:
  // record_event answers false. Thread-safe (Filter and Score record concurrently); it must
  // outlive the framework's calls. Set before the first cycle.
  void set_plugin_events(PluginEvents* events) { events_ = events; }

  Status run_pre_enqueue(const cluster::Pod& pod) const;
  // Upstream's isPodWorthRequeuing: whether event may make pod schedulable, given the plugins
  // that rejected it last. Yes when none is known, for the wildcard event, or when one of them
  // registered the event and its queueing hint does not say Skip. Scheduling thread.
  bool worth_requeuing(const cluster::Pod& pod, const std::set<std::string>& rejected_by,
                       const ClusterEvent& event) const;
  // Upstream's isEventOfInterest: a plugin of this profile registered event (one without
  // EnqueueExtensions counts as registering everything); the wildcard always is.
  bool interested_in(const ClusterEvent& event) const;
  bool less(const schedhost_queued_pod_t& a, const schedhost_queued_pod_t& b) const;

  PreFilterOutcome run_pre_filter(CycleContext& cycle, const cluster::Pod& pod) const;
  // The Filter plugins on one node, stopping at the first that does not pass. [concurrent]
  Status run_filter(const CycleContext& cycle, const cluster::Pod& pod,
                    const cluster::NodeInfo& node) const;
  // Upstream's RunFilterPluginsWithNominatedPods: when pods of equal or higher priority are
  // nominated to node, the Filter plugins run on a copy of the node with them added (and the
  // AddPod extensions on a copy of the state), then again without them; the node passes only if
  // both pass, so the pod fits whether or not the nominated pods arrive. [concurrent]
  Status run_filter_with_nominated_pods(const CycleContext& cycle, const cluster::Pod& pod,
                                        const cluster::NodeInfo& node) const;
  // parallelizer (may be null) and random serve the plugins' preemption dry runs.
  PostFilterOutcome run_post_filter(CycleContext& cycle, const cluster::Pod& pod,
                                    const std::vector<schedhost_node_status_t>& statuses,
                                    Parallelizer* parallelizer,
                                    std::function<std::uint64_t()> random,
                                    const PreemptionExtenders* extenders = nullptr) const;
  // The PreFilter extensions (AddPod / RemovePod) of the PreFilter plugins that did not skip,
  // on a cloned cycle state: the state as if `other` were added to / removed from node.
  // [concurrent], each on its own clone.
  Status run_add_pod(CycleContext& cycle, const cluster::Pod& pod, const cluster::Pod& other,
                     const cluster::NodeInfo& node) const;
  Status run_remove_pod(CycleContext& cycle, const cluster::Pod& pod, const cluster::Pod& other,
                        const cluster::NodeInfo& node) const;
  Status run_pre_score(CycleContext& cycle, const cluster::Pod& pod,
                       const std::vector<const cluster::NodeInfo*>& nodes) const;
  ScoreOutcome run_score(CycleContext& cycle, const cluster::Pod& pod,
                         const std::vector<const cluster::NodeInfo*>& nodes,
                         Parallelizer& parallelizer) const;
  Status run_reserve(CycleContext& cycle, const cluster::Pod& pod, const std::string& node) const;
  // Every Reserve plugin's Unreserve, in reverse order.
  void run_unreserve(CycleContext& cycle, const cluster::Pod& pod, const std::string& node) const;
  PermitOutcome run_permit(CycleContext& cycle, const cluster::Pod& pod,
                           const std::string& node) const;
  // Upstream v1.35's RunPreBindPreFlights: Success when a PreBind plugin will do work, Skip when
  // all skip (they are then not called by run_pre_bind, nor is any without PreBind), or an Error.
  Status run_pre_bind_pre_flight(CycleContext& cycle, const cluster::Pod& pod,
                                 const std::string& node) const;
  Status run_pre_bind(CycleContext& cycle, const cluster::Pod& pod, const std::string& node) const;
  Status run_bind(CycleContext& cycle, const cluster::Pod& pod, const std::string& node) const;
  void run_post_bind(CycleContext& cycle, const cluster::Pod& pod, const std::string& node) const;

 private:
  struct Enabled {
    std::size_t instance;  // index into instances_
    std::int64_t weight;   // Score only
  };
  static std::size_t index(ExtensionPoint p) { return static_cast<std::size_t>(p); }
  const PluginInstance& plugin(const Enabled& e) const { return *instances_[e.instance]; }
  // Calls one hook with a fresh Call; checks the code is one this point may return. site names
  // the hook, pod and node for the crash line (framework/fatal_plugin_report.hpp); sampled: the
  // call is timed for /metrics.
  template <class Hook>
  Status call(const PluginInstance& plugin, const CallSite& site, bool sampled, Hook&& hook) const;
  // The per-node paths: call c, reset for this plugin, and the raw code. A SUCCESS (almost every
  // call) then costs no Status; to_status makes one of any other code, as call() would have.
  // With a loop (Filter and Score over one node's plugins), its bookkeeping stands in for the
  // per-call scopes.
  template <class Hook>
  schedhost_code_t invoke(Call& c, const PluginInstance& plugin, const CallSite& site, bool sampled,
                          Hook&& hook, HookLoop* loop = nullptr) const;
  Status to_status(Call& c, const PluginInstance& plugin, schedhost_code_t code) const;
  // Runs body, one extension point's run, and reports its duration and code to metrics_.
  template <class Body>
  auto timed(std::string_view point, Body&& body) const;
  void fault(const PluginInstance& plugin, PluginFault kind) const;

  std::string name_;
  std::optional<int> percentage_;
  std::vector<std::unique_ptr<PluginInstance>> instances_;
  std::array<std::vector<Enabled>, kExtensionPointCount> points_;
  std::vector<std::size_t> signers_;                  // instances that sign (when all can)
  mutable std::atomic<std::size_t> refused_last_{0};  // position in signers_, asked first
  std::vector<std::string> unsigned_plugins_;         // PreFilter..Score plugins without sign_pod
  const cluster::Snapshot* snapshot_ = nullptr;
  WaitingPods* waiting_pods_ = nullptr;
  Parallelizer* parallelizer_ = nullptr;
  const NominatedPods* nominated_pods_ = nullptr;
  FrameworkMetrics* metrics_ = nullptr;
  unsigned sample_percent_ = 10;
  ApiAccess* api_ = nullptr;
  PluginEvents* events_ = nullptr;
};

}  // namespace schedhost::framework
