#include "cli/nodes_after_run.hpp"

#include <map>
#include <set>

namespace schedhost::cli {
namespace {

constexpr std::string_view kZoneLabel = "topology.kubernetes.io/zone";

void count(NodeAfterRun& node, const cluster::Pod& pod) {
  node.cpu_requested += pod.requests().get_or_zero("cpu");
  node.memory_requested += pod.requests().get_or_zero("memory");
  ++node.pods;
}

}  // namespace

std::vector<NodeAfterRun> nodes_after_run(const cluster::Cluster& cluster,
                                          const scheduler::RunResult& result) {
  std::vector<NodeAfterRun> out;
  std::map<std::string, std::size_t, std::less<>> index;
  for (const auto& node : cluster.nodes) {
    NodeAfterRun n;
    n.name = node->name();
    if (const std::string* zone = node->labels().find(kZoneLabel)) n.zone = *zone;
    n.cpu_allocatable = node->allocatable().get_or_zero("cpu");
    n.memory_allocatable = node->allocatable().get_or_zero("memory");
    index.emplace(n.name, out.size());
    out.push_back(std::move(n));
  }
  std::set<std::string, std::less<>> preempted;
  std::map<std::string, std::string, std::less<>> bound;  // pod key -> node
  for (const scheduler::PodResult& r : result.pods) {
    if (r.result == scheduler::kPreempted) preempted.insert(r.pod);
    if (r.result == scheduler::kScheduled) bound.emplace(r.pod, r.node);
  }
  for (const auto& pod : cluster.running_pods) {
    auto it = index.find(pod->node_name());
    if (it != index.end() && !preempted.contains(pod->key())) count(out[it->second], *pod);
  }
  for (const auto& pod : cluster.pending_pods) {
    auto b = bound.find(pod->key());
    if (b == bound.end()) continue;
    if (auto it = index.find(b->second); it != index.end()) count(out[it->second], *pod);
  }
  return out;
}

}  // namespace schedhost::cli
