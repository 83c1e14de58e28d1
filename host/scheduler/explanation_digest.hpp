// Condensing a pod's explanation to what a page shows (ExplanationDigest), as each pod is decided,
// so a run of thousands of nodes and pods can be explained in a bounded memory.
#pragma once

#include <cstddef>

#include "scheduler/run_result.hpp"

namespace schedhost::scheduler {

// How much of each explanation to keep, for the whole run.
struct DigestOptions {
  std::size_t shown = 10;  // best-scored nodes shown per pod (0: every scored node)
  // Scored nodes beyond `shown` kept for the whole run, pod after pod while it lasts; a pod whose
  // rest does not fit keeps none of it (the page then says how many were left out).
  std::size_t more_budget = 0;
};

// The digest of a full explanation; takes the rows it keeps beyond `shown` out of more_budget.
ExplanationDigest digest_explanation(const Explanation& full, std::size_t shown,
                                     std::size_t& more_budget);

}  // namespace schedhost::scheduler
