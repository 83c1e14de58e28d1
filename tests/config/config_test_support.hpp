// Helpers shared by the config tests: a catalog of the default plugins (with the extension points
// upstream 1.28 gives them, spec §1.3), the text of an InputError, and short plugin-list views.
#pragma once

#include <functional>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "common/input_error.hpp"
#include "config/plugin_catalog.hpp"
#include "config/scheduler_configuration.hpp"
#include "framework/extension_point.hpp"

namespace schedhost::config::testing {

inline ExtensionPointSet points(std::initializer_list<ExtensionPoint> list) {
  ExtensionPointSet set;
  for (auto p : list)
    set.insert(p);
  return set;
}

inline PluginCatalog default_catalog() {
  using E = ExtensionPoint;
  const auto filter_score = points(
      {E::PreFilter, E::PreFilterExtensions, E::Filter, E::PreScore, E::Score, E::NormalizeScore});
  return {
      {"PrioritySort", points({E::QueueSort})},
      {"NodeUnschedulable", points({E::Filter})},
      {"NodeName", points({E::Filter})},
      {"TaintToleration", points({E::Filter, E::PreScore, E::Score, E::NormalizeScore})},
      {"NodeAffinity", points({E::PreFilter, E::Filter, E::PreScore, E::Score, E::NormalizeScore})},
      {"NodePorts", points({E::PreFilter, E::Filter})},
      {"NodeResourcesFit", points({E::PreFilter, E::Filter, E::PreScore, E::Score})},
      {"VolumeRestrictions", points({E::PreFilter, E::PreFilterExtensions, E::Filter})},
      {"EBSLimits", points({E::Filter})},
      {"GCEPDLimits", points({E::Filter})},
      {"NodeVolumeLimits", points({E::PreFilter, E::Filter})},
      {"AzureDiskLimits", points({E::Filter})},
      {"VolumeBinding", points({E::PreFilter, E::Filter, E::PreScore, E::Score, E::Reserve,
                                E::Unreserve, E::PreBind})},
      {"VolumeZone", points({E::PreFilter, E::Filter})},
      {"PodTopologySpread", filter_score},
      {"InterPodAffinity", filter_score},
      {"DynamicResources", points({E::PreFilter, E::PostFilter})},
      {"DefaultPreemption", points({E::PostFilter})},
      {"NodeResourcesBalancedAllocation", points({E::PreScore, E::Score})},
      {"ImageLocality", points({E::Score})},
      {"DefaultBinder", points({E::Bind})},
      {"SchedulingGates", points({E::PreEnqueue})},
  };
}

// The what() of the InputError that f throws; "<no error>" when it throws none.
inline std::string input_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no error>";
}

inline std::vector<std::string> names_at(const Profile& profile, ExtensionPoint point) {
  std::vector<std::string> names;
  for (const auto& plugin : profile.enabled_at(point))
    names.push_back(plugin.name);
  return names;
}

inline std::vector<std::pair<std::string, int>> weights_at(const Profile& profile,
                                                           ExtensionPoint point) {
  std::vector<std::pair<std::string, int>> out;
  for (const auto& plugin : profile.enabled_at(point))
    out.emplace_back(plugin.name, plugin.weight);
  return out;
}

}  // namespace schedhost::config::testing
