// schedhost/k8s/topology.hpp - topology domains: a (topologyKey, value) pair taken from a node's
// labels, and counting pods per domain, as upstream's PodTopologySpread and InterPodAffinity do.
//
//   auto zone = k8s::topology_pair(node, k8s::kLabelTopologyZone);       // nullopt: no label
//   int n = k8s::count_matching_pods(node.pods(), selector, pod.namespace_name());
//   auto per_zone = k8s::count_pods_per_domain(ctx.nodes(), k8s::kLabelTopologyZone, selector,
//                                              pod.namespace_name());    // {"zone-a": 3, ...}
//
// A node is anything with `label(key)` (a schedhost::NodeInfo) and, for counting, `pods()`; a pod
// is anything with `label(key)`, `namespace_name()` and `terminating()` (a schedhost::Pod). The
// selector is anything with `matches(labels)` (a k8s::LabelSelector).
//
// Counting follows upstream: only pods in the given namespace count, terminating pods (those with
// a deletionTimestamp) never do. Nodes without the topology label belong to no domain.
//
// Header-only C++17; depends on nothing but the standard library.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace schedhost::k8s {

inline constexpr std::string_view kLabelHostname = "kubernetes.io/hostname";
inline constexpr std::string_view kLabelTopologyZone = "topology.kubernetes.io/zone";
inline constexpr std::string_view kLabelTopologyRegion = "topology.kubernetes.io/region";

// One topology domain: a topology key and the value a node has for it.
struct TopologyPair {
  std::string key;
  std::string value;

  friend bool operator==(const TopologyPair& a, const TopologyPair& b) {
    return a.key == b.key && a.value == b.value;
  }
  friend bool operator!=(const TopologyPair& a, const TopologyPair& b) { return !(a == b); }
  friend bool operator<(const TopologyPair& a, const TopologyPair& b) {
    return a.key != b.key ? a.key < b.key : a.value < b.value;
  }
};

struct TopologyPairHash {
  std::size_t operator()(const TopologyPair& p) const {
    const std::size_t h = std::hash<std::string>{}(p.key);
    return h ^ (std::hash<std::string>{}(p.value) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
  }
};

// The node's domain for `key`; nullopt when the node has no such label.
template <class Node>
std::optional<TopologyPair> topology_pair(const Node& node, std::string_view key) {
  const std::optional<std::string_view> value = node.label(key);
  if (!value) return std::nullopt;
  return TopologyPair{std::string(key), std::string(*value)};
}

// Whether the node carries every one of the topology keys (any range of string-likes).
template <class Node, class Keys>
bool has_all_topology_keys(const Node& node, const Keys& keys) {
  for (const auto& key : keys) {
    if (!node.label(std::string_view(key))) return false;
  }
  return true;
}

// Whether an existing pod counts for spreading: in namespace `ns`, not terminating, matched by
// the selector.
template <class Pod, class Selector>
bool pod_counts(const Pod& pod, const Selector& selector, std::string_view ns) {
  return !pod.terminating() && pod.namespace_name() == ns && selector.matches(pod);
}

// How many of `pods` count (see pod_counts).
template <class Pods, class Selector>
int count_matching_pods(const Pods& pods, const Selector& selector, std::string_view ns) {
  int count = 0;
  for (const auto& pod : pods) {
    if (pod_counts(pod, selector, ns)) ++count;
  }
  return count;
}

// Matching pods per domain of `key` over `nodes` (e.g. ctx.nodes()), for the nodes that have the
// label and that `include(node)` accepts. Every such node's domain appears, with 0 when no pod on
// it matches.
template <class Nodes, class Selector, class Include>
std::map<std::string, int, std::less<>> count_pods_per_domain(const Nodes& nodes,
                                                              std::string_view key,
                                                              const Selector& selector,
                                                              std::string_view ns,
                                                              Include include) {
  std::map<std::string, int, std::less<>> counts;
  for (const auto& node : nodes) {
    const std::optional<std::string_view> value = node.label(key);
    if (!value || !include(node)) continue;
    auto it = counts.find(*value);
    if (it == counts.end()) it = counts.emplace(std::string(*value), 0).first;
    it->second += count_matching_pods(node.pods(), selector, ns);
  }
  return counts;
}

template <class Nodes, class Selector>
std::map<std::string, int, std::less<>> count_pods_per_domain(const Nodes& nodes,
                                                              std::string_view key,
                                                              const Selector& selector,
                                                              std::string_view ns) {
  return count_pods_per_domain(nodes, key, selector, ns, [](const auto&) { return true; });
}

}  // namespace schedhost::k8s
