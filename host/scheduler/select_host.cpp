#include "scheduler/select_host.hpp"

namespace schedhost::scheduler {

std::size_t select_host(const std::vector<std::int64_t>& totals, std::mt19937_64& rng) {
  std::size_t chosen = 0;
  std::uint64_t ties = 1;
  for (std::size_t i = 1; i < totals.size(); ++i) {
    if (totals[i] > totals[chosen]) {
      chosen = i;
      ties = 1;
    } else if (totals[i] == totals[chosen]) {
      ++ties;
      if (rng() % ties == 0) chosen = i;  // the k-th tie replaces the pick with probability 1/k
    }
  }
  return chosen;
}

}  // namespace schedhost::scheduler
