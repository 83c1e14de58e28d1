#include "config/configuration_defaults.hpp"

namespace schedhost::config {

void apply_defaults(SchedulerConfiguration& configuration) {
  if (configuration.profiles.empty()) {
    Profile profile;
    profile.location = SourceLocation{configuration.file, 0, 0};
    configuration.profiles.push_back(std::move(profile));
  }
  // Upstream defaults only a nil name: an explicit `schedulerName: ""` stays and is rejected.
  if (configuration.profiles.size() == 1) {
    Profile& profile = configuration.profiles.front();
    if (profile.scheduler_name.empty() && !profile.scheduler_name_location.known()) {
      profile.scheduler_name = kDefaultSchedulerName;
    }
  }
}

}  // namespace schedhost::config
