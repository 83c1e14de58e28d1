// How a PostFilter plugin's preemption candidates reach the scheduler's extenders (the host
// function process_preemption, ABI 1.5): upstream's preemption evaluator calls the extenders
// with a preemptVerb between finding candidates and picking one; here the plugin does, through
// the host, which owns the extenders.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cluster/pod.hpp"

namespace schedhost::framework {

struct PreemptionCandidate {
  std::string node;
  std::vector<std::string> victims;  // pod uids, most important first
  std::int64_t pdb_violations = 0;
};

// Keeps, changes or drops the candidates (each one names a node that was offered, in the order
// offered); returns a non-ignorable extender's error instead. Empty: no extender preempts.
using PreemptionExtenders = std::function<std::optional<std::string>(
    const cluster::Pod& pod, std::vector<PreemptionCandidate>& candidates)>;

}  // namespace schedhost::framework
