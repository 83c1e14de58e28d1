// The scheduling cycle's extender steps, upstream's findNodesThatPassExtenders, the extender half
// of prioritizeNodes, extendersBinding and the preemption evaluator's callExtenders: each
// configured extender in turn, skipped when the pod requests none of its managedResources.
#include <spdlog/spdlog.h>

#include <unordered_map>
#include <unordered_set>

#include "scheduler/scheduling_core.hpp"

namespace schedhost::scheduler {
namespace {

using framework::Status;

// An extender's column in --explain: where a plugin's name would be.
std::string explain_label(const HttpExtender& e) {
  return "extender " + e.name();
}

// Upstream's MaxNodeScore / MaxExtenderPriority: an extender's 0-10 becomes the plugins' 0-100.
constexpr std::int64_t kExtenderScoreScale = 100 / 10;

}  // namespace

std::optional<std::string> SchedulingCore::pass_extenders(const cluster::Pod& pod,
                                                          Filtered& filtered,
                                                          Explanation* explain) const {
  for (const auto& extender : extenders_) {
    if (filtered.feasible.empty()) break;
    if (!extender->interested(pod)) continue;
    std::vector<const cluster::Node*> nodes;
    for (std::size_t i : filtered.feasible)
      nodes.push_back(&snapshot_.at(i).node());
    ExtenderFilterAnswer answer;
    try {
      answer = extender->filter(pod, nodes);
    } catch (const ExtenderError& e) {
      if (!extender->ignorable()) return e.what();
      spdlog::info("extender {} failed and is ignorable, skipped for pod {}: {}", extender->name(),
                   pod.key(), e.what());
      continue;
    }
    // The nodes it rejects join the Filter statuses: unresolvable ones first, and a node in both
    // maps is unresolvable only. A node that already has a status gets the reason appended.
    std::unordered_map<std::size_t, std::size_t> status_of;  // snapshot index -> in failed
    for (std::size_t k = 0; k < filtered.failed_nodes.size(); ++k)
      status_of[filtered.failed_nodes[k]] = k;
    auto record = [&](const std::string& node, schedhost_code_t code, const std::string& reason,
                      bool replace_code) {
      const std::optional<std::size_t> index = snapshot_.index_of(node);
      if (!index) {
        spdlog::warn("extender {} rejected node {}, which is not in the cluster: ignored",
                     extender->name(), node);
        return;
      }
      auto it = status_of.find(*index);
      if (it == status_of.end()) {
        status_of[*index] = filtered.failed.size();
        filtered.failed_nodes.push_back(*index);
        filtered.failed.push_back(Status{code, {reason}, ""});
      } else {
        Status& s = filtered.failed[it->second];
        s.reasons.push_back(reason);
        if (replace_code) s.code = code;
      }
      if (explain != nullptr && *index < explain->nodes.size()) {
        const Status& s = filtered.failed[status_of[*index]];
        explain->nodes[*index].second.filter = {std::string(framework::code_name(s.code)),
                                                explain_label(*extender), s.reasons};
      }
    };
    for (const auto& [node, reason] : answer.failed_unresolvable)
      record(node, SCHEDHOST_UNSCHEDULABLE_AND_UNRESOLVABLE, reason, true);
    for (const auto& [node, reason] : answer.failed) {
      if (answer.failed_unresolvable.count(node) == 0)
        record(node, SCHEDHOST_UNSCHEDULABLE, reason, false);
    }
    // The nodes it passes, in its order, among those it was given (sets, not scans: at 5000
    // nodes a scan per node is 25 million comparisons per pod).
    const std::unordered_set<std::size_t> given(filtered.feasible.begin(), filtered.feasible.end());
    std::vector<std::size_t> passed;
    std::unordered_set<std::size_t> kept;
    for (const std::string& name : answer.feasible) {
      const std::optional<std::size_t> index = snapshot_.index_of(name);
      if (index && given.count(*index) != 0) {
        if (kept.insert(*index).second) passed.push_back(*index);
      } else {
        spdlog::warn("extender {} passed node \"{}\", which it was not given: ignored",
                     extender->name(), name);
      }
    }
    if (explain != nullptr) {
      // A node it dropped without a reason still says who dropped it.
      for (std::size_t i : filtered.feasible) {
        if (kept.count(i) == 0 && status_of.count(i) == 0 && i < explain->nodes.size()) {
          explain->nodes[i].second.filter = {
              "Unschedulable", explain_label(*extender), {"not in the extender's filter answer"}};
        }
      }
    }
    filtered.feasible = std::move(passed);
  }
  return std::nullopt;
}

void SchedulingCore::add_extender_scores(const cluster::Pod& pod,
                                         const std::vector<std::size_t>& feasible,
                                         framework::ScoreOutcome& scores,
                                         Explanation* explain) const {
  if (extenders_.empty()) return;
  std::vector<const cluster::Node*> nodes;
  std::unordered_map<std::string_view, std::size_t> position;  // node name -> in feasible
  for (std::size_t k = 0; k < feasible.size(); ++k) {
    nodes.push_back(&snapshot_.at(feasible[k]).node());
    position[nodes.back()->name()] = k;
  }
  for (const auto& extender : extenders_) {
    if (!extender->interested(pod)) continue;
    std::vector<std::int64_t> added(feasible.size(), 0);
    try {
      for (const auto& [host, score] : extender->prioritize(pod, nodes)) {
        if (auto it = position.find(host); it != position.end())
          added[it->second] += score * extender->config().weight * kExtenderScoreScale;
      }
    } catch (const ExtenderError& e) {
      // Upstream lets the plugins and the other extenders decide.
      spdlog::info("extender {} failed to prioritize pod {}, its scores are left out: {}",
                   extender->name(), pod.key(), e.what());
      continue;
    }
    for (std::size_t k = 0; k < feasible.size(); ++k) {
      scores.totals[k] += added[k];
      if (explain != nullptr) {
        NodeExplanation& e = explain->nodes[feasible[k]].second;
        e.scores.emplace_back(explain_label(*extender), added[k]);
        e.total = scores.totals[k];
      }
    }
  }
}

const HttpExtender* SchedulingCore::binder_for(const cluster::Pod& pod) const {
  for (const auto& extender : extenders_) {
    if (extender->binds() && extender->interested(pod)) return extender.get();
  }
  return nullptr;
}

std::optional<std::string> SchedulingCore::preempt_with_extenders(
    const cluster::Pod& pod, std::vector<framework::PreemptionCandidate>& candidates) const {
  using Victims = std::map<std::string, ExtenderMetaVictims>;
  // The victims as uids per node, which each extender in turn replaces.
  Victims current;
  for (const framework::PreemptionCandidate& c : candidates)
    current[c.node] = {c.victims, c.pdb_violations};
  for (const auto& extender : extenders_) {
    if (current.empty()) break;  // no candidate left: no preemption, whatever the others say
    if (!extender->preempts() || !extender->interested(pod)) continue;
    Victims answer;
    try {
      std::map<std::string, ExtenderVictims> offered;
      for (const auto& [node, victims] : current) {
        const cluster::NodeInfo* info = snapshot_.find(node);
        ExtenderVictims& v = offered[node];
        v.pdb_violations = victims.pdb_violations;
        for (const std::string& uid : victims.uids) {
          if (const cluster::Pod* p = info == nullptr ? nullptr : info->find_pod(uid)) {
            v.pods.push_back(p);
          }
        }
      }
      answer = extender->process_preemption(pod, offered);
      // upstream convertToVictims: every node and pod named must be in the snapshot.
      for (const auto& [node, victims] : answer) {
        const cluster::NodeInfo* info = snapshot_.find(node);
        if (info == nullptr)
          throw ExtenderError("nodeinfo not found for node name \"" + node + "\"");
        for (const std::string& uid : victims.uids) {
          if (info->find_pod(uid) != nullptr) continue;
          std::string why = "extender: " + extender->name();
          why.append(" claims to preempt pod (UID: &{").append(uid).append("}) on node: ");
          why.append(node).append(", but the pod is not found on that node");
          throw ExtenderError(why);
        }
      }
    } catch (const ExtenderError& e) {
      if (!extender->ignorable()) return e.what();
      spdlog::info("extender {} failed and is ignorable, skipped for pod {}: {}", extender->name(),
                   pod.key(), e.what());
      continue;
    }
    for (auto it = answer.begin(); it != answer.end();) {
      if (!it->second.uids.empty()) {
        ++it;
        continue;
      }
      if (!extender->ignorable()) {
        return "expected at least one victim pod on node \"" + it->first + "\"";
      }
      spdlog::info("extender {} reported no victims on node {}: the node is ignored",
                   extender->name(), it->first);
      it = answer.erase(it);
    }
    current = std::move(answer);
  }
  // What is left, in the order the plugin offered it; a node it did not offer is not taken.
  std::vector<framework::PreemptionCandidate> kept;
  for (framework::PreemptionCandidate& c : candidates) {
    auto it = current.find(c.node);
    if (it == current.end()) continue;
    kept.push_back({std::move(c.node), std::move(it->second.uids), it->second.pdb_violations});
    current.erase(it);
  }
  for (const auto& [node, victims] : current) {
    spdlog::warn(
        "an extender named node {} as a preemption candidate for pod {}, which the "
        "PostFilter plugin did not offer: ignored",
        node, pod.key());
  }
  candidates = std::move(kept);
  return std::nullopt;
}

}  // namespace schedhost::scheduler
