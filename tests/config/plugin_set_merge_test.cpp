// The merge of a profile's plugins into the defaults, case by case as upstream's mergePluginSet.
#include "config/plugin_set_merge.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/default_plugins.hpp"

namespace schedhost::config {
namespace {

PluginReference user(const std::string& name, std::optional<std::int32_t> weight = std::nullopt) {
  return PluginReference{name, weight, SourceLocation{"p.yaml", 1, 1}, false};
}
PluginReference dflt(const std::string& name, std::optional<std::int32_t> weight = std::nullopt) {
  return PluginReference{name, weight, {}, true};
}

std::vector<std::string> names(const std::vector<PluginReference>& plugins) {
  std::vector<std::string> out;
  for (const auto& p : plugins)
    out.push_back(p.name);
  return out;
}

TEST(DefaultPlugins, AreUpstreamV135MultiPointInOrderWithWeights) {
  const PluginSets& d = default_plugins();
  std::vector<std::pair<std::string, std::optional<std::int32_t>>> got;
  for (const auto& p : d[ConfigExtensionPoint::MultiPoint].enabled) {
    EXPECT_TRUE(p.is_default);
    EXPECT_FALSE(p.location.known());
    got.emplace_back(p.name, p.weight);
  }
  const std::optional<std::int32_t> none;
  EXPECT_EQ(got, (std::vector<std::pair<std::string, std::optional<std::int32_t>>>{
                     {"SchedulingGates", none},
                     {"PrioritySort", none},
                     {"NodeUnschedulable", none},
                     {"NodeName", none},
                     {"TaintToleration", 3},
                     {"NodeAffinity", 2},
                     {"NodePorts", none},
                     {"NodeResourcesFit", 1},
                     {"VolumeRestrictions", none},
                     {"NodeVolumeLimits", none},
                     {"VolumeBinding", none},
                     {"VolumeZone", none},
                     {"PodTopologySpread", 2},
                     {"InterPodAffinity", 2},
                     {"DynamicResources", 2},
                     {"DefaultPreemption", none},
                     {"NodeResourcesBalancedAllocation", 1},
                     {"ImageLocality", 1},
                     {"DefaultBinder", none},
                 }));
  for (auto point : kConcreteConfigExtensionPoints)
    EXPECT_EQ(d[point], PluginSet{});
}

TEST(PluginSetMerge, EmptyCustomKeepsDefaults) {
  PluginSet defaults{{dflt("A"), dflt("B", 2)}, {}};
  EXPECT_EQ(merge_plugin_set(defaults, PluginSet{}), defaults);
}

TEST(PluginSetMerge, NoCustomPluginsLeavesEveryPointAsDefault) {
  EXPECT_EQ(merge_plugins(default_plugins(), std::nullopt), default_plugins());
}

TEST(PluginSetMerge, DisablingOneDefaultDropsIt) {
  PluginSet merged = merge_plugin_set(PluginSet{{dflt("A"), dflt("B"), dflt("C")}, {}},
                                      PluginSet{{}, {user("B")}});
  EXPECT_EQ(names(merged.enabled), (std::vector<std::string>{"A", "C"}));
  EXPECT_EQ(names(merged.disabled), (std::vector<std::string>{"B"}));
}

TEST(PluginSetMerge, StarDisablesAllDefaultsButKeepsCustomEnabled) {
  PluginSet merged = merge_plugin_set(PluginSet{{dflt("A"), dflt("B")}, {}},
                                      PluginSet{{user("B"), user("X")}, {user("*")}});
  EXPECT_EQ(names(merged.enabled), (std::vector<std::string>{"B", "X"}));
  EXPECT_FALSE(merged.enabled[0].is_default);
}

TEST(PluginSetMerge, CustomEntryReplacesDefaultInPlaceWithItsWeight) {
  PluginSet merged = merge_plugin_set(PluginSet{{dflt("A", 1), dflt("B", 2), dflt("C")}, {}},
                                      PluginSet{{user("X"), user("B", 7)}, {}});
  EXPECT_EQ(names(merged.enabled), (std::vector<std::string>{"A", "B", "C", "X"}));
  EXPECT_EQ(merged.enabled[1], user("B", 7));
}

TEST(PluginSetMerge, DuplicateCustomEntriesAreKeptLastOneReplaces) {
  PluginSet merged = merge_plugin_set(PluginSet{{dflt("A"), dflt("B")}, {}},
                                      PluginSet{{user("B", 1), user("B", 2)}, {}});
  EXPECT_EQ(names(merged.enabled), (std::vector<std::string>{"A", "B", "B"}));
  EXPECT_EQ(merged.enabled[1].weight, 2);
  EXPECT_EQ(merged.enabled[2].weight, 1);
}

TEST(PluginSetMerge, DisabledListsCombineCustomFirstWithoutWeights) {
  PluginSet merged =
      merge_plugin_set(PluginSet{{dflt("A")}, {dflt("D")}}, PluginSet{{}, {user("A", 5)}});
  EXPECT_EQ(names(merged.disabled), (std::vector<std::string>{"A", "D"}));
  EXPECT_EQ(merged.disabled[0].weight, std::nullopt);
  EXPECT_TRUE(merged.enabled.empty());
}

}  // namespace
}  // namespace schedhost::config
