#include "config/plugin_set_merge.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <string_view>

namespace schedhost::config {
namespace {

// Upstream keeps only the name of a disabled plugin; the weight means nothing there.
PluginReference name_only(const PluginReference& plugin) {
  return PluginReference{plugin.name, std::nullopt, plugin.location, plugin.is_default};
}

}  // namespace

PluginSet merge_plugin_set(const PluginSet& defaults, const PluginSet& custom) {
  PluginSet merged;
  std::set<std::string, std::less<>> disabled_names;
  for (const auto* disabled : {&custom.disabled, &defaults.disabled}) {
    for (const auto& plugin : *disabled) {
      merged.disabled.push_back(name_only(plugin));
      disabled_names.insert(plugin.name);
    }
  }

  // A custom entry naming a default plugin takes the default's place (keeping the default order)
  // and is not appended again. Upstream maps name -> last custom index, so with duplicates the
  // last custom entry of that name is the one that replaces.
  std::vector<bool> replaced(custom.enabled.size(), false);
  auto last_custom_index = [&](std::string_view name) -> std::optional<std::size_t> {
    for (std::size_t i = custom.enabled.size(); i-- > 0;) {
      if (custom.enabled[i].name == name) return i;
    }
    return std::nullopt;
  };

  if (!disabled_names.contains("*")) {
    for (const auto& plugin : defaults.enabled) {
      if (disabled_names.contains(plugin.name)) continue;
      if (auto index = last_custom_index(plugin.name)) {
        merged.enabled.push_back(custom.enabled[*index]);
        replaced[*index] = true;
      } else {
        merged.enabled.push_back(plugin);
      }
    }
  }
  for (std::size_t i = 0; i < custom.enabled.size(); ++i) {
    if (!replaced[i]) merged.enabled.push_back(custom.enabled[i]);
  }
  return merged;
}

PluginSets merge_plugins(const PluginSets& defaults, const std::optional<PluginSets>& custom) {
  if (!custom) return defaults;
  PluginSets merged;
  for (auto point : kConcreteConfigExtensionPoints) {
    merged[point] = merge_plugin_set(defaults[point], (*custom)[point]);
  }
  merged[ConfigExtensionPoint::MultiPoint] = merge_plugin_set(
      defaults[ConfigExtensionPoint::MultiPoint], (*custom)[ConfigExtensionPoint::MultiPoint]);
  return merged;
}

}  // namespace schedhost::config
