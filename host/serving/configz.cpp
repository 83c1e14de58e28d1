#include "serving/configz.hpp"

#include <chrono>
#include <string>

namespace schedhost::serving {
namespace {

using nlohmann::json;

std::string go_duration(std::chrono::milliseconds d) {
  const auto ms = d.count();
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + "s";
  return std::to_string(ms) + "ms";
}

// Extension point names as the configuration writes them: lower camel case.
std::string field_name(ExtensionPoint point) {
  std::string name(to_string(point));
  name[0] = static_cast<char>(name[0] - 'A' + 'a');
  return name;
}

}  // namespace

json configz(const config::SchedulerConfiguration& c, const live::LeaderElectionConfig& le) {
  json out = {{"apiVersion", c.api_version},
              {"kind", "KubeSchedulerConfiguration"},
              {"parallelism", c.parallelism},
              {"podInitialBackoffSeconds", c.pod_initial_backoff_seconds},
              {"podMaxBackoffSeconds", c.pod_max_backoff_seconds}};
  if (c.percentage_of_nodes_to_score) {
    out["percentageOfNodesToScore"] = *c.percentage_of_nodes_to_score;
  }
  for (const auto& [field, value] : c.upstream_only_fields)
    out[field] = value;
  out["leaderElection"] = {{"leaderElect", le.enabled},
                           {"leaseDuration", go_duration(le.lease_duration)},
                           {"renewDeadline", go_duration(le.renew_deadline)},
                           {"retryPeriod", go_duration(le.retry_period)},
                           {"resourceLock", le.resource_lock},
                           {"resourceName", le.name},
                           {"resourceNamespace", le.namespace_name}};
  json profiles = json::array();
  for (const config::Profile& p : c.profiles) {
    json profile = {{"schedulerName", p.scheduler_name}};
    if (p.percentage_of_nodes_to_score) {
      profile["percentageOfNodesToScore"] = *p.percentage_of_nodes_to_score;
    }
    json plugins = json::object();
    for (ExtensionPoint point : kAllExtensionPoints) {
      const auto& enabled = p.enabled_at(point);
      if (enabled.empty()) continue;
      json list = json::array();
      for (const config::EnabledPlugin& e : enabled) {
        json entry = {{"name", e.name}};
        if (point == ExtensionPoint::Score) entry["weight"] = e.weight;
        list.push_back(std::move(entry));
      }
      plugins[field_name(point)] = {{"enabled", std::move(list)}};
    }
    profile["plugins"] = std::move(plugins);
    json plugin_config = json::array();
    for (const auto& [name, args] : p.plugin_args)
      plugin_config.push_back({{"name", name}, {"args", args}});
    profile["pluginConfig"] = std::move(plugin_config);
    profiles.push_back(std::move(profile));
  }
  out["profiles"] = std::move(profiles);
  return {{"componentconfig", std::move(out)}};
}

}  // namespace schedhost::serving
