// PluginExerciser: drives one plugin's hooks directly on one pod and a snapshot, the way
// upstream's plugin unit tests do (`schedhost exercise`). Only the hooks the plugin implements
// run; one CycleState carries what PreFilter/PreScore wrote to Filter/Score/NormalizeScore.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cluster/pod.hpp"
#include "cluster/snapshot.hpp"
#include "framework/plugin_instance.hpp"
#include "framework/status.hpp"

namespace schedhost::framework {

struct ExerciseOptions {
  // The nodes PreScore and Score see (snapshot order, each once); nullopt: every node (or, with
  // framework_order, the nodes Filter let through).
  std::optional<std::vector<std::string>> score_nodes;
  // Stop where the framework would: nothing after a PreEnqueue that is not Success, or a
  // PreFilter that is neither Success nor Skip or kept no node of the snapshot; no Filter after
  // PreFilter Skip, and Filter only on the nodes PreFilter kept; no PreScore after a Filter error
  // or when no node is left to score; no Score after PreScore Skip, nothing after a PreScore
  // failure; no NormalizeScore after a Score failure. Without it every hook the plugin has runs, on
  // every node, whatever came before.
  bool framework_order = false;
};

// A hook's verdict per node, in snapshot order.
template <class T>
using PerNode = std::vector<std::pair<std::string, T>>;

// An Event the plugin recorded (ABI 1.9 record_event), as run would list it.
struct ExercisedEvent {
  std::string hook;  // "Filter"
  std::string node;  // the node that hook was given; "" for a hook without one
  std::string pod;   // "namespace/name" of the pod it is about
  std::string type;
  std::string reason;
  std::string message;
};

// What each hook returned; a hook that did not run (not implemented, or stopped before) is empty.
// Statuses carry code and reasons only (plugin stays empty); a code outside the ABI's range is
// reported as Error "plugin "X" returned unknown status code N".
struct ExerciseResult {
  std::optional<Status> pre_enqueue;
  std::optional<Status> pre_filter;
  std::optional<std::vector<std::string>> node_names;  // PreFilter's narrowing, as it gave it
  std::optional<PerNode<Status>> filter;
  std::optional<Status> pre_score;
  std::optional<PerNode<std::int64_t>> scores;  // nodes whose Score returned Success
  PerNode<Status> score_errors;                 // the others
  std::optional<Status> normalize_score;
  // After a successful NormalizeScore: the scores it rewrote (the nodes of `scores`).
  std::optional<PerNode<std::int64_t>> normalized_scores;
  std::vector<ExercisedEvent> events;  // in the order recorded (each is also logged at info)
};

// Runs plugin's PreEnqueue, PreFilter, Filter, PreScore, Score and NormalizeScore (those it
// has) for pod on snapshot. Throws std::invalid_argument when a score node is not in snapshot.
ExerciseResult exercise_plugin(const PluginInstance& plugin, const cluster::Snapshot& snapshot,
                               const cluster::Pod& pod, const ExerciseOptions& options);

}  // namespace schedhost::framework
