#include "config/feature_gates.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include <schedhost/detail/feature_gates.hpp>

#include "common/input_error.hpp"

namespace schedhost::config {
namespace {

struct Gate {
  const char* name;
  bool FeatureGates::*field;
};

constexpr Gate kGates[] = {
    {"NominatedNodeNameForExpectation", &FeatureGates::nominated_node_name_for_expectation},
    {"OpportunisticBatching", &FeatureGates::opportunistic_batching},
    {"SchedulerAsyncPreemption", &FeatureGates::scheduler_async_preemption},
    {"SchedulerPopFromBackoffQ", &FeatureGates::scheduler_pop_from_backoff_q},
};

using PluginGate = schedhost::detail::PluginFeatureGate;
using schedhost::detail::kPluginFeatureGates;

const PluginGate* find_plugin_gate(std::string_view name) {
  return schedhost::detail::find_plugin_feature_gate(name);
}

std::string trimmed(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t");
  return std::string(s.substr(first, last - first + 1));
}

[[noreturn]] void refuse_entry(const std::string& entry) {
  throw InputError("--feature-gates: \"" + entry +
                   "\" is not Name=true or Name=false: write it as " + entry + "=true");
}

[[noreturn]] void refuse_name(const std::string& name) {
  throw InputError("--feature-gates: unknown feature gate \"" + name + "\": this host knows " +
                   known_feature_gates());
}

[[noreturn]] void refuse_value(const std::string& name, const std::string& value) {
  throw InputError("--feature-gates: " + name + "=" + value + ": the value must be true or false");
}

}  // namespace

std::string known_feature_gates() {
  std::vector<std::string> all;
  for (const Gate& g : kGates)
    all.emplace_back(g.name);
  for (const PluginGate& g : kPluginFeatureGates)
    all.emplace_back(g.name);
  std::sort(all.begin(), all.end());
  std::string names;
  for (const std::string& name : all) {
    if (!names.empty()) names += ", ";
    names += name;
  }
  return names;
}

bool FeatureGates::enabled(std::string_view name) const {
  for (const Gate& g : kGates) {
    if (name == g.name) return this->*(g.field);
  }
  if (const PluginGate* g = find_plugin_gate(name)) {
    const auto set = plugin_gates.find(name);
    return set == plugin_gates.end() ? g->default_value : set->second;
  }
  return false;
}

FeatureGates parse_feature_gates(std::string_view flag_value) {
  FeatureGates gates;
  std::size_t start = 0;
  while (start <= flag_value.size()) {
    const std::size_t comma = std::min(flag_value.find(',', start), flag_value.size());
    const std::string entry = trimmed(flag_value.substr(start, comma - start));
    start = comma + 1;
    if (entry.empty()) continue;
    const std::size_t eq = entry.find('=');
    if (eq == std::string::npos) refuse_entry(entry);
    const std::string name = trimmed(std::string_view(entry).substr(0, eq));
    const std::string value = trimmed(std::string_view(entry).substr(eq + 1));
    const Gate* gate = nullptr;
    for (const Gate& g : kGates) {
      if (name == g.name) gate = &g;
    }
    const PluginGate* plugin_gate = find_plugin_gate(name);
    if (gate == nullptr && plugin_gate == nullptr) refuse_name(name);
    if (value != "true" && value != "false") refuse_value(name, value);
    const bool on = value == "true";
    if (gate != nullptr) {
      gates.*(gate->field) = on;
      continue;
    }
    if (plugin_gate->locked && on != plugin_gate->default_value) {
      throw InputError("--feature-gates: " + name + "=" + value + ": " + name +
                       " is GA in kube-scheduler v1.35 and locked to " +
                       (plugin_gate->default_value ? "true" : "false") +
                       ": remove it from --feature-gates");
    }
    gates.plugin_gates[name] = on;
  }
  return gates;
}

}  // namespace schedhost::config
