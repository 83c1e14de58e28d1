// Opportunistic batching, upstream v1.35's (feature gate OpportunisticBatching, on by default),
// for one profile. After a pod is scored, the rest of its ranking is kept. When the next pod the
// queue hands out has the same signature (Framework::sign_pod), it is given the next node of that
// ranking as a hint: if the hint passes Filter, it is chosen without scoring. The ranking is only
// trusted while the node the previous pod took now rejects pods like it (it is full for them),
// so batching pays off for pods that fill a node each; otherwise the kept ranking is dropped.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace schedhost::scheduler {

// Where batching counts go (serve's /metrics: scheduler_batch_attempts_total and
// scheduler_batch_cache_flushed_total). Scheduling thread.
class BatchMetrics {
 public:
  virtual ~BatchMetrics() = default;
  // result: "no_hint", "hint_used" or "hint_not_used".
  virtual void batch_attempt(const std::string& profile, std::string_view result) = 0;
  // reason: upstream's flush reasons ("pod_skipped", "node_not_full", ...).
  virtual void batch_flushed(const std::string& profile, std::string_view reason) = 0;
};

class OpportunisticBatch {
 public:
  using Clock = std::chrono::steady_clock;

  // The scores of an attempt, as the core has them: the scored nodes' snapshot positions and
  // totals, and the position of the chosen one. Ranked only when a hint needs it: most kept
  // rankings are dropped unused, and sorting hundreds of nodes per pod would cost more than
  // batching saves.
  struct Scores {
    std::vector<std::size_t> nodes;
    std::vector<std::int64_t> totals;
    std::size_t chosen = 0;
    std::uint64_t layout = 0;  // Snapshot::layout() when scored: the positions hold while equal
  };
  // Turns scores into node names, best first, without the chosen node (the core's tie-break).
  using Rank = std::function<std::vector<std::string>(const Scores&)>;

  // A node offered from the kept ranking.
  struct Hint {
    std::string node;
    std::string ranked_by;  // "namespace/name" of the pod whose scores made the ranking
    std::size_t left = 0;   // nodes of the ranking still after this one
  };

  // max_age: how long a ranking stays valid (upstream: 500 ms); nullopt: no limit, for the
  // replay, whose decisions must not depend on how fast the machine is.
  OpportunisticBatch(std::string profile, std::optional<Clock::duration> max_age,
                     BatchMetrics* metrics)
      : profile_(std::move(profile)), max_age_(max_age), metrics_(metrics) {}

  // The hint for a pod with this signature, scheduled in the queue's pop number `cycle`, or
  // nullopt when the kept ranking does not apply (the reason is counted). node_gone(name): the
  // node is no longer in the snapshot; node_rejects(name): Filter rejects the pod there;
  // layout: the snapshot's now.
  std::optional<Hint> hint(const std::optional<std::string>& signature, std::uint64_t cycle,
                           std::uint64_t layout,
                           const std::function<bool(const std::string&)>& node_gone,
                           const std::function<bool(const std::string&)>& node_rejects,
                           const Rank& rank);

  // After an attempt chose `chosen` (before Reserve; upstream's StoreScheduleResults). scores:
  // the scored nodes, nullopt when a single node was feasible (nothing was scored).
  void store(const std::optional<std::string>& signature, const std::optional<Hint>& hint,
             const std::string& chosen, std::optional<Scores> scores, std::uint64_t cycle,
             const std::string& pod);

 private:
  void count_attempt(std::string_view result);
  void flush(std::string_view reason);
  bool empty() const { return !unranked_ && nodes_.empty(); }
  void clear();

  std::string profile_;
  std::optional<Clock::duration> max_age_;
  BatchMetrics* metrics_;

  // The kept ranking: scores not ranked yet, or the nodes still to offer, best LAST.
  std::optional<std::string> signature_;
  std::optional<Scores> unranked_;
  std::vector<std::string> nodes_;
  std::string ranked_by_;
  Clock::time_point created_{};
  // The last attempt that chose a node.
  std::uint64_t last_cycle_ = 0;
  std::string last_chosen_;
  bool has_last_ = false;
};

}  // namespace schedhost::scheduler
