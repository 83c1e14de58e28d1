// The KubeSchedulerConfiguration as schedhost uses it. The parser fills what the file says (with
// defaults for what it omits); resolve_profiles() fills each profile's plugin lists per extension
// point. Locations are kept so that errors found late still point at a file line.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/extender_config.hpp"
#include "config/plugin_set.hpp"
#include "config/source_location.hpp"
#include "framework/extension_point.hpp"

namespace schedhost::config {

inline constexpr std::string_view kDefaultSchedulerName = "default-scheduler";

// A plugin in the final, ordered list of one extension point.
struct EnabledPlugin {
  std::string name;
  int weight = 0;           // Score only (never 0 there: unset or 0 becomes 1); 0 elsewhere
  SourceLocation location;  // where the user enabled it; unknown when it came from the defaults
  bool operator==(const EnabledPlugin&) const = default;
};

struct Profile {
  std::string scheduler_name;
  std::optional<int> percentage_of_nodes_to_score;  // v1 only; overrides the global value

  // `plugins:` as written; nullopt when the profile has none (the defaults then apply unchanged).
  std::optional<PluginSets> plugins;

  // Filled by resolve_profiles(): per cycle point, the plugins in the order they run. Reserve
  // implies Unreserve, Score implies NormalizeScore and PreFilter its extensions: only the
  // configurable point is recorded, the others stay empty.
  std::array<std::vector<EnabledPlugin>, kExtensionPointCount> enabled{};

  // pluginConfig: plugin name -> args as JSON ({} when the entry has no args).
  std::map<std::string, nlohmann::json, std::less<>> plugin_args;
  std::map<std::string, SourceLocation, std::less<>> plugin_config_locations;

  SourceLocation location;                 // the profile's entry in `profiles:`
  SourceLocation scheduler_name_location;  // unknown when schedulerName is not written
  SourceLocation percentage_location;

  const std::vector<EnabledPlugin>& enabled_at(ExtensionPoint point) const;
  // The plugin's args; {} when the profile has no pluginConfig for it.
  const nlohmann::json& args_for(std::string_view plugin_name) const;
};

struct SchedulerConfiguration {
  std::string api_version;              // as written: kubescheduler.config.k8s.io/v1beta3 or /v1
  SourceLocation api_version_location;  // where it was written, for the v1beta3 warning
  int parallelism = 16;
  std::optional<int> percentage_of_nodes_to_score;  // unset (or 0) = adaptive
  std::int64_t pod_initial_backoff_seconds = 1;
  std::int64_t pod_max_backoff_seconds = 10;
  std::vector<Profile> profiles;
  std::vector<ExtenderConfig> extenders;  // called by every profile's cycle, in this order
  std::string file;                       // the file it was read from, for messages

  // Upstream fields outside the scheduling cycle's model (leaderElection, clientConnection,
  // extenders, ...): field name -> value as JSON, kept so nothing the user wrote is lost. serve
  // reads the first two; extenders are read into `extenders` too.
  std::map<std::string, nlohmann::json, std::less<>> upstream_only_fields;
  // Top-level field name -> where its value is written, for validation messages.
  std::map<std::string, SourceLocation, std::less<>> field_locations;

  // The profile with that schedulerName, or nullptr.
  const Profile* find_profile(std::string_view scheduler_name) const;
  // Where a top-level field is written; just the file when it is not.
  SourceLocation location_of(std::string_view field) const;
};

}  // namespace schedhost::config
