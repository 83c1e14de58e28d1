// schedhost/k8s/normalize_score.hpp - upstream's helper.DefaultNormalizeScore.
//
//   Status NormalizeScore(Context&, const CycleState&, const Pod&, NodeScoreList& scores) {
//     k8s::default_normalize_score(scores, /*reverse=*/true);
//     return {};
//   }
//
// m = the highest score (at least 0). When m == 0 every score becomes max_score if reversed and
// is left alone otherwise; else each score s becomes max_score * s / m (int64 division), then
// max_score minus that when reversed.
//
// Header-only C++17. Works on schedhost::NodeScoreList and on anything with size() and a
// score(i) returning a mutable int64 reference.
#pragma once

#include <cstddef>
#include <cstdint>

namespace schedhost::k8s {

inline constexpr std::int64_t kMaxNodeScore = 100;

template <class Scores>
void default_normalize_score(Scores& scores, bool reverse, std::int64_t max_score = kMaxNodeScore) {
  std::int64_t max_count = 0;
  for (std::size_t i = 0; i < scores.size(); ++i) {
    if (scores.score(i) > max_count) max_count = scores.score(i);
  }
  if (max_count == 0) {
    if (reverse) {
      for (std::size_t i = 0; i < scores.size(); ++i)
        scores.score(i) = max_score;
    }
    return;
  }
  for (std::size_t i = 0; i < scores.size(); ++i) {
    std::int64_t s = max_score * scores.score(i) / max_count;
    if (reverse) s = max_score - s;
    scores.score(i) = s;
  }
}

}  // namespace schedhost::k8s
