#include "scheduler/opportunistic_batch.hpp"

#include <algorithm>
#include <utility>

namespace schedhost::scheduler {

void OpportunisticBatch::count_attempt(std::string_view result) {
  if (metrics_ != nullptr) metrics_->batch_attempt(profile_, result);
}

void OpportunisticBatch::flush(std::string_view reason) {
  if (metrics_ != nullptr) metrics_->batch_flushed(profile_, reason);
}

void OpportunisticBatch::clear() {
  signature_.reset();
  unranked_.reset();
  nodes_.clear();
}

std::optional<OpportunisticBatch::Hint> OpportunisticBatch::hint(
    const std::optional<std::string>& signature, std::uint64_t cycle, std::uint64_t layout,
    const std::function<bool(const std::string&)>& node_gone,
    const std::function<bool(const std::string&)>& node_rejects, const Rank& rank) {
  // The checks of upstream's batchStateCompatible, in its order. A failed check counts its
  // reason and gives no hint; the kept ranking is replaced by the next store().
  const auto no_hint = [&](std::string_view reason) -> std::optional<Hint> {
    if (!reason.empty()) flush(reason);
    count_attempt("no_hint");
    return std::nullopt;
  };
  if (empty()) return no_hint("");
  // Only the pod popped right after the one that made the ranking may use it.
  if (!has_last_ || cycle != last_cycle_ + 1) return no_hint("pod_skipped");
  if (!signature || signature != signature_) return no_hint("pod_incompatible");
  if (max_age_ && Clock::now() >= created_ + *max_age_) return no_hint("expired");
  if (node_gone(last_chosen_)) return no_hint("node_missing");
  // The ranking holds only while the node just taken is full for pods like this one.
  if (!node_rejects(last_chosen_)) return no_hint("node_not_full");
  if (unranked_) {
    // A node removed since the scoring moved the positions: upstream would still know the other
    // nodes by name; here the ranking is given up, which only costs a scoring.
    if (unranked_->layout != layout) {
      clear();
      return no_hint("node_missing");
    }
    nodes_ = rank(*unranked_);
    std::reverse(nodes_.begin(), nodes_.end());
    unranked_.reset();
  }
  Hint h{nodes_.back(), ranked_by_, nodes_.size() - 1};
  nodes_.pop_back();
  return h;
}

void OpportunisticBatch::store(const std::optional<std::string>& signature,
                               const std::optional<Hint>& hint, const std::string& chosen,
                               std::optional<Scores> scores, std::uint64_t cycle,
                               const std::string& pod) {
  last_cycle_ = cycle;
  last_chosen_ = chosen;
  has_last_ = true;
  if (hint && hint->node == chosen) {
    count_attempt("hint_used");
    return;  // the ranking stays, less the node just used
  }
  if (hint) count_attempt("hint_not_used");
  if (signature && scores) {
    clear();
    signature_ = signature;
    unranked_ = std::move(scores);
    ranked_by_ = pod;
    created_ = Clock::now();
    return;
  }
  flush(scores ? "pod_not_batchable" : "empty_list");
  clear();
}

}  // namespace schedhost::scheduler
