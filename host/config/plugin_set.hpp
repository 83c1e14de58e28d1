// The `plugins:` block of a profile as written (or as defaulted): per extension point, the plugins
// to enable and to disable. Upstream's Plugins / PluginSet / Plugin.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/config_extension_point.hpp"
#include "config/source_location.hpp"

namespace schedhost::config {

// One `{name, weight}` entry of an enabled or disabled list.
struct PluginReference {
  std::string name;
  std::optional<std::int32_t> weight;  // only meaningful for Score (directly or via multiPoint)
  SourceLocation location;             // where the name is written; unknown for a default
  bool is_default = false;             // comes from the default plugin set, not from the user

  bool operator==(const PluginReference&) const = default;
};

struct PluginSet {
  std::vector<PluginReference> enabled;
  std::vector<PluginReference> disabled;  // "*" disables every default plugin at this point

  bool operator==(const PluginSet&) const = default;
};

// One PluginSet per field of `plugins:`, multiPoint included.
class PluginSets {
 public:
  PluginSet& operator[](ConfigExtensionPoint point) { return sets_[index(point)]; }
  const PluginSet& operator[](ConfigExtensionPoint point) const { return sets_[index(point)]; }
  bool operator==(const PluginSets&) const = default;

 private:
  static std::size_t index(ConfigExtensionPoint point) { return static_cast<std::size_t>(point); }
  std::array<PluginSet, kConfigExtensionPointCount> sets_{};
};

}  // namespace schedhost::config
