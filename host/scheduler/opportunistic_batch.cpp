#include "scheduler/opportunistic_batch.hpp"

#include <algorithm>

namespace schedhost::scheduler {

void OpportunisticBatch::count_attempt(std::string_view result) {
  ++attempts_[std::string(result)];
  if (metrics_ != nullptr) metrics_->batch_attempt(profile_, result);
}

void OpportunisticBatch::flush(std::string_view reason) {
  ++flushes_[std::string(reason)];
  if (metrics_ != nullptr) metrics_->batch_flushed(profile_, reason);
}

std::optional<OpportunisticBatch::Hint> OpportunisticBatch::hint(
    const std::optional<std::string>& signature, std::uint64_t cycle,
    const std::function<bool(const std::string&)>& node_gone,
    const std::function<bool(const std::string&)>& node_rejects) {
  // The checks of upstream's batchStateCompatible, in its order. A failed check counts its
  // reason and gives no hint; the kept ranking is replaced by the next store().
  const auto no_hint = [&](std::string_view reason) -> std::optional<Hint> {
    if (!reason.empty()) flush(reason);
    count_attempt("no_hint");
    return std::nullopt;
  };
  if (nodes_.empty()) return no_hint("");
  // Only the pod popped right after the one that made the ranking may use it.
  if (!has_last_ || cycle != last_cycle_ + 1) return no_hint("pod_skipped");
  if (!signature || signature != signature_) return no_hint("pod_incompatible");
  if (max_age_ && Clock::now() >= created_ + *max_age_) return no_hint("expired");
  if (node_gone(last_chosen_)) return no_hint("node_missing");
  // The ranking holds only while the node just taken is full for pods like this one.
  if (!node_rejects(last_chosen_)) return no_hint("node_not_full");
  Hint h{nodes_.back(), ranked_by_, nodes_.size() - 1};
  nodes_.pop_back();
  return h;
}

void OpportunisticBatch::store(const std::optional<std::string>& signature,
                               const std::optional<Hint>& hint, const std::string& chosen,
                               bool others,
                               const std::function<std::vector<std::string>()>& ranking,
                               std::uint64_t cycle, const std::string& pod) {
  last_cycle_ = cycle;
  last_chosen_ = chosen;
  has_last_ = true;
  if (hint && hint->node == chosen) {
    count_attempt("hint_used");
    ++batched_pods_;
    return;  // the ranking stays, less the node just used
  }
  if (hint) count_attempt("hint_not_used");
  if (signature && others) {
    signature_ = signature;
    nodes_ = ranking();
    std::reverse(nodes_.begin(), nodes_.end());
    ranked_by_ = pod;
    created_ = Clock::now();
    return;
  }
  flush(others ? "pod_not_batchable" : "empty_list");
  nodes_.clear();
  signature_.reset();
}

}  // namespace schedhost::scheduler
