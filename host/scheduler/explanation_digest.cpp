#include "scheduler/explanation_digest.hpp"

#include <algorithm>

namespace schedhost::scheduler {

ExplanationDigest digest_explanation(const Explanation& full, std::size_t shown,
                                     std::size_t& more_budget) {
  ExplanationDigest d;
  d.nodes = full.nodes.size();
  std::vector<const std::pair<std::string, NodeExplanation>*> scored;
  for (const auto& entry : full.nodes) {
    const FilterVerdict& f = entry.second.filter;
    if (entry.second.total) {
      scored.push_back(&entry);
    } else if (f.code == "NotEvaluated") {
      ++d.not_evaluated[f.reasons.empty() ? std::string() : f.reasons.front()];
    } else if (f.code != "Success") {
      if (f.reasons.empty()) ++d.failed[{f.plugin, f.code}];
      for (const std::string& reason : f.reasons)
        ++d.failed[{f.plugin, reason}];
    }
  }
  d.scored = scored.size();
  if (scored.empty()) return d;
  std::stable_sort(scored.begin(), scored.end(), [](const auto* a, const auto* b) {
    return *a->second.total > *b->second.total;
  });
  const std::int64_t best = *scored.front()->second.total;
  d.tied_at_best = static_cast<std::size_t>(std::count_if(
      scored.begin(), scored.end(), [best](const auto* n) { return *n->second.total == best; }));
  d.shown = shown == 0 ? scored.size() : std::min(shown, scored.size());
  std::size_t kept = d.shown;
  const std::size_t rest = scored.size() - d.shown;
  if (rest <= more_budget) {
    more_budget -= rest;
    kept = scored.size();
  } else {
    d.left_out = rest;
  }
  d.best.reserve(kept);
  for (std::size_t k = 0; k < kept; ++k)
    d.best.push_back(*scored[k]);
  return d;
}

}  // namespace schedhost::scheduler
