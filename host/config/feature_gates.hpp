// --feature-gates, as kube-scheduler reads it ("Name=true,Other=false"): the upstream gates that
// change what the host does, with their v1.35 defaults. Plugins do not see them yet (the full
// default profile issue adds that, with the gates of the default plugins).
#pragma once

#include <string>
#include <string_view>

namespace schedhost::config {

struct FeatureGates {
  // Opportunistic batching of pods with equal signatures (beta in v1.35, on).
  bool opportunistic_batching = true;
  // serve writes nominatedNodeName before a PreBind that does work (beta in v1.35, on).
  bool nominated_node_name_for_expectation = true;
  // serve's queue: whole-second backoff windows, an empty activeQ pops backoffQ (beta, on).
  bool scheduler_pop_from_backoff_q = true;
  // serve evicts a preemption's victims off the scheduling cycle (beta, on).
  bool scheduler_async_preemption = true;
};

// The gates this host knows, sorted, as "A, B" (for help and error texts).
std::string known_feature_gates();

// Parses the flag's value over the defaults. Throws InputError naming the flag, the entry and
// the fix: an unknown gate, a value that is not true or false, or an entry without '='.
FeatureGates parse_feature_gates(std::string_view flag_value);

}  // namespace schedhost::config
