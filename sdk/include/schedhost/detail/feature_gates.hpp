// schedhost/detail/feature_gates.hpp - the upstream feature gates kube-scheduler v1.35's default
// plugins read (its feature.Features), with their defaults: what the host's feature_enabled
// (ABI 1.8) answers when --feature-gates leaves a gate alone. Shared by the host and the fake
// host, so a plugin sees the same gates in its unit tests as in production.
#pragma once

#include <string_view>

namespace schedhost::detail {

struct PluginFeatureGate {
  std::string_view name;
  bool default_value;
  bool locked;  // GA: --feature-gates cannot set it to the other value
};

inline constexpr PluginFeatureGate kPluginFeatureGates[] = {
    {"CSIMigrationPortworx", true, true},
    {"DynamicResourceAllocation", true, true},
    {"InPlacePodVerticalScaling", true, true},
    {"MatchLabelKeysInPodTopologySpread", true, false},
    {"NodeInclusionPolicyInPodTopologySpread", true, true},
    {"PodLevelResources", true, false},
    {"PodSchedulingReadiness", true, true},
    {"SidecarContainers", true, true},
    {"StorageCapacityScoring", false, false},
    {"TaintTolerationComparisonOperators", false, false},
    {"VolumeAttributesClass", true, false},
    {"VolumeLimitScaling", false, false},
};

// The gate named name, or nullptr.
inline const PluginFeatureGate* find_plugin_feature_gate(std::string_view name) {
  for (const PluginFeatureGate& g : kPluginFeatureGates) {
    if (g.name == name) return &g;
  }
  return nullptr;
}

}  // namespace schedhost::detail
