#include "config/multi_point_expansion.hpp"

#include <algorithm>
#include <set>
#include <string>

#include "common/input_error.hpp"

namespace schedhost::config {
namespace {

bool implements(const PluginCatalog& catalog, const std::string& name, ExtensionPoint point) {
  auto it = catalog.find(name);
  return it != catalog.end() && it->second.contains(point);
}

std::string first_at(const PluginReference& first) {
  return first.location.known() ? "first at " + first.location.to_string()
                                : "first from the default plugins";
}

[[noreturn]] void fail_twice(const PluginReference& first, const PluginReference& again,
                             std::string_view where) {
  throw InputError(again.location.to_string() + ": plugin \"" + again.name +
                   "\" is enabled twice in " + std::string(where) + " (" + first_at(first) +
                   "): remove one of them");
}

// The plugins listed at the point itself: each must implement it, none twice.
void check_explicit(const PluginSet& set, ConfigExtensionPoint point, ExtensionPoint cycle_point,
                    const PluginCatalog& catalog) {
  for (std::size_t i = 0; i < set.enabled.size(); ++i) {
    const PluginReference& plugin = set.enabled[i];
    if (!implements(catalog, plugin.name, cycle_point)) {
      throw InputError(plugin.location.to_string() + ": plugin \"" + plugin.name +
                       "\" does not implement " + std::string(to_string(cycle_point)) +
                       ": remove it from " + std::string(field_name(point)) + " or use multiPoint");
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (set.enabled[j].name == plugin.name) {
        fail_twice(set.enabled[j], plugin, field_name(point));
      }
    }
  }
}

}  // namespace

ExpandedPlugins expand_plugins(const PluginSets& merged, const PluginCatalog& catalog) {
  ExpandedPlugins expanded{};
  const auto& multi_point = merged[ConfigExtensionPoint::MultiPoint].enabled;

  for (auto point : kConcreteConfigExtensionPoints) {
    const ExtensionPoint cycle_point = *to_extension_point(point);
    const PluginSet& set = merged[point];
    check_explicit(set, point, cycle_point, catalog);
    auto& out = expanded[static_cast<std::size_t>(cycle_point)];

    std::set<std::string, std::less<>> disabled;
    for (const auto& plugin : set.disabled)
      disabled.insert(plugin.name);
    if (disabled.contains("*")) {  // the user took this point over: no multiPoint plugin joins
      out = set.enabled;
      continue;
    }

    auto listed_at_point = [&](const std::string& name) {
      return std::any_of(set.enabled.begin(), set.enabled.end(),
                         [&](const PluginReference& p) { return p.name == name; });
    };
    std::set<std::string, std::less<>> overrides;
    std::vector<const PluginReference*> from_multi_point;
    for (const auto& plugin : multi_point) {
      if (!implements(catalog, plugin.name, cycle_point)) continue;
      if (disabled.contains(plugin.name)) continue;
      if (listed_at_point(plugin.name)) {
        overrides.insert(plugin.name);
        continue;
      }
      for (const auto* earlier : from_multi_point) {
        if (earlier->name == plugin.name) fail_twice(*earlier, plugin, "multiPoint");
      }
      from_multi_point.push_back(&plugin);
    }

    for (const auto& plugin : set.enabled) {
      if (overrides.contains(plugin.name)) out.push_back(plugin);
    }
    for (const auto* plugin : from_multi_point)
      out.push_back(*plugin);
    for (const auto& plugin : set.enabled) {
      if (!overrides.contains(plugin.name)) out.push_back(plugin);
    }
  }
  return expanded;
}

}  // namespace schedhost::config
