#include "config/profile_resolver.hpp"

#include "config/config_parser.hpp"

#include <algorithm>
#include <set>
#include <tuple>

#include "cluster/error_line.hpp"
#include "common/input_error.hpp"
#include "common/plugin_search.hpp"
#include "config/configuration_validation.hpp"
#include "config/default_plugins.hpp"
#include "config/multi_point_expansion.hpp"
#include "config/plugin_set_merge.hpp"
#include "config/score_weights.hpp"

namespace schedhost::config {
namespace {

using NameSet = std::set<std::string, std::less<>>;

std::string quote(std::string_view s) {
  return "\"" + std::string(s) + "\"";
}
std::string label(const Profile& profile) {
  return "profile " + quote(profile.scheduler_name);
}

// A default the user did not ask for by name is optional: the host may ship without it. It is
// dropped with a warning so that nothing disappears silently; a missing queue sort or binder
// then fails the profile below with its own message.
NameSet skip_missing_defaults(PluginSet& multi_point, const PluginCatalog& catalog,
                              const PluginOrigins& origins, const Profile& profile,
                              std::vector<std::string>& warnings) {
  const std::string searched = searched_directories_text(origins.searched);
  NameSet skipped;
  std::vector<std::string> names;  // in default order, for one warning per profile
  std::erase_if(multi_point.enabled, [&](const PluginReference& plugin) {
    if (!plugin.is_default || catalog.contains(plugin.name)) return false;
    if (skipped.insert(plugin.name).second) names.push_back(quote(plugin.name));
    return true;
  });
  if (names.size() == 1) {
    warnings.push_back(profile.location.to_string() + ": " + label(profile) + ": default plugin " +
                       names.front() + " is not installed" + searched +
                       ", so it is skipped: put its .so in a --plugin-dir, or "
                       "disable it in multiPoint");
  } else if (!names.empty()) {
    std::string list;
    for (const std::string& n : names)
      list += (list.empty() ? "" : ", ") + n;
    warnings.push_back(
        profile.location.to_string() + ": " + label(profile) + ": " + std::to_string(names.size()) +
        " default plugins are not installed" + searched +
        ", so they "
        "are skipped: " +
        list + ": put their .so files in a --plugin-dir, or disable them in multiPoint");
  }
  return skipped;
}

// What the user named must exist. Upstream checks the points in the same way, then multiPoint.
void require_installed(const PluginSets& merged, const PluginCatalog& catalog,
                       const PluginOrigins& origins) {
  auto check = [&](const PluginSet& set) {
    for (const auto& plugin : set.enabled) {
      if (catalog.contains(plugin.name)) continue;
      std::vector<std::string> installed;
      for (const auto& [name, points] : catalog)
        installed.push_back(name);
      fail_at(plugin.location,
              not_installed_message(plugin.name, installed, origins.searched,
                                    "put its .so in a --plugin-dir, or remove it"));
    }
  };
  for (auto point : kConcreteConfigExtensionPoints)
    check(merged[point]);
  check(merged[ConfigExtensionPoint::MultiPoint]);
}

void check_queue_sort_and_bind(const Profile& profile, const ExpandedPlugins& expanded) {
  const auto& queue_sort = expanded[static_cast<std::size_t>(ExtensionPoint::QueueSort)];
  if (queue_sort.empty()) {
    fail_at(profile.location, label(profile) +
                                  " has no queueSort plugin: enable exactly one in queueSort or "
                                  "multiPoint (the default is PrioritySort)");
  }
  if (queue_sort.size() > 1) {
    std::string names;
    for (const auto& plugin : queue_sort)
      names += (names.empty() ? "" : ", ") + quote(plugin.name);
    fail_at(known_or(queue_sort[1].location, profile.location),
            label(profile) + " has " + std::to_string(queue_sort.size()) + " queueSort plugins (" +
                names + "): keep exactly one and disable the others in queueSort");
  }
  if (expanded[static_cast<std::size_t>(ExtensionPoint::Bind)].empty()) {
    fail_at(profile.location,
            label(profile) +
                " has no bind plugin: enable one in bind or multiPoint (the default "
                "is DefaultBinder)");
  }
}

// A plugin the user put in multiPoint that joins no point: upstream allows it silently, but it
// is usually a plugin whose hooks are misspelt, or one every point it has disables.
void warn_idle_multi_point_plugins(const Profile& profile, const PluginSets& merged,
                                   const ExpandedPlugins& expanded, const PluginCatalog& catalog,
                                   const PluginOrigins& origins,
                                   std::vector<std::string>& warnings) {
  NameSet running;
  for (const auto& plugins : expanded) {
    for (const auto& plugin : plugins)
      running.insert(plugin.name);
  }
  NameSet warned;
  for (const PluginReference& plugin : merged[ConfigExtensionPoint::MultiPoint].enabled) {
    if (plugin.is_default || running.contains(plugin.name)) continue;
    if (!warned.insert(plugin.name).second) continue;
    auto found = catalog.find(plugin.name);
    if (found == catalog.end()) continue;
    std::string hooks;   // the multiPoint hooks it implements
    std::string fields;  // the fields of `plugins:` that disable it
    for (const ConfigExtensionPoint point : kConcreteConfigExtensionPoints) {
      const ExtensionPoint cycle_point = *to_extension_point(point);
      if (!found->second.contains(cycle_point)) continue;
      hooks += (hooks.empty() ? "" : ", ") + std::string(to_string(cycle_point));
      fields += (fields.empty() ? "" : ", ") + std::string(field_name(point));
    }
    std::string text = known_or(plugin.location, profile.location).to_string() + ": " +
                       label(profile) + ": multiPoint plugin " + quote(plugin.name);
    if (auto file = origins.files.find(plugin.name); file != origins.files.end()) {
      text += " (" + file->second + ")";
    }
    text += " implements none of the hooks multiPoint expands to";
    if (hooks.empty()) {
      std::string all;
      for (const ConfigExtensionPoint point : kConcreteConfigExtensionPoints)
        all += (all.empty() ? "" : ", ") + std::string(to_string(*to_extension_point(point)));
      text += " (" + all +
              "), so it runs at no extension point: check the names of its hooks, or remove it "
              "from multiPoint";
    } else {
      text += " in this profile, so it runs at no extension point: it implements " + hooks +
              ", which the profile disables (" + fields +
              "); enable it there, or remove it from multiPoint";
    }
    warnings.push_back(std::move(text));
  }
}

// Upstream ignores pluginConfig for a plugin the profile does not run; schedhost says so.
void warn_unused_plugin_config(const Profile& profile, const NameSet& skipped_defaults,
                               std::vector<std::string>& warnings) {
  NameSet enabled;
  for (const auto& plugins : profile.enabled) {
    for (const auto& plugin : plugins)
      enabled.insert(plugin.name);
  }
  std::vector<std::pair<const std::string*, const SourceLocation*>> unused;
  for (const auto& [name, location] : profile.plugin_config_locations) {
    // A skipped default already has its warning.
    if (!enabled.contains(name) && !skipped_defaults.contains(name)) {
      unused.emplace_back(&name, &location);
    }
  }
  std::sort(unused.begin(), unused.end(), [](const auto& a, const auto& b) {
    return std::tie(a.second->line, a.second->column) < std::tie(b.second->line, b.second->column);
  });
  for (const auto& [name, location] : unused) {
    warnings.push_back(location->to_string() + ": " + label(profile) +
                       ": pluginConfig for plugin " + quote(*name) +
                       " is ignored: the profile does not enable " + quote(*name) +
                       "; enable it or remove the entry");
  }
}

void resolve_profile(Profile& profile, const PluginCatalog& catalog, const PluginOrigins& origins,
                     std::vector<std::string>& warnings) {
  PluginSets merged = merge_plugins(default_plugins(), profile.plugins);
  NameSet skipped = skip_missing_defaults(merged[ConfigExtensionPoint::MultiPoint], catalog,
                                          origins, profile, warnings);
  require_installed(merged, catalog, origins);
  ExpandedPlugins expanded = expand_plugins(merged, catalog);
  check_queue_sort_and_bind(profile, expanded);
  warn_idle_multi_point_plugins(profile, merged, expanded, catalog, origins, warnings);
  auto weights = score_weights(merged, catalog, label(profile), profile.location);

  for (std::size_t i = 0; i < kExtensionPointCount; ++i) {
    const bool is_score = static_cast<ExtensionPoint>(i) == ExtensionPoint::Score;
    profile.enabled[i].clear();
    for (const auto& plugin : expanded[i]) {
      int weight = 0;
      if (is_score) {
        auto found = weights.find(plugin.name);
        weight = found == weights.end() ? 1 : found->second;
      }
      profile.enabled[i].push_back(EnabledPlugin{plugin.name, weight, plugin.location});
    }
  }
  warn_unused_plugin_config(profile, skipped, warnings);
}

// The queue is shared by all profiles, so they must agree on how to sort it (plugin and args).
void check_common_queue_sort(const std::vector<Profile>& profiles) {
  if (profiles.empty()) return;
  const Profile& first = profiles.front();
  const EnabledPlugin& canonical = first.enabled_at(ExtensionPoint::QueueSort).front();
  for (std::size_t i = 1; i < profiles.size(); ++i) {
    const Profile& profile = profiles[i];
    const EnabledPlugin& queue_sort = profile.enabled_at(ExtensionPoint::QueueSort).front();
    if (queue_sort.name != canonical.name) {
      fail_at(known_or(queue_sort.location, profile.location),
              label(profile) + " uses queueSort plugin " + quote(queue_sort.name) + " but " +
                  label(first) + " uses " + quote(canonical.name) +
                  ": every profile must use the same queueSort plugin");
    }
    if (profile.args_for(queue_sort.name) != first.args_for(canonical.name)) {
      auto config = profile.plugin_config_locations.find(queue_sort.name);
      const SourceLocation& at =
          config != profile.plugin_config_locations.end() ? config->second : profile.location;
      fail_at(at, label(profile) + " gives queueSort plugin " + quote(queue_sort.name) +
                      " other args than " + label(first) +
                      ": every profile must use the same queueSort args");
    }
  }
}

// Upstream appends the extenders' ignoredByScheduler resources to the NodeResourcesFit args of
// every profile that runs it: the extender accounts for them, so Filter must not.
void add_extender_ignored_resources(SchedulerConfiguration& configuration) {
  nlohmann::json ignored = nlohmann::json::array();
  for (const ExtenderConfig& e : configuration.extenders) {
    for (const ExtenderManagedResource& r : e.managed_resources) {
      if (r.ignored_by_scheduler) ignored.push_back(r.name);
    }
  }
  if (ignored.empty()) return;
  constexpr std::string_view kFit = "NodeResourcesFit";
  for (Profile& profile : configuration.profiles) {
    const auto& filters = profile.enabled_at(ExtensionPoint::Filter);
    if (std::none_of(filters.begin(), filters.end(),
                     [&](const EnabledPlugin& p) { return p.name == kFit; })) {
      continue;
    }
    nlohmann::json& args = profile.plugin_args[std::string(kFit)];
    if (!args.is_object()) args = nlohmann::json::object();
    nlohmann::json& list = args["ignoredResources"];
    if (!list.is_array()) list = nlohmann::json::array();
    for (const auto& name : ignored)
      list.push_back(name);
  }
}

Resolution resolve_valid_profiles(SchedulerConfiguration configuration,
                                  const PluginCatalog& catalog, const PluginOrigins& origins) {
  validate_configuration(configuration);
  Resolution resolution;
  if (configuration.api_version == kApiVersionV1beta3) {
    // kube-scheduler has read only v1 since v1.29; the file still works here, read as v1.
    resolution.warnings.push_back(
        configuration.api_version_location.to_string() + ": apiVersion " +
        std::string(kApiVersionV1beta3) + " is deprecated (kube-scheduler reads only " +
        std::string(kApiVersionV1) + " since v1.29): schedhost reads it as " +
        std::string(kApiVersionV1) +
        ", whose defaults are the same (v1 also lets a profile set percentageOfNodesToScore); "
        "change the apiVersion to " +
        std::string(kApiVersionV1));
  }
  for (auto& profile : configuration.profiles) {
    resolve_profile(profile, catalog, origins, resolution.warnings);
  }
  check_common_queue_sort(configuration.profiles);
  add_extender_ignored_resources(configuration);
  resolution.configuration = std::move(configuration);
  return resolution;
}

}  // namespace

Resolution resolve_profiles(SchedulerConfiguration configuration, const PluginCatalog& catalog,
                            const PluginOrigins& origins) {
  // Names and args come from the user's file: keep the message on one line whatever they hold.
  return with_one_line_errors(
      [&] { return resolve_valid_profiles(std::move(configuration), catalog, origins); });
}

}  // namespace schedhost::config
