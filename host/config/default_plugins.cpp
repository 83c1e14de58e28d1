#include "config/default_plugins.hpp"

#include <cstdint>
#include <optional>
#include <string_view>

namespace schedhost::config {
namespace {

struct DefaultPlugin {
  std::string_view name;
  std::optional<std::int32_t> weight;
};

// Upstream v1.35's default profile (getDefaultPlugins with the default feature gates applied).
// Order matters: a multiPoint plugin runs in this order at every point it implements.
constexpr DefaultPlugin kDefaultMultiPoint[] = {
    {"SchedulingGates", std::nullopt},
    {"PrioritySort", std::nullopt},
    {"NodeUnschedulable", std::nullopt},
    {"NodeName", std::nullopt},
    {"TaintToleration", 3},
    {"NodeAffinity", 2},
    {"NodePorts", std::nullopt},
    {"NodeResourcesFit", 1},
    {"VolumeRestrictions", std::nullopt},
    {"NodeVolumeLimits", std::nullopt},
    {"VolumeBinding", std::nullopt},
    {"VolumeZone", std::nullopt},
    {"PodTopologySpread", 2},
    {"InterPodAffinity", 2},
    // Inserted before DefaultPreemption when DynamicResourceAllocation is on (GA in v1.34), so
    // that freeing a claim is tried before evicting a pod.
    {"DynamicResources", 2},
    {"DefaultPreemption", std::nullopt},
    {"NodeResourcesBalancedAllocation", 1},
    {"ImageLocality", 1},
    {"DefaultBinder", std::nullopt},
};

PluginSets build_default_plugins() {
  PluginSets sets;
  auto& multi_point = sets[ConfigExtensionPoint::MultiPoint].enabled;
  for (const auto& plugin : kDefaultMultiPoint) {
    multi_point.push_back(PluginReference{std::string(plugin.name), plugin.weight, {}, true});
  }
  return sets;
}

}  // namespace

const PluginSets& default_plugins() {
  static const PluginSets kDefaults = build_default_plugins();
  return kDefaults;
}

}  // namespace schedhost::config
