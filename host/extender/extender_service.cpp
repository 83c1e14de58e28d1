#include "extender/extender_service.hpp"

#include <memory>
#include <optional>
#include <string>
#include <unordered_set>

#include "cluster/object_error.hpp"

namespace schedhost::extender {
namespace {

using cluster::NodeInfo;
using framework::Status;

// Upstream's status for a node a PreFilter result leaves out.
constexpr const char* kNotInPreFilterResult = "node is filtered out by the prefilter result";
constexpr const char* kNotInCache =
    "node is not in the extender's node cache: it has not reached the extender's informer yet, "
    "or the extender watches another API server";
constexpr const char* kNoCache =
    "this extender has no node cache, so it cannot serve a NodeNames request "
    "(nodeCacheCapable: true): start `schedhost extender` with --kubeconfig (or in a pod, "
    "in-cluster), or set nodeCacheCapable: false in kube-scheduler's extender entry";

std::int64_t score_weight_sum(const config::Profile& profile) {
  std::int64_t sum = 0;
  for (const config::EnabledPlugin& p : profile.enabled_at(ExtensionPoint::Score))
    sum += p.weight;
  return sum;
}

std::shared_ptr<const cluster::Pod> build_pod(nlohmann::json object) {
  try {
    return std::make_shared<const cluster::Pod>(std::move(object));
  } catch (const cluster::ObjectError& e) {
    throw ProtocolError(std::string("ExtenderArgs.Pod: ") + e.what());
  }
}

}  // namespace

struct ExtenderService::Request {
  std::shared_ptr<const cluster::Pod> pod;
  std::vector<std::shared_ptr<const cluster::Node>> nodes;  // a Nodes request's, built
  std::vector<std::string_view> texts;                      // and their text, as sent
  std::vector<std::string> names;                           // every requested node, in order
  bool by_name = false;                                     // a NodeNames request
  // Set by resolve_nodes: what the plugins see, and where each requested node is in it
  // (nullopt: not in the node cache).
  const cluster::Snapshot* snapshot = nullptr;
  std::vector<std::optional<std::size_t>> positions;
};

ExtenderService::ExtenderService(const config::SchedulerConfiguration& configuration,
                                 const config::Profile& profile,
                                 const loader::PluginRegistry& registry, ClusterSource* cache,
                                 framework::FrameworkMetrics* metrics)
    : framework_(profile, registry),
      cache_(cache),
      score_weights_(score_weight_sum(profile)),
      parallelizer_(configuration.parallelism) {
  if (metrics != nullptr) framework_.set_metrics(metrics);
}

ExtenderService::Request ExtenderService::prepare(ExtenderArgs args) {
  Request r;
  r.pod = build_pod(std::move(args.pod));
  if (args.node_names) {
    r.by_name = true;
    r.names = std::move(*args.node_names);
    return r;
  }
  r.nodes = node_objects_.nodes(*args.nodes);
  r.names.reserve(r.nodes.size());
  for (const auto& node : r.nodes)
    r.names.push_back(node->name());
  r.texts = std::move(*args.nodes);
  return r;
}

void ExtenderService::resolve_nodes(Request& r) {
  const cluster::Snapshot* cached = cache_ != nullptr ? &cache_->refresh() : nullptr;
  if (r.by_name) {
    r.snapshot = cached;
    r.positions.reserve(r.names.size());
    for (const std::string& name : r.names)
      r.positions.push_back(cached->index_of(name));
    return;
  }
  // The request's node objects, with the pods the cache has on each.
  std::vector<const cluster::Node*> identity;
  identity.reserve(r.nodes.size());
  for (const auto& node : r.nodes)
    identity.push_back(node.get());
  const std::uint64_t cache_id = cached != nullptr ? cached->journal().id() : 0;
  const std::uint64_t cache_generation = cached != nullptr ? cached->generation() : 0;
  NodesSnapshot& last = last_nodes_;
  if (!last.snapshot || last.nodes != identity || last.cache_id != cache_id ||
      last.cache_generation != cache_generation) {
    last.snapshot.reset();
    std::vector<std::shared_ptr<const cluster::Pod>> pods;
    if (cached != nullptr) {
      for (const auto& node : r.nodes) {
        if (const NodeInfo* info = cached->find(node->name())) {
          pods.insert(pods.end(), info->pods().begin(), info->pods().end());
        }
      }
    }
    try {
      last.snapshot.emplace(r.nodes, pods);
    } catch (const std::invalid_argument& e) {
      throw ProtocolError(std::string("ExtenderArgs.Nodes: ") + e.what() + ": send each node once");
    }
    if (cached != nullptr) {
      last.snapshot->set_namespaces(cached->namespaces());
      last.snapshot->set_pod_disruption_budgets(cached->pod_disruption_budgets());
    }
    last.nodes = std::move(identity);
    last.cache_id = cache_id;
    last.cache_generation = cache_generation;
  }
  r.snapshot = &*last.snapshot;
  r.positions.reserve(r.names.size());
  for (std::size_t i = 0; i < r.names.size(); ++i)
    r.positions.emplace_back(i);
}

FilterResult ExtenderService::filter(ExtenderArgs args) {
  FilterResult result;
  if (args.node_names && cache_ == nullptr) {
    result.error = kNoCache;
    return result;
  }
  Request r = prepare(std::move(args));
  std::lock_guard lock(mutex_);
  resolve_nodes(r);
  framework_.set_environment(r.snapshot, &waiting_, &parallelizer_);

  framework::CycleContext cycle = framework_.new_cycle();
  const framework::PreFilterOutcome pre = framework_.run_pre_filter(cycle, *r.pod);
  if (!pre.status.ok() && !pre.status.rejected()) {
    result.error = pre.status.message();
    return result;
  }
  std::optional<std::unordered_set<std::string>> wanted;
  if (pre.node_names) wanted.emplace(pre.node_names->begin(), pre.node_names->end());

  // Per requested node: null when it passed, else why not. Nodes PreFilter settled are not run.
  const std::size_t n = r.names.size();
  std::vector<std::unique_ptr<Status>> verdicts(n);
  std::vector<std::size_t> to_filter;
  for (std::size_t k = 0; k < n; ++k) {
    if (!r.positions[k]) {
      verdicts[k] = std::make_unique<Status>(Status{SCHEDHOST_UNSCHEDULABLE, {kNotInCache}, {}});
    } else if (pre.status.rejected()) {
      verdicts[k] = std::make_unique<Status>(pre.status);
    } else if (wanted && wanted->count(r.names[k]) == 0) {
      verdicts[k] = std::make_unique<Status>(
          Status{SCHEDHOST_UNSCHEDULABLE_AND_UNRESOLVABLE, {kNotInPreFilterResult}, {}});
    } else {
      to_filter.push_back(k);
    }
  }
  cycle.state.set_read_only(true);
  parallelizer_.until(to_filter.size(), [&](std::size_t i) {
    const std::size_t k = to_filter[i];
    Status s = framework_.run_filter(cycle, *r.pod, r.snapshot->at(*r.positions[k]));
    if (!s.ok()) verdicts[k] = std::make_unique<Status>(std::move(s));
  });
  cycle.state.set_read_only(false);

  std::vector<std::string> passed_names;
  std::vector<std::string_view> passed_nodes;
  for (std::size_t k = 0; k < n; ++k) {
    const Status* s = verdicts[k].get();
    // The names are not needed after this loop: moved, not copied.
    if (s == nullptr) {
      if (r.by_name) {
        passed_names.push_back(std::move(r.names[k]));
      } else {
        passed_nodes.push_back(r.texts[k]);
      }
    } else if (s->code == SCHEDHOST_UNSCHEDULABLE) {
      result.failed_nodes.insert_or_assign(std::move(r.names[k]), s->message());
    } else if (s->code == SCHEDHOST_UNSCHEDULABLE_AND_UNRESOLVABLE) {
      result.failed_and_unresolvable_nodes.insert_or_assign(std::move(r.names[k]), s->message());
    } else {
      // An Error aborts the whole Filter, as in the scheduling cycle: the first in request order.
      FilterResult failed;
      failed.error = s->message();
      return failed;
    }
  }
  if (r.by_name) {
    result.node_names = std::move(passed_names);
  } else {
    result.nodes = std::move(passed_nodes);
  }
  return result;
}

std::vector<HostPriority> ExtenderService::prioritize(ExtenderArgs args) {
  if (args.node_names && cache_ == nullptr) throw ProtocolError(kNoCache);
  Request r = prepare(std::move(args));
  std::lock_guard lock(mutex_);
  resolve_nodes(r);
  framework_.set_environment(r.snapshot, &waiting_, &parallelizer_);

  std::vector<HostPriority> out(r.names.size());
  for (std::size_t k = 0; k < out.size(); ++k)
    out[k].host = r.names[k];
  // Score plugins may read what their PreFilter stored, so PreFilter runs first; a rejection
  // there leaves every node at 0 (kube-scheduler asks only after a filter, which would have
  // failed them all).
  framework::CycleContext cycle = framework_.new_cycle();
  const framework::PreFilterOutcome pre = framework_.run_pre_filter(cycle, *r.pod);
  if (pre.status.rejected()) return out;
  if (!pre.status.ok()) throw PluginError(pre.status.message());

  std::vector<const NodeInfo*> nodes;
  std::vector<std::size_t> scored;  // positions in out of nodes[]
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (!r.positions[k]) continue;  // not in the cache: 0
    nodes.push_back(&r.snapshot->at(*r.positions[k]));
    scored.push_back(k);
  }
  if (nodes.empty() || score_weights_ == 0) return out;
  if (Status s = framework_.run_pre_score(cycle, *r.pod, nodes); !s.ok()) {
    throw PluginError(s.message());
  }
  const framework::ScoreOutcome scores = framework_.run_score(cycle, *r.pod, nodes, parallelizer_);
  if (!scores.status.ok()) throw PluginError(scores.status.message());
  for (std::size_t i = 0; i < scored.size() && i < scores.totals.size(); ++i) {
    out[scored[i]].score = scores.totals[i] / (score_weights_ * 10);
  }
  return out;
}

}  // namespace schedhost::extender
