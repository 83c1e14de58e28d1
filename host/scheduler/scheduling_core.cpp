#include "scheduler/scheduling_core.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <unordered_set>

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

// Upstream's plugin for pods with spec.resourceClaims, which schedhost does not have yet.
constexpr const char* kDynamicResources = "DynamicResources";
constexpr const char* kNoDynamicResources =
    "pod uses spec.resourceClaims (dynamic resource allocation), which needs the "
    "DynamicResources plugin to allocate its devices: schedhost does not provide it yet, and "
    "the profile enables no plugin of that name";

FilterVerdict verdict(const Status& s) {
  return {std::string(framework::code_name(s.code)), s.plugin, s.reasons};
}

std::set<std::string> rejecting_plugins(const std::vector<Status>& failed) {
  std::set<std::string> plugins;
  for (const Status& s : failed) {
    if (!s.plugin.empty()) plugins.insert(s.plugin);
  }
  return plugins;
}

FilterVerdict not_evaluated(std::string why) {
  return {"NotEvaluated", "", {std::move(why)}};
}

}  // namespace

SchedulingCore::SchedulingCore(const config::SchedulerConfiguration& configuration,
                               const loader::PluginRegistry& registry, cluster::Snapshot& snapshot,
                               CycleSink& sink, CoreOptions options)
    : configuration_(configuration),
      options_(options),
      snapshot_(snapshot),
      sink_(sink),
      parallelizer_(configuration.parallelism, options.min_parallel_work),
      rng_(options.seed),
      ranking_rng_(options.seed ^ 0x9e3779b97f4a7c15ULL) {
  for (const config::Profile& profile : configuration.profiles) {
    frameworks_.push_back(std::make_unique<Framework>(profile, registry));
    frameworks_.back()->set_environment(&snapshot_, &waiting_, &parallelizer_, &nominated_);
    if (options.opportunistic_batching) {
      batches_.push_back(std::make_unique<OpportunisticBatch>(
          profile.scheduler_name, options.batch_max_age, options.batch_metrics));
    }
  }
  for (const config::ExtenderConfig& extender : configuration.extenders) {
    extenders_.push_back(std::make_unique<HttpExtender>(extender));
    if (extenders_.back()->preempts() && !preemption_extenders_) {
      preemption_extenders_ = [this](const Pod& pod,
                                     std::vector<framework::PreemptionCandidate>& candidates) {
        return preempt_with_extenders(pod, candidates);
      };
    }
  }
}

OpportunisticBatch* SchedulingCore::batch_for(const Framework& fw) {
  if (batches_.empty()) return nullptr;
  for (std::size_t i = 0; i < frameworks_.size(); ++i) {
    if (frameworks_[i].get() == &fw) return batches_[i].get();
  }
  return nullptr;
}

const Framework* SchedulingCore::framework_for(const Pod& pod) const {
  for (const auto& f : frameworks_) {
    if (f->name() == pod.scheduler_name()) return f.get();
  }
  return nullptr;
}

void SchedulingCore::fail(const PodPtr& pod, PodResult result, std::string message, bool error,
                          FailureDetail detail) {
  result.result = error ? kError : kUnschedulable;
  result.message = std::move(message);
  if (error) {
    detail.unschedulable_plugins.clear();
    detail.nominated_node = "";  // upstream clears the nomination after an error
  }
  if (detail.nominated_node && detail.nominated_node->empty()) nominated_.remove(pod->uid());
  sink_.decided(pod, std::move(result), detail);
}

void SchedulingCore::schedule_one(const PodPtr& pod, std::vector<std::string> preempted) {
  const Framework& fw = *framework_for(*pod);
  const std::uint64_t pop = ++pops_;
  PodResult result{pod->key(), fw.name(), "", "", "", std::nullopt, std::move(preempted)};
  if (options_.explain) result.explain = Explanation{};
  CycleContext cycle = fw.new_cycle();

  if (snapshot_.size() == 0) {
    return fail(pod, std::move(result), "no nodes available to schedule pods", false);
  }

  // Dynamic resource allocation (GA since v1.34): a pod bound with claims nobody allocated
  // stays stuck on its node, so without a DynamicResources plugin it is not placed at all, and
  // the message says why (as a PreFilter rejection: no node is tried).
  if (pod->has_resource_claims() && !fw.enables(kDynamicResources, ExtensionPoint::PreFilter)) {
    const Status why{
        SCHEDHOST_UNSCHEDULABLE_AND_UNRESOLVABLE, {kNoDynamicResources}, kDynamicResources};
    std::vector<Status> statuses(snapshot_.size(), why);
    return unschedulable(fw, cycle, pod, std::move(result), why.message(), all_node_indexes(),
                         statuses);
  }

  // PreFilter.
  framework::PreFilterOutcome pre = fw.run_pre_filter(cycle, *pod);
  if (!pre.status.ok() && !pre.status.rejected()) {
    return fail(pod, std::move(result), pre.status.message(), true);
  }
  if (pre.status.rejected()) {
    // Every node gets PreFilter's status, as upstream records it for preemption.
    std::vector<Status> statuses(snapshot_.size(), pre.status);
    return unschedulable(fw, cycle, pod, std::move(result), pre.status.message(),
                         all_node_indexes(), statuses);
  }

  // Opportunistic batching: a pod like the previous one may take the next node of its ranking.
  OpportunisticBatch* batch = batch_for(fw);
  std::optional<std::string> signature;
  std::optional<OpportunisticBatch::Hint> hint;
  if (batch != nullptr) {
    // Upstream disables signatures in a profile with extenders: their filter and scores are not
    // the plugins' to promise. Without a signature nothing is reused, but the counts go on.
    if (extenders_.empty()) signature = fw.sign_pod(*pod);
    hint = batch->hint(
        signature, pop, snapshot_.layout(),
        [&](const std::string& node) { return !snapshot_.index_of(node); },
        [&](const std::string& node) {
          cycle.state.set_read_only(true);
          const bool rejected = fw.run_filter(cycle, *pod, *snapshot_.find(node)).rejected();
          cycle.state.set_read_only(false);
          return rejected;
        },
        [&](const OpportunisticBatch::Scores& scores) { return ranking(scores); });
  }
  const auto store = [&](std::size_t chosen, std::optional<OpportunisticBatch::Scores> scores) {
    if (batch == nullptr) return;
    batch->store(signature, hint, snapshot_.at(chosen).name(), std::move(scores), pop, pod->key());
  };

  // A pod nominated by a preemption tries that node first, alone (upstream's
  // evaluateNominatedNode), or else the batching hint: if it passes Filter it is chosen
  // without scoring.
  const bool nominated = !pod->nominated_node_name().empty();
  if (nominated || hint) {
    const std::string& first = nominated ? pod->nominated_node_name() : hint->node;
    if (std::optional<std::size_t> node = fits_first_node(fw, cycle, *pod, first)) {
      // It must pass the extenders too; if one rejects it, every node is tried as usual.
      Filtered alone;
      alone.feasible = {*node};
      if (std::optional<std::string> error = pass_extenders(*pod, alone, nullptr)) {
        return fail(pod, std::move(result), *error, true);
      }
      if (!alone.feasible.empty()) {
        if (options_.explain) {
          if (nominated) {
            explain_first_node(*result.explain, *node,
                               "the pod's nominated node was tried first and fits");
          } else {
            explain_first_node(
                *result.explain, *node,
                "the ranking of " + hint->ranked_by + " was reused (opportunistic batching)");
            result.explain->reused = ReusedRanking{hint->ranked_by, hint->left};
          }
        }
        store(*node, std::nullopt);
        return assume_and_reserve(fw, pod, std::move(cycle), std::move(result), *node);
      }
    }
  }

  // The nodes to filter: all, or PreFilter's, in snapshot order.
  std::vector<std::size_t> narrowed;
  if (pre.node_names) {
    const std::unordered_set<std::string> wanted(pre.node_names->begin(), pre.node_names->end());
    for (std::size_t i = 0; i < snapshot_.size(); ++i) {
      if (wanted.count(snapshot_.at(i).name()) != 0) narrowed.push_back(i);
    }
  }
  const std::vector<std::size_t>& nodes = pre.node_names ? narrowed : all_node_indexes();

  Filtered filtered = find_feasible(fw, cycle, *pod, nodes);
  if (options_.explain)
    explain_filter(*result.explain, nodes, filtered, pre.node_names.has_value());
  if (!filtered.error.ok()) return fail(pod, std::move(result), filtered.error.message(), true);
  if (std::optional<std::string> error =
          pass_extenders(*pod, filtered, options_.explain ? &*result.explain : nullptr)) {
    return fail(pod, std::move(result), *error, true);
  }
  if (filtered.feasible.empty()) {
    if (pre.node_names) {
      // The nodes PreFilter left out count too (upstream v1.35), as resolvable by nothing.
      const Status left_out{
          SCHEDHOST_UNSCHEDULABLE_AND_UNRESOLVABLE,
          {"node(s) didn't satisfy plugin(s) " + framework::go_list(pre.narrowing)},
          {}};
      std::vector<bool> tried(snapshot_.size(), false);
      for (std::size_t i : nodes)
        tried[i] = true;
      for (std::size_t i = 0; i < snapshot_.size(); ++i) {
        if (tried[i]) continue;
        filtered.failed_nodes.push_back(i);
        filtered.failed.push_back(left_out);
      }
    }
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
      return fail(pod, std::move(result), s.message(), true);
    }
    framework::ScoreOutcome scores = fw.run_score(cycle, *pod, feasible, parallelizer_);
    if (options_.rest_after_scoring) parallelizer_.rest();
    if (!scores.status.ok()) return fail(pod, std::move(result), scores.status.message(), true);
    if (options_.explain) explain_scores(*result.explain, filtered.feasible, scores);
    add_extender_scores(*pod, filtered.feasible, scores,
                        options_.explain ? &*result.explain : nullptr);
    chosen = filtered.feasible[select_host(scores.totals, rng_)];
    if (batch != nullptr) {
      store(chosen,
            OpportunisticBatch::Scores{std::move(filtered.feasible), std::move(scores.totals),
                                       chosen, snapshot_.layout()});
    }
  } else {
    store(chosen, std::nullopt);
  }
  assume_and_reserve(fw, pod, std::move(cycle), std::move(result), chosen);
}

std::vector<std::string> SchedulingCore::ranking(const OpportunisticBatch::Scores& scores) {
  const std::vector<std::size_t>& feasible = scores.nodes;
  const std::vector<std::int64_t>& totals = scores.totals;
  const std::size_t chosen = scores.chosen;
  struct Ranked {
    std::int64_t total;
    std::uint64_t tie_break;  // upstream's Randomizer
    std::size_t node;
  };
  std::vector<Ranked> ranked;
  ranked.reserve(feasible.size());
  for (std::size_t k = 0; k < feasible.size(); ++k) {
    if (feasible[k] != chosen) ranked.push_back({totals[k], ranking_rng_(), feasible[k]});
  }
  std::sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) {
    return a.total != b.total ? a.total > b.total : a.tie_break > b.tie_break;
  });
  std::vector<std::string> names;
  names.reserve(ranked.size());
  for (const Ranked& r : ranked)
    names.push_back(snapshot_.at(r.node).name());
  return names;
}

std::optional<std::size_t> SchedulingCore::fits_first_node(const Framework& fw, CycleContext& cycle,
                                                           const Pod& pod,
                                                           const std::string& node) {
  const std::optional<std::size_t> index = snapshot_.index_of(node);
  if (!index) return std::nullopt;
  cycle.state.set_read_only(true);
  const bool fits = fw.run_filter_with_nominated_pods(cycle, pod, snapshot_.at(*index)).ok();
  cycle.state.set_read_only(false);
  if (!fits) return std::nullopt;
  return index;
}

void SchedulingCore::explain_first_node(Explanation& explain, std::size_t node,
                                        const std::string& why) const {
  for (std::size_t i = 0; i < snapshot_.size(); ++i) {
    NodeExplanation e;
    e.filter = i == node ? FilterVerdict{"Success", "", {}} : not_evaluated(why);
    explain.nodes.emplace_back(snapshot_.at(i).name(), std::move(e));
  }
}

// Assume the pod on the chosen node, then Reserve and Permit; then bind, or wait at Permit.
void SchedulingCore::assume_and_reserve(const Framework& fw, const PodPtr& pod, CycleContext cycle,
                                        PodResult result, std::size_t chosen) {
  const std::string node = snapshot_.at(chosen).name();
  result.node = node;
  nominated_.remove(pod->uid());  // upstream's assume ends the nomination
  AssumedPod assumed{snapshot_.assume(*pod, node), &fw, std::move(cycle), std::move(result)};

  if (Status s = fw.run_reserve(assumed.cycle, *assumed.pod, node); !s.ok()) {
    return fail_assumed(std::move(assumed), s, false);
  }
  framework::PermitOutcome permit = fw.run_permit(assumed.cycle, *assumed.pod, node);
  if (permit.status.code == SCHEDHOST_WAIT) {
    waiting_.add(assumed.pod, node, std::move(permit.waits));
    sink_.waiting_at_permit(assumed);
    waiting_assumed_.emplace(assumed.pod->uid(), std::move(assumed));
    return;
  }
  if (!permit.status.ok()) return fail_assumed(std::move(assumed), permit.status, false);
  sink_.start_binding(std::move(assumed));
}

const std::vector<std::size_t>& SchedulingCore::all_node_indexes() {
  while (all_node_indexes_.size() < snapshot_.size())
    all_node_indexes_.push_back(all_node_indexes_.size());
  all_node_indexes_.resize(snapshot_.size());
  return all_node_indexes_;
}

// Filter over nodes, starting where the previous pod stopped, until enough feasible nodes are
// found. Nodes are evaluated in parallel batches but accepted in rotation order, so the outcome
// is the one a sequential scan gives: reproducible whatever the thread timing.
SchedulingCore::Filtered SchedulingCore::find_feasible(const Framework& fw, CycleContext& cycle,
                                                       const Pod& pod,
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
      Status s = fw.run_filter_with_nominated_pods(cycle, pod, node);
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

void SchedulingCore::explain_filter(Explanation& explain, const std::vector<std::size_t>& nodes,
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

void SchedulingCore::explain_scores(Explanation& explain, const std::vector<std::size_t>& feasible,
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
void SchedulingCore::unschedulable(const Framework& fw, CycleContext& cycle, const PodPtr& pod,
                                   PodResult result, const std::string& pre_filter_message,
                                   const std::vector<std::size_t>& failed_nodes,
                                   const std::vector<Status>& failed) {
  if (options_.explain && result.explain->nodes.empty()) {
    for (std::size_t k = 0; k < failed_nodes.size(); ++k) {
      result.explain->nodes.emplace_back(snapshot_.at(failed_nodes[k]).name(),
                                         NodeExplanation{verdict(failed[k]), {}, std::nullopt});
    }
  }
  std::string post_filter_message;
  bool post_filter_cleared = false;
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
    framework::PostFilterOutcome post = fw.run_post_filter(
        cycle, *pod, statuses, &parallelizer_, [this] { return rng_(); }, &preemption_extenders_);
    post_filter_cleared = post.nominated_node && post.nominated_node->empty();
    if (post.status.code == SCHEDHOST_ERROR) {
      // As upstream: the pod still fails with the FitError, PostFilter's error its last words,
      // and keeps its nomination.
      spdlog::error("Status after running PostFilter plugins for pod {}: {}", pod->key(),
                    post.status.message());
      post_filter_cleared = false;
    } else if (post.status.ok() && post.nominated_node && !post.nominated_node->empty() &&
               !retrying_) {
      // A retry after a preemption does not preempt again: one preemption per pod and attempt.
      result.message =
          fit_error_message(snapshot_.size(), pre_filter_message, failed, post.status.message());
      return preempt(pod, std::move(result), post, rejecting_plugins(failed));
    }
    post_filter_message = post.status.message();
  }
  FailureDetail detail;
  // PostFilter found no candidate and said so with an empty nomination: the pod's is cleared.
  if (post_filter_cleared) detail.nominated_node = "";
  detail.unschedulable_plugins = rejecting_plugins(failed);
  fail(pod, std::move(result),
       fit_error_message(snapshot_.size(), pre_filter_message, failed, post_filter_message), false,
       std::move(detail));
}

// PostFilter made room on a node: check the victims it chose, reject those waiting at Permit,
// and let the sink evict the others.
void SchedulingCore::preempt(const PodPtr& pod, PodResult result,
                             const framework::PostFilterOutcome& post,
                             std::set<std::string> unschedulable_plugins) {
  const std::string& node = *post.nominated_node;
  const NodeInfo* info = snapshot_.find(node);
  auto refuse = [&](const std::string& why) {
    fail(pod, std::move(result), "PostFilter plugin \"" + post.plugin + "\" " + why, true);
  };
  if (info == nullptr) {
    return refuse("nominated node \"" + node + "\", which is not in the cluster");
  }
  Preemption preemption{node, {}, {}, post.plugin, std::move(unschedulable_plugins)};
  for (const std::string& uid : post.victims) {
    const Pod* victim = info->find_pod(uid);
    if (victim == nullptr) {
      return refuse("chose victim uid \"" + uid + "\", which is not a pod on node \"" + node +
                    "\"");
    }
    if (std::find(preemption.victim_uids.begin(), preemption.victim_uids.end(), uid) !=
        preemption.victim_uids.end()) {
      continue;
    }
    preemption.victim_uids.push_back(uid);
    preemption.victim_keys.push_back(victim->key());
  }
  nominated_.add(pod->nominated_to(node), node);
  sink_.preempt(pod, std::move(result), preemption);
}

void SchedulingCore::retry_after_preemption(const PodPtr& pod, const std::string& node,
                                            std::vector<std::string> preempted) {
  retrying_ = true;
  schedule_one(pod->nominated_to(node), std::move(preempted));
  retrying_ = false;
}

bool SchedulingCore::reject_waiting(const std::string& uid, const std::string& message) {
  if (waiting_assumed_.count(uid) == 0) return false;
  return waiting_.reject(uid, "", message);
}

// After Reserve: undo everything and report why.
void SchedulingCore::fail_assumed(AssumedPod assumed, const Status& why, bool in_binding_cycle) {
  assumed.framework->run_unreserve(assumed.cycle, *assumed.pod, assumed.result.node);
  // Only the assumed copy leaves: in a live cluster the API server's copy may have replaced it
  // (the binding went through although its answer was lost, or another scheduler bound it).
  const NodeInfo* node = snapshot_.node_of_pod(assumed.pod->uid());
  if (node != nullptr && node->find_pod(assumed.pod->uid()) == assumed.pod.get()) {
    snapshot_.remove(assumed.pod->uid());
  }
  assumed.result.result = why.rejected() ? kUnschedulable : kError;
  assumed.result.message = why.message();
  FailureDetail detail;
  detail.after_reserve = true;
  detail.in_binding_cycle = in_binding_cycle;
  detail.nominated_node = "";  // upstream clears the nomination after a failure past Reserve
  if (why.rejected() && !why.plugin.empty()) detail.unschedulable_plugins.insert(why.plugin);
  sink_.decided(assumed.pod, std::move(assumed.result), detail);
}

Status SchedulingCore::run_binding_plugins(AssumedPod& assumed,
                                           const std::function<void()>& before_pre_bind) const {
  const Framework& fw = *assumed.framework;
  const std::string& node = assumed.result.node;
  // Upstream v1.35: a PreBind that will do work is announced first (serve writes the pod's
  // nominatedNodeName), so that others see where the pod is going while it waits.
  Status pre_flight = fw.run_pre_bind_pre_flight(assumed.cycle, *assumed.pod, node);
  if (!pre_flight.ok() && !pre_flight.skipped()) return pre_flight;
  if (pre_flight.ok() && before_pre_bind) before_pre_bind();
  if (Status s = fw.run_pre_bind(assumed.cycle, *assumed.pod, node); !s.ok()) return s;
  // An extender that binds, and is interested in the pod, binds it instead of the Bind plugins.
  if (const HttpExtender* binder = binder_for(*assumed.pod)) {
    try {
      binder->bind(*assumed.pod, node);
      return {};
    } catch (const ExtenderError& e) {
      return Status::error(e.what());
    }
  }
  return fw.run_bind(assumed.cycle, *assumed.pod, node);
}

void SchedulingCore::finish_binding(AssumedPod assumed, const Status& status) {
  if (!status.ok()) return fail_assumed(std::move(assumed), status, true);
  assumed.framework->run_post_bind(assumed.cycle, *assumed.pod, assumed.result.node);
  assumed.result.result = kScheduled;
  const PodPtr pod = assumed.pod;
  sink_.decided(pod, std::move(assumed.result), {});
}

void SchedulingCore::bind_now(AssumedPod assumed) {
  const Status status = run_binding_plugins(assumed);
  finish_binding(std::move(assumed), status);
}

void SchedulingCore::finish_wait(framework::WaitingPods::Entry entry) {
  auto it = waiting_assumed_.find(entry.pod->uid());
  if (it == waiting_assumed_.end()) return;
  AssumedPod assumed = std::move(it->second);
  waiting_assumed_.erase(it);
  if (entry.rejected) {
    return fail_assumed(std::move(assumed),
                        {SCHEDHOST_UNSCHEDULABLE, {*entry.rejected}, entry.rejected_by}, true);
  }
  sink_.start_binding(std::move(assumed));
}

// A binding or an Unreserve may resolve more waits (gang scheduling rejects the rest of a gang),
// hence the loop.
void SchedulingCore::finish_resolved_waits() {
  for (auto resolved = waiting_.take_resolved(); !resolved.empty();
       resolved = waiting_.take_resolved()) {
    for (auto& entry : resolved)
      finish_wait(std::move(entry));
  }
}

bool SchedulingCore::expire_first_wait() {
  auto expired = waiting_.expire_first();
  if (!expired) return false;
  finish_wait(std::move(*expired));
  finish_resolved_waits();
  return true;
}

void SchedulingCore::expire_due_waits(std::chrono::steady_clock::time_point now) {
  while (auto expired = waiting_.expire_first_due(now)) {
    finish_wait(std::move(*expired));
    finish_resolved_waits();
  }
}

}  // namespace schedhost::scheduler
