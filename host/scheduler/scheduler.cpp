// The scheduling loop: the queue, one scheduling cycle per pod, the binding cycle, and pods
// waiting at Permit. Upstream's scheduleOne / schedulingCycle / bindingCycle, replayed over a
// snapshot: each decision updates the snapshot before the next pod, and time is virtual.
#include "scheduler/scheduler.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "framework/framework.hpp"
#include "framework/parallelizer.hpp"
#include "framework/waiting_pods.hpp"
#include "scheduler/feasible_nodes.hpp"
#include "scheduler/fit_error.hpp"
#include "scheduler/select_host.hpp"

namespace schedhost::scheduler {
namespace {

using cluster::NodeInfo;
using cluster::Pod;
using framework::CycleContext;
using framework::Framework;
using framework::Status;

using PodPtr = std::shared_ptr<const Pod>;

FilterVerdict verdict(const Status& s) {
  return {std::string(framework::code_name(s.code)), s.plugin, s.reasons};
}

FilterVerdict not_evaluated(std::string why) {
  return {"NotEvaluated", "", {std::move(why)}};
}

// One pod between its scheduling cycle and its binding cycle (while it waits at Permit).
struct Assumed {
  PodPtr pod;  // the assumed pod, bound to node in the snapshot
  const Framework* framework;
  CycleContext cycle;
  PodResult result;  // pod, profile, node and explain already filled in
};

class Run {
 public:
  Run(const config::SchedulerConfiguration& configuration, const loader::PluginRegistry& registry,
      const cluster::Cluster& cluster, const RunOptions& options)
      : configuration_(configuration),
        options_(options),
        snapshot_(cluster.snapshot()),
        parallelizer_(configuration.parallelism),
        rng_(options.seed) {
    for (const config::Profile& profile : configuration.profiles) {
      frameworks_.push_back(std::make_unique<Framework>(profile, registry));
      frameworks_.back()->set_environment(&snapshot_, &waiting_, &parallelizer_);
    }
  }

  RunResult run(const cluster::Cluster& cluster) {
    for (const PodPtr& pod : queue(cluster)) {
      schedule_one(pod);
      finish_resolved_waits();
    }
    // Nothing else will happen: waits expire, earliest deadline first (virtual time).
    while (auto expired = waiting_.expire_first()) {
      finish_wait(std::move(*expired));
      finish_resolved_waits();
    }
    return std::move(result_);
  }

 private:
  const Framework* framework_for(const Pod& pod) const {
    for (const auto& f : frameworks_) {
      if (f->name() == pod.scheduler_name()) return f.get();
    }
    return nullptr;
  }

  // Pending pods in QueueSort order. Pods no profile serves, and pods a PreEnqueue plugin
  // gates, are decided here and never enter the queue.
  std::vector<PodPtr> queue(const cluster::Cluster& cluster) {
    struct Entry {
      PodPtr pod;
      const Framework* framework;
    };
    std::vector<Entry> active;
    for (const PodPtr& pod : cluster.pending_pods) {
      const Framework* f = framework_for(*pod);
      if (f == nullptr) {
        result_.pods.push_back({pod->key(),
                                "",
                                kSkipped,
                                "",
                                "no profile serves schedulerName \"" + pod->scheduler_name() + "\"",
                                std::nullopt,
                                {}});
        continue;
      }
      if (Status gate = f->run_pre_enqueue(*pod); !gate.ok()) {
        result_.pods.push_back(
            {pod->key(), f->name(), kGated, "", gate.message(), std::nullopt, {}});
        continue;
      }
      active.push_back({pod, f});
    }
    // One queue for all profiles (upstream requires them to share the QueueSort plugin).
    const Framework* sorter = active.empty() ? nullptr : active.front().framework;
    std::stable_sort(active.begin(), active.end(), [sorter](const Entry& a, const Entry& b) {
      const schedhost_queued_pod_t qa{reinterpret_cast<const schedhost_pod_t*>(a.pod.get()),
                                      a.pod->creation_time_ms(), 0};
      const schedhost_queued_pod_t qb{reinterpret_cast<const schedhost_pod_t*>(b.pod.get()),
                                      b.pod->creation_time_ms(), 0};
      return sorter->less(qa, qb);
    });
    std::vector<PodPtr> out;
    out.reserve(active.size());
    for (Entry& e : active)
      out.push_back(std::move(e.pod));
    return out;
  }

  void decide(PodResult result) { result_.pods.push_back(std::move(result)); }

  // One scheduling attempt. On the retry after a preemption, preempted lists the pods evicted
  // for this one, reported on its entry.
  void schedule_one(const PodPtr& pod, std::vector<std::string> preempted = {}) {
    const Framework& fw = *framework_for(*pod);
    PodResult result{pod->key(), fw.name(), "", "", "", std::nullopt, std::move(preempted)};
    if (options_.explain) result.explain = Explanation{};
    CycleContext cycle = fw.new_cycle();

    if (snapshot_.size() == 0) {
      result.result = kUnschedulable;
      result.message = "no nodes available to schedule pods";
      return decide(std::move(result));
    }

    // PreFilter.
    framework::PreFilterOutcome pre = fw.run_pre_filter(cycle, *pod);
    if (!pre.status.ok() && !pre.status.rejected()) {
      result.result = kError;
      result.message = pre.status.message();
      return decide(std::move(result));
    }
    if (pre.status.rejected()) {
      // Every node gets PreFilter's status, as upstream records it for preemption.
      std::vector<Status> statuses(snapshot_.size(), pre.status);
      return unschedulable(fw, cycle, pod, std::move(result), pre.status.message(),
                           all_node_indexes(), statuses);
    }

    // A pod nominated by a preemption tries that node first, alone (upstream's
    // evaluateNominatedNode): if it passes Filter it is chosen without scoring.
    if (std::optional<std::size_t> nominated = fits_nominated_node(fw, cycle, *pod)) {
      if (options_.explain) explain_nominated(*result.explain, *nominated);
      return assume_and_bind(fw, pod, std::move(cycle), std::move(result), *nominated);
    }

    // The nodes to filter: all, or PreFilter's, in snapshot order.
    std::vector<std::size_t> nodes;
    if (pre.node_names) {
      const std::unordered_set<std::string> wanted(pre.node_names->begin(), pre.node_names->end());
      for (std::size_t i = 0; i < snapshot_.size(); ++i) {
        if (wanted.count(snapshot_.at(i).name()) != 0) nodes.push_back(i);
      }
    } else {
      nodes = all_node_indexes();
    }

    Filtered filtered = find_feasible(fw, cycle, *pod, nodes);
    if (options_.explain)
      explain_filter(*result.explain, nodes, filtered, pre.node_names.has_value());
    if (!filtered.error.ok()) {
      result.result = kError;
      result.message = filtered.error.message();
      return decide(std::move(result));
    }
    if (filtered.feasible.empty()) {
      return unschedulable(fw, cycle, pod, std::move(result), "", filtered.failed_nodes,
                           filtered.failed);
    }

    // Score, unless one node is all there is.
    std::size_t chosen = filtered.feasible.front();
    if (filtered.feasible.size() > 1) {
      std::vector<const NodeInfo*> feasible;
      for (std::size_t i : filtered.feasible)
        feasible.push_back(&snapshot_.at(i));
      if (Status s = fw.run_pre_score(cycle, *pod, feasible); !s.ok()) {
        result.result = kError;
        result.message = s.message();
        return decide(std::move(result));
      }
      framework::ScoreOutcome scores = fw.run_score(cycle, *pod, feasible, parallelizer_);
      if (!scores.status.ok()) {
        result.result = kError;
        result.message = scores.status.message();
        return decide(std::move(result));
      }
      if (options_.explain) explain_scores(*result.explain, filtered.feasible, scores);
      chosen = filtered.feasible[select_host(scores.totals, rng_)];
    }
    assume_and_bind(fw, pod, std::move(cycle), std::move(result), chosen);
  }

  // The pod's nominated node when it has one and the node passes Filter.
  std::optional<std::size_t> fits_nominated_node(const Framework& fw, CycleContext& cycle,
                                                 const Pod& pod) {
    if (pod.nominated_node_name().empty()) return std::nullopt;
    const std::optional<std::size_t> index = snapshot_.index_of(pod.nominated_node_name());
    if (!index) return std::nullopt;
    cycle.state.set_read_only(true);
    const bool fits = fw.run_filter(cycle, pod, snapshot_.at(*index)).ok();
    cycle.state.set_read_only(false);
    if (!fits) return std::nullopt;
    return index;
  }

  void explain_nominated(Explanation& explain, std::size_t nominated) const {
    for (std::size_t i = 0; i < snapshot_.size(); ++i) {
      NodeExplanation e;
      e.filter = i == nominated
                     ? FilterVerdict{"Success", "", {}}
                     : not_evaluated("the pod's nominated node was tried first and fits");
      explain.nodes.emplace_back(snapshot_.at(i).name(), std::move(e));
    }
  }

  // Assume the pod on the chosen node, then Reserve, Permit, and bind (or wait at Permit).
  void assume_and_bind(const Framework& fw, const PodPtr& pod, CycleContext cycle, PodResult result,
                       std::size_t chosen) {
    const std::string node = snapshot_.at(chosen).name();
    result.node = node;
    Assumed assumed{snapshot_.assume(*pod, node), &fw, std::move(cycle), std::move(result)};

    if (Status s = fw.run_reserve(assumed.cycle, *assumed.pod, node); !s.ok()) {
      return fail_assumed(std::move(assumed), s);
    }
    framework::PermitOutcome permit = fw.run_permit(assumed.cycle, *assumed.pod, node);
    if (permit.status.code == SCHEDHOST_WAIT) {
      waiting_.add(assumed.pod, node, std::move(permit.waits));
      waiting_assumed_.emplace(assumed.pod->uid(), std::move(assumed));
      return;
    }
    if (!permit.status.ok()) return fail_assumed(std::move(assumed), permit.status);
    bind(std::move(assumed));
  }

  std::vector<std::size_t> all_node_indexes() const {
    std::vector<std::size_t> all(snapshot_.size());
    for (std::size_t i = 0; i < all.size(); ++i)
      all[i] = i;
    return all;
  }

  struct Filtered {
    std::vector<std::size_t> feasible;      // snapshot indexes, in evaluation order
    std::vector<std::size_t> failed_nodes;  // snapshot indexes of the nodes that failed
    std::vector<Status> failed;             // their statuses, parallel to failed_nodes
    Status error;                           // an Error that aborted Filter
    std::optional<std::size_t> error_node;  // the node it happened on
  };

  // Filter over nodes, starting where the previous pod stopped, until enough feasible nodes are
  // found. Nodes are evaluated in parallel batches but accepted in rotation order, so the
  // outcome is the one a sequential scan gives: reproducible whatever the thread timing.
  Filtered find_feasible(const Framework& fw, CycleContext& cycle, const Pod& pod,
                         const std::vector<std::size_t>& nodes) {
    Filtered out;
    const std::size_t n = nodes.size();
    if (n == 0) return out;
    const int percentage = fw.percentage_of_nodes_to_score().value_or(
        configuration_.percentage_of_nodes_to_score.value_or(0));
    const std::size_t to_find = num_feasible_nodes_to_find(percentage, n);
    const std::size_t start = next_start_node_index_ % n;

    if (!fw.has(ExtensionPoint::Filter)) {
      for (std::size_t k = 0; k < to_find; ++k)
        out.feasible.push_back(nodes[(start + k) % n]);
      next_start_node_index_ = (start + to_find) % n;
      return out;
    }

    std::size_t processed = 0;
    // Per node of a batch: null when it passed (most do), else its status.
    std::vector<std::unique_ptr<Status>> batch_failure;
    cycle.state.set_read_only(true);
    while (processed < n && out.feasible.size() < to_find) {
      const std::size_t batch =
          std::min(n - processed,
                   std::max<std::size_t>(to_find - out.feasible.size(),
                                         static_cast<std::size_t>(parallelizer_.parallelism())));
      batch_failure.clear();
      batch_failure.resize(batch);
      parallelizer_.until(batch, [&](std::size_t k) {
        const NodeInfo& node = snapshot_.at(nodes[(start + processed + k) % n]);
        Status s = fw.run_filter(cycle, pod, node);
        if (!s.ok()) batch_failure[k] = std::make_unique<Status>(std::move(s));
      });
      std::size_t k = 0;
      for (; k < batch && out.feasible.size() < to_find; ++k) {
        const std::size_t index = nodes[(start + processed + k) % n];
        if (batch_failure[k] == nullptr) {
          out.feasible.push_back(index);
          continue;
        }
        Status& s = *batch_failure[k];
        if (s.rejected()) {
          out.failed_nodes.push_back(index);
          out.failed.push_back(std::move(s));
        } else {
          out.error = std::move(s);
          out.error_node = index;
          ++k;
          break;
        }
      }
      processed += k;
      if (!out.error.ok()) break;
    }
    cycle.state.set_read_only(false);
    next_start_node_index_ = (start + processed) % n;
    return out;
  }

  void explain_filter(Explanation& explain, const std::vector<std::size_t>& nodes,
                      const Filtered& filtered, bool narrowed) const {
    std::map<std::size_t, FilterVerdict> verdicts;
    for (std::size_t i : filtered.feasible)
      verdicts[i] = {"Success", "", {}};
    for (std::size_t k = 0; k < filtered.failed_nodes.size(); ++k) {
      verdicts[filtered.failed_nodes[k]] = verdict(filtered.failed[k]);
    }
    if (filtered.error_node) verdicts[*filtered.error_node] = verdict(filtered.error);
    const std::unordered_set<std::size_t> considered(nodes.begin(), nodes.end());
    for (std::size_t i = 0; i < snapshot_.size(); ++i) {
      NodeExplanation e;
      if (auto it = verdicts.find(i); it != verdicts.end()) {
        e.filter = it->second;
      } else if (narrowed && considered.count(i) == 0) {
        e.filter = not_evaluated("not in the PreFilter result");
      } else if (!filtered.error.ok()) {
        e.filter = not_evaluated("Filter stopped at an error");
      } else {
        e.filter = not_evaluated("enough feasible nodes were found before this one");
      }
      explain.nodes.emplace_back(snapshot_.at(i).name(), std::move(e));
    }
  }

  void explain_scores(Explanation& explain, const std::vector<std::size_t>& feasible,
                      const framework::ScoreOutcome& scores) const {
    for (std::size_t k = 0; k < feasible.size(); ++k) {
      NodeExplanation& e = explain.nodes[feasible[k]].second;
      for (std::size_t p = 0; p < scores.plugins.size(); ++p) {
        e.scores.emplace_back(scores.plugins[p], scores.scores[p][k]);
      }
      e.total = scores.totals[k];
    }
  }

  // No node fits: PostFilter, then upstream's FitError message.
  void unschedulable(const Framework& fw, CycleContext& cycle, const PodPtr& pod, PodResult result,
                     const std::string& pre_filter_message,
                     const std::vector<std::size_t>& failed_nodes,
                     const std::vector<Status>& failed) {
    if (options_.explain && result.explain->nodes.empty()) {
      for (std::size_t k = 0; k < failed_nodes.size(); ++k) {
        result.explain->nodes.emplace_back(snapshot_.at(failed_nodes[k]).name(),
                                           NodeExplanation{verdict(failed[k]), {}, std::nullopt});
      }
    }
    std::string post_filter_message;
    if (fw.has(ExtensionPoint::PostFilter)) {
      std::vector<std::string> messages(failed.size());
      std::vector<schedhost_node_status_t> statuses(failed.size());
      for (std::size_t k = 0; k < failed.size(); ++k) {
        const std::string& name = snapshot_.at(failed_nodes[k]).name();
        messages[k] = failed[k].message();
        statuses[k] = {{name.data(), name.size()},
                       failed[k].code,
                       {failed[k].plugin.data(), failed[k].plugin.size()},
                       {messages[k].data(), messages[k].size()}};
      }
      framework::PostFilterOutcome post =
          fw.run_post_filter(cycle, *pod, statuses, &parallelizer_, [this] { return rng_(); });
      if (post.status.code == SCHEDHOST_ERROR) {
        result.result = kError;
        result.message = post.status.message();
        return decide(std::move(result));
      }
      // A retry after a preemption does not preempt again: one preemption per pod and run.
      if (post.status.ok() && post.nominated_node && !retrying_) {
        return preempt(pod, std::move(result), post);
      }
      post_filter_message = post.status.message();
    }
    result.result = kUnschedulable;
    result.message =
        fit_error_message(snapshot_.size(), pre_filter_message, failed, post_filter_message);
    decide(std::move(result));
  }

  // PostFilter made room on a node: evict the victims it chose, then retry the pod, which now
  // carries the nomination (upstream requeues it; nothing else can run in between here).
  void preempt(const PodPtr& pod, PodResult result, const framework::PostFilterOutcome& post) {
    const std::string& node = *post.nominated_node;
    const NodeInfo* info = snapshot_.find(node);
    auto refuse = [&](const std::string& why) {
      result.result = kError;
      result.message = "PostFilter plugin \"" + post.plugin + "\" " + why;
      decide(std::move(result));
    };
    if (info == nullptr)
      return refuse("nominated node \"" + node + "\", which is not in the cluster");
    std::vector<std::string> uids;
    std::vector<std::string> keys;
    for (const std::string& uid : post.victims) {
      const Pod* victim = info->find_pod(uid);
      if (victim == nullptr) {
        return refuse("chose victim uid \"" + uid + "\", which is not a pod on node \"" + node +
                      "\"");
      }
      if (std::find(uids.begin(), uids.end(), uid) != uids.end()) continue;
      uids.push_back(uid);
      keys.push_back(victim->key());
    }
    for (const std::string& uid : uids)
      evict(uid, *pod, node);
    finish_resolved_waits();  // victims that waited at Permit are unreserved now
    retrying_ = true;
    schedule_one(pod->nominated_to(node), std::move(keys));
    retrying_ = false;
  }

  // Removes a victim from the snapshot and reports it Preempted (upstream deletes it; a victim
  // waiting at Permit is rejected there instead, and unreserved).
  void evict(const std::string& uid, const Pod& preemptor, const std::string& node) {
    std::string message = "Preempted by pod " + preemptor.uid() + " on node " + node;
    if (waiting_assumed_.count(uid) != 0) {
      waiting_.reject(uid, "", "preempted");
      preempted_.emplace(uid, std::move(message));  // fail_assumed reports it
      return;
    }
    const Pod* victim = snapshot_.find(node)->find_pod(uid);
    PodResult entry{victim->key(),
                    victim->scheduler_name(),
                    kPreempted,
                    node,
                    std::move(message),
                    std::nullopt,
                    {}};
    snapshot_.remove(uid);
    snapshot_changed();
    if (auto placed = placed_.find(uid); placed != placed_.end()) {
      // Placed earlier in this run: its one entry changes.
      PodResult& earlier = result_.pods[placed->second];
      earlier.result = kPreempted;
      earlier.message = std::move(entry.message);
      placed_.erase(placed);
      return;
    }
    decide(std::move(entry));
  }

  void snapshot_changed() const {
    if (options_.on_snapshot_change) options_.on_snapshot_change(snapshot_);
  }

  // After Reserve: undo everything and report why.
  void fail_assumed(Assumed assumed, const Status& why) {
    assumed.framework->run_unreserve(assumed.cycle, *assumed.pod, assumed.result.node);
    snapshot_.remove(assumed.pod->uid());
    snapshot_changed();
    if (auto it = preempted_.find(assumed.pod->uid()); it != preempted_.end()) {
      assumed.result.result = kPreempted;
      assumed.result.message = std::move(it->second);
      preempted_.erase(it);
      return decide(std::move(assumed.result));
    }
    assumed.result.result = why.rejected() ? kUnschedulable : kError;
    assumed.result.message = why.message();
    assumed.result.node.clear();
    decide(std::move(assumed.result));
  }

  // The binding cycle: PreBind, Bind (first binder that does not skip), PostBind.
  void bind(Assumed assumed) {
    const Framework& fw = *assumed.framework;
    const std::string& node = assumed.result.node;
    if (Status s = fw.run_pre_bind(assumed.cycle, *assumed.pod, node); !s.ok()) {
      return fail_assumed(std::move(assumed), s);
    }
    if (Status s = fw.run_bind(assumed.cycle, *assumed.pod, node); !s.ok()) {
      return fail_assumed(std::move(assumed), s);
    }
    fw.run_post_bind(assumed.cycle, *assumed.pod, node);
    assumed.result.result = kScheduled;
    placed_.emplace(assumed.pod->uid(), result_.pods.size());
    decide(std::move(assumed.result));
    snapshot_changed();
  }

  void finish_wait(framework::WaitingPods::Entry entry) {
    auto it = waiting_assumed_.find(entry.pod->uid());
    if (it == waiting_assumed_.end()) return;
    Assumed assumed = std::move(it->second);
    waiting_assumed_.erase(it);
    if (entry.rejected) {
      return fail_assumed(std::move(assumed), {SCHEDHOST_UNSCHEDULABLE, {*entry.rejected}, {}});
    }
    bind(std::move(assumed));
  }

  // Pods at Permit that every waiting plugin allowed, or that one rejected. A binding or an
  // Unreserve may resolve more (gang scheduling rejects the rest of a gang), hence the loop.
  void finish_resolved_waits() {
    for (auto resolved = waiting_.take_resolved(); !resolved.empty();
         resolved = waiting_.take_resolved()) {
      for (auto& entry : resolved)
        finish_wait(std::move(entry));
    }
  }

  const config::SchedulerConfiguration& configuration_;
  const RunOptions& options_;
  cluster::Snapshot snapshot_;
  framework::WaitingPods waiting_;
  std::map<std::string, Assumed> waiting_assumed_;  // by pod uid
  std::map<std::string, std::size_t> placed_;       // pod uid -> its Scheduled entry in result_
  std::map<std::string, std::string> preempted_;    // waiting victim uid -> its message
  framework::Parallelizer parallelizer_;
  std::vector<std::unique_ptr<Framework>> frameworks_;
  std::mt19937_64 rng_;
  std::size_t next_start_node_index_ = 0;
  bool retrying_ = false;  // scheduling a pod again after its preemption: no second one
  RunResult result_;
};

}  // namespace

RunResult run_scheduler(const config::SchedulerConfiguration& configuration,
                        const loader::PluginRegistry& registry, const cluster::Cluster& cluster,
                        const RunOptions& options) {
  Run run(configuration, registry, cluster, options);
  return run.run(cluster);
}

}  // namespace schedhost::scheduler
