// --feature-gates, as kube-scheduler reads it ("Name=true,Other=false"): the upstream gates that
// change what the host does, and those the default plugins read (through the host API's
// feature_enabled, ABI 1.8), with their v1.35 defaults. A gate upstream locked (GA) refuses its
// other value, as kube-scheduler does.
#pragma once

#include <map>
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
  // The gates plugins read (see feature_gates.cpp for the list), as set: an absent one is at
  // its default. Read them with enabled().
  std::map<std::string, bool, std::less<>> plugin_gates;

  // Any known gate, host or plugin, as set or at its v1.35 default; false for an unknown name.
  bool enabled(std::string_view name) const;
};

// The gates this host knows, sorted, as "A, B" (for help and error texts).
std::string known_feature_gates();

// Parses the flag's value over the defaults. Throws InputError naming the flag, the entry and
// the fix: an unknown gate, a value that is not true or false, or an entry without '='.
FeatureGates parse_feature_gates(std::string_view flag_value);

}  // namespace schedhost::config
