// What `schedhost run` decided for every pending pod: the data behind every output format
// (table, json, yaml) and behind --explain.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace schedhost::cluster {
class Snapshot;
}

namespace schedhost::scheduler {

// The result of one pod, as the output contract names them.
inline constexpr const char* kScheduled = "Scheduled";
inline constexpr const char* kUnschedulable = "Unschedulable";
inline constexpr const char* kError = "Error";
inline constexpr const char* kSkipped = "Skipped";  // no profile serves its schedulerName
inline constexpr const char* kGated = "Gated";      // a PreEnqueue plugin keeps it out of the queue
// Evicted to make room for a higher-priority pod (a running pod, or one this run had placed).
inline constexpr const char* kPreempted = "Preempted";

// How one node fared in Filter for one pod.
struct FilterVerdict {
  std::string code;                  // Success, Unschedulable, UnschedulableAndUnresolvable, Error,
                                     // or NotEvaluated (excluded by PreFilter, or early stop)
  std::string plugin;                // the plugin that rejected the node; empty on Success
  std::vector<std::string> reasons;  // its reasons; for NotEvaluated, why
};

struct NodeExplanation {
  FilterVerdict filter;
  // Each Score plugin's normalized score (0..100, before the weight), in profile order. Empty
  // when the node was not scored (it failed Filter, or it was the only feasible node).
  std::vector<std::pair<std::string, std::int64_t>> scores;
  std::optional<std::int64_t> total;  // the weighted sum, when scored
};

// An explanation condensed to what a page shows of it (RunOptions::digest, for -o html): the
// best-scored nodes in full, every other node as a count. At 5000 nodes x 10,000 pods the full
// explanations take gigabytes; the digests take a few kilobytes per pod.
struct ExplanationDigest {
  std::size_t nodes = 0;   // the nodes of the snapshot
  std::size_t scored = 0;  // of which scored
  // The best-scored nodes, best total first (ties in snapshot order): `shown` of them to show,
  // then those kept for "show more".
  std::vector<std::pair<std::string, NodeExplanation>> best;
  std::size_t shown = 0;
  std::size_t left_out = 0;      // scored nodes neither shown nor kept (the page's budget ran out)
  std::size_t tied_at_best = 0;  // nodes sharing the best total
  std::map<std::pair<std::string, std::string>, std::size_t> failed;  // (plugin, reason) -> nodes
  std::map<std::string, std::size_t> not_evaluated;                   // why -> nodes
};

// A decision made by opportunistic batching: the pod took the next node of an earlier pod's
// ranking (it had the same signature) instead of being scored.
struct ReusedRanking {
  std::string ranked_by;  // "namespace/name" of the pod whose scores made the ranking
  std::size_t left = 0;   // nodes of that ranking still unused after this one
};

struct Explanation {
  std::vector<std::pair<std::string, NodeExplanation>> nodes;  // in snapshot order
  std::optional<ExplanationDigest> digest;  // with RunOptions::digest: `nodes` is then empty
  std::optional<ReusedRanking> reused;
};

// An Event a plugin recorded about the pod (ABI 1.9 record_event), as upstream's EventRecorder
// would have written it.
struct PluginEvent {
  std::string plugin;
  std::string type;  // "Normal" or "Warning"
  std::string reason;
  std::string message;
  bool operator==(const PluginEvent&) const = default;
};

struct PodResult {
  std::string pod;                     // "namespace/name"
  std::string profile;                 // the schedulerName that served it ("" when Skipped)
  std::string result;                  // one of the constants above
  std::string node;                    // the node it was bound to, when Scheduled
  std::string message;                 // why not, e.g. "0/3 nodes are available: ..."
  std::optional<Explanation> explain;  // only with --explain
  std::vector<std::string> preempted;  // "namespace/name" of the pods evicted to make room
  // The Events plugins recorded about the pod in any cycle of the run, in the order recorded
  // (those of one per-node hook, which runs on many threads, in node-name order).
  std::vector<PluginEvent> events = {};
};

struct RunSummary {
  int scheduled = 0;
  int unschedulable = 0;  // Unschedulable and Gated
  int skipped = 0;
  int errors = 0;
  int preempted = 0;
};

// An object of a resource a plugin declared that plugins' writes created, changed or deleted
// during the run (ABI 1.9): how the run left it.
struct WrittenObject {
  std::string resource;   // "podgroups.v1alpha1.scheduling.x-k8s.io"
  std::string key;        // "namespace/name", or "name"
  nlohmann::json object;  // as the run left it; null when deleted
};

struct RunResult {
  // Every pending pod exactly once, in the order they were decided, then each running pod that
  // was preempted (a pod this run placed and then preempted keeps its one entry).
  std::vector<PodResult> pods;
  // What plugins wrote, by resource then key (empty when they wrote nothing).
  std::vector<WrittenObject> written;
  // The snapshot as the run left it (every placement in it). Shared, so a process about to exit
  // can leave it to the exit instead of freeing it node by node.
  std::shared_ptr<const cluster::Snapshot> final_snapshot;
  RunSummary summary() const;
};

}  // namespace schedhost::scheduler
