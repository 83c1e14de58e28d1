// The scheduling cycle that `run` and `serve` share: one attempt of one pod, from PreFilter to
// the end of Permit, then its binding cycle (PreBind, Bind, PostBind), and pods waiting at
// Permit. Upstream's schedulingCycle / bindingCycle. What differs between a replay and a live
// cluster is behind CycleSink: where decisions go, how preemption victims are evicted, and where
// a binding is written (the snapshot, or the API server) and on which thread.
//
// Threading: everything here runs on one thread, the scheduling loop's, except
// run_binding_plugins, which a live sink calls from its binding thread. The snapshot is only
// touched on the scheduling thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "cluster/snapshot.hpp"
#include "config/scheduler_configuration.hpp"
#include "framework/framework.hpp"
#include "framework/parallelizer.hpp"
#include "framework/waiting_pods.hpp"
#include "loader/plugin_registry.hpp"
#include "scheduler/http_extender.hpp"
#include "scheduler/opportunistic_batch.hpp"
#include "scheduler/run_result.hpp"

namespace schedhost::scheduler {

using PodPtr = std::shared_ptr<const cluster::Pod>;

// A pod between Reserve and the end of its binding cycle.
struct AssumedPod {
  PodPtr pod;  // the assumed pod, bound to result.node in the snapshot
  const framework::Framework* framework = nullptr;
  framework::CycleContext cycle;
  PodResult result;  // pod, profile, node and explain filled in
};

// Why an attempt ended without a binding, beyond the message.
struct FailureDetail {
  bool after_reserve = false;  // the pod had been assumed (and is now off the snapshot again)
  // It failed in its binding cycle (rejected while waiting at Permit, PreBind, Bind): the room
  // it held is free again, which upstream treats as an assigned pod deleted.
  bool in_binding_cycle = false;
  // Set by a successful preemption; "" when the nomination ends (an Error, a failure past
  // Reserve, a PostFilter that cleared it); unset when it stays as it was.
  std::optional<std::string> nominated_node;
  // The plugins that rejected the pod (upstream's UnschedulablePlugins): PreFilter's, every
  // Filter's that failed a node, or the Reserve or Permit plugin. The live queue waits for an
  // event one of them registered. Empty for an Error.
  std::set<std::string> unschedulable_plugins;
};

// The preemption a PostFilter plugin asked for, checked by the core: the victims are pods of
// the nominated node.
struct Preemption {
  std::string node;
  std::vector<std::string> victim_uids;  // distinct, in the plugin's order
  std::vector<std::string> victim_keys;  // "namespace/name", parallel to victim_uids
  std::string plugin;
  std::set<std::string> unschedulable_plugins;  // the plugins that rejected the pod
};

class CycleSink {
 public:
  virtual ~CycleSink() = default;
  // The attempt ended: result.result is Scheduled (after the binding cycle), Unschedulable or
  // Error. Scheduled pods stay on the snapshot; failed ones are off it (after Reserve,
  // result.node still names the node it had been assumed on).
  virtual void decided(const PodPtr& pod, PodResult result, const FailureDetail& detail) = 0;
  // PostFilter made room for pod on a node: evict the victims (the core has rejected those
  // waiting at Permit already) and retry or requeue the pod.
  virtual void preempt(const PodPtr& pod, PodResult result, const Preemption& preemption) = 0;
  // Permit allowed the pod: run its binding cycle now (the replay calls
  // SchedulingCore::bind_now) or on another thread (live: run_binding_plugins there, then
  // finish_binding back on the scheduling thread).
  virtual void start_binding(AssumedPod assumed) = 0;
  // Permit asked the pod to wait, reserved on its node (live: nominatedNodeName is written, as
  // v1.35 does for a pod that will wait on Permit). Nothing by default.
  virtual void waiting_at_permit(const AssumedPod& /*assumed*/) {}
};

struct CoreOptions {
  bool explain = false;
  std::uint64_t seed = 0;  // tie-break among equally scored nodes
  // Upstream v1.35's OpportunisticBatching gate (scheduler/opportunistic_batch.hpp).
  bool opportunistic_batching = true;
  // How long a kept ranking stays valid: upstream's 500 ms in serve; no limit in the replay.
  std::optional<std::chrono::steady_clock::duration> batch_max_age = std::nullopt;
  BatchMetrics* batch_metrics = nullptr;  // serve's /metrics; null: not counted
  // serve: once Score, a cycle's last parallel section, is done, the pool's workers sleep
  // instead of spinning through the rest of the cycle and the next pod's absorb (CPU the API
  // server needs). The replay keeps the spin: its next pod's Filter follows within microseconds.
  bool rest_after_scoring = false;
  // serve: a Filter or Score job expected to take less than this on one thread runs on the
  // scheduling thread alone (framework/parallelizer.hpp). Waking a worker for a short job costs
  // more CPU than it saves time, CPU the API server on the same cores would use. The replay
  // shares every job (zero), its cycles following each other with nothing else to run.
  std::chrono::nanoseconds min_parallel_work{0};
};

class SchedulingCore {
 public:
  // One Framework per profile, each seeing snapshot. Throws InputError when a plugin refuses its
  // args. snapshot and sink must outlive the core.
  SchedulingCore(const config::SchedulerConfiguration& configuration,
                 const loader::PluginRegistry& registry, cluster::Snapshot& snapshot,
                 CycleSink& sink, CoreOptions options);

  // The profile serving pod's schedulerName, or nullptr.
  const framework::Framework* framework_for(const cluster::Pod& pod) const;
  const std::vector<std::unique_ptr<framework::Framework>>& frameworks() const {
    return frameworks_;
  }

  // One scheduling attempt; its outcome reaches the sink. preempted: the pods evicted for this
  // one by a previous attempt, reported on its entry.
  void schedule_one(const PodPtr& pod, std::vector<std::string> preempted = {});
  // The replay's retry after a preemption: the pod, nominated to the node, scheduled again at
  // once; it does not preempt a second time.
  void retry_after_preemption(const PodPtr& pod, const std::string& node,
                              std::vector<std::string> preempted);

  // The binding cycle in one go, on the scheduling thread (the replay).
  void bind_now(AssumedPod assumed);
  // PreBindPreFlight, PreBind and Bind. Touches no snapshot: a live sink runs it on its binding
  // thread. before_pre_bind runs when a PreBind plugin said it will do work.
  framework::Status run_binding_plugins(AssumedPod& assumed,
                                        const std::function<void()>& before_pre_bind = {}) const;
  // Whether an extender's bind verb binds pod (run_binding_plugins called it): then no Binding
  // is written by the host.
  bool extender_binds(const cluster::Pod& pod) const { return binder_for(pod) != nullptr; }
  // After run_binding_plugins (and the binding's write): PostBind and Scheduled, or, on
  // failure, Unreserve and the pod off the snapshot. Scheduling thread.
  void finish_binding(AssumedPod assumed, const framework::Status& status);

  // Pods at Permit that every waiting plugin allowed, or that one rejected: to binding, or
  // failed. Call after anything that may resolve a wait.
  void finish_resolved_waits();
  // Virtual time (the replay): the earliest wait expires; false when none is waiting.
  bool expire_first_wait();
  // Real time (serve): the waits whose timeout has passed expire.
  void expire_due_waits(std::chrono::steady_clock::time_point now);
  // A pod waiting at Permit is rejected with message; false when it is not waiting.
  bool reject_waiting(const std::string& uid, const std::string& message);
  bool is_waiting(const std::string& uid) const { return waiting_assumed_.count(uid) != 0; }
  std::optional<std::chrono::steady_clock::time_point> next_wait_deadline() const {
    return waiting_.next_deadline();
  }

  cluster::Snapshot& snapshot() { return snapshot_; }
  // Upstream's nominator: the core nominates a preemptor and ends a nomination on assume, an
  // Error, a failure past Reserve or a cleared PostFilter; the driver adds the pods that arrive
  // nominated and removes the pods that leave.
  framework::NominatedPods& nominated_pods() { return nominated_; }
  framework::Parallelizer& parallelizer() { return parallelizer_; }

 private:
  struct Filtered {
    std::vector<std::size_t> feasible;      // snapshot indexes, in evaluation order
    std::vector<std::size_t> failed_nodes;  // snapshot indexes of the nodes that failed
    std::vector<framework::Status> failed;  // their statuses, parallel to failed_nodes
    framework::Status error;                // an Error that aborted Filter
    std::optional<std::size_t> error_node;  // the node it happened on
  };
  // Whether the pod passes Filter (with nominated pods) on the node named: its nominated node,
  // or a batching hint; the node's snapshot index if so.
  std::optional<std::size_t> fits_first_node(const framework::Framework& fw,
                                             framework::CycleContext& cycle,
                                             const cluster::Pod& pod, const std::string& node);
  void explain_first_node(Explanation& explain, std::size_t node, const std::string& why) const;
  OpportunisticBatch* batch_for(const framework::Framework& fw);
  // The scored nodes but the chosen one, best first; ties in a seeded random order.
  std::vector<std::string> ranking(const OpportunisticBatch::Scores& scores);
  void assume_and_reserve(const framework::Framework& fw, const PodPtr& pod,
                          framework::CycleContext cycle, PodResult result, std::size_t chosen);
  // 0 .. snapshot size - 1, kept between pods (building it was 2 % of a 5000-node replay).
  const std::vector<std::size_t>& all_node_indexes();
  Filtered find_feasible(const framework::Framework& fw, framework::CycleContext& cycle,
                         const cluster::Pod& pod, const std::vector<std::size_t>& nodes);
  void explain_filter(Explanation& explain, const std::vector<std::size_t>& nodes,
                      const Filtered& filtered, bool narrowed) const;
  void explain_scores(Explanation& explain, const std::vector<std::size_t>& feasible,
                      const framework::ScoreOutcome& scores) const;
  void unschedulable(const framework::Framework& fw, framework::CycleContext& cycle,
                     const PodPtr& pod, PodResult result, const std::string& pre_filter_message,
                     const std::vector<std::size_t>& failed_nodes,
                     const std::vector<framework::Status>& failed);
  void preempt(const PodPtr& pod, PodResult result, const framework::PostFilterOutcome& post,
               std::set<std::string> unschedulable_plugins);
  void fail(const PodPtr& pod, PodResult result, std::string message, bool error,
            FailureDetail detail = {});
  void fail_assumed(AssumedPod assumed, const framework::Status& why, bool in_binding_cycle);
  void finish_wait(framework::WaitingPods::Entry entry);

  // The extenders' steps (scheduler/extender_steps.cpp). Their filter over the feasible nodes:
  // the nodes they reject move to filtered.failed; returns a non-ignorable extender's error.
  std::optional<std::string> pass_extenders(const cluster::Pod& pod, Filtered& filtered,
                                            Explanation* explain) const;
  // Their prioritize scores, times weight x 10, added to the totals (errors are only logged).
  void add_extender_scores(const cluster::Pod& pod, const std::vector<std::size_t>& feasible,
                           framework::ScoreOutcome& scores, Explanation* explain) const;
  // The binder extender interested in pod, or nullptr.
  const HttpExtender* binder_for(const cluster::Pod& pod) const;
  // The preempt verbs over a PostFilter plugin's candidates (process_preemption, ABI 1.5):
  // upstream's callExtenders. A non-ignorable extender's error instead, as upstream words it.
  std::optional<std::string> preempt_with_extenders(
      const cluster::Pod& pod, std::vector<framework::PreemptionCandidate>& candidates) const;

  const config::SchedulerConfiguration& configuration_;
  const CoreOptions options_;
  cluster::Snapshot& snapshot_;
  std::vector<std::size_t> all_node_indexes_;
  CycleSink& sink_;
  framework::WaitingPods waiting_;
  framework::NominatedPods nominated_;
  std::map<std::string, AssumedPod> waiting_assumed_;  // by pod uid
  framework::Parallelizer parallelizer_;
  std::vector<std::unique_ptr<framework::Framework>> frameworks_;
  std::vector<std::unique_ptr<HttpExtender>> extenders_;  // the configuration's, in its order
  framework::PreemptionExtenders preemption_extenders_;   // empty when none has a preempt verb
  std::mt19937_64 rng_;
  std::mt19937_64 ranking_rng_;  // apart from rng_, so batching leaves other choices as they were
  std::vector<std::unique_ptr<OpportunisticBatch>> batches_;  // by framework; empty: gate off
  std::uint64_t pops_ = 0;  // scheduling attempts so far (upstream's queue pop counter)
  std::size_t next_start_node_index_ = 0;
  bool retrying_ = false;  // scheduling a pod again after its preemption: no second one
};

}  // namespace schedhost::scheduler
