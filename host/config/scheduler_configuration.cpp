#include "config/scheduler_configuration.hpp"

namespace schedhost::config {

const std::vector<EnabledPlugin>& Profile::enabled_at(ExtensionPoint point) const {
  return enabled[static_cast<std::size_t>(point)];
}

const nlohmann::json& Profile::args_for(std::string_view plugin_name) const {
  static const nlohmann::json kNoArgs = nlohmann::json::object();
  auto it = plugin_args.find(plugin_name);
  return it == plugin_args.end() ? kNoArgs : it->second;
}

const Profile* SchedulerConfiguration::find_profile(std::string_view scheduler_name) const {
  for (const auto& profile : profiles) {
    if (profile.scheduler_name == scheduler_name) return &profile;
  }
  return nullptr;
}

SourceLocation SchedulerConfiguration::location_of(std::string_view field) const {
  auto it = field_locations.find(field);
  return it == field_locations.end() ? SourceLocation{file, 0, 0} : it->second;
}

}  // namespace schedhost::config
