#include "config/configuration_validation.hpp"

#include <map>
#include <string>

#include "common/input_error.hpp"

namespace schedhost::config {
namespace {

bool is_percentage(int value) {
  return value >= 0 && value <= 100;
}

}  // namespace

void validate_configuration(const SchedulerConfiguration& configuration) {
  const auto& c = configuration;
  if (c.parallelism <= 0) {
    fail_at(c.location_of("parallelism"), "parallelism " + std::to_string(c.parallelism) +
                                              " is not valid: set an integer greater than zero "
                                              "(the default is 16)");
  }
  if (c.percentage_of_nodes_to_score && !is_percentage(*c.percentage_of_nodes_to_score)) {
    fail_at(c.location_of("percentageOfNodesToScore"),
            "percentageOfNodesToScore " + std::to_string(*c.percentage_of_nodes_to_score) +
                " is not in the valid range [0-100]: set a percentage from 0 to 100 "
                "(0 means adaptive)");
  }
  if (c.pod_initial_backoff_seconds <= 0) {
    fail_at(c.location_of("podInitialBackoffSeconds"),
            "podInitialBackoffSeconds " + std::to_string(c.pod_initial_backoff_seconds) +
                " is not valid: set a number of seconds greater than 0 (the default is 1)");
  }
  if (c.pod_max_backoff_seconds < c.pod_initial_backoff_seconds) {
    // The default max (10) can be the culprit when only the initial backoff is written.
    fail_at(
        known_or(c.location_of("podMaxBackoffSeconds"), c.location_of("podInitialBackoffSeconds")),
        "podMaxBackoffSeconds " + std::to_string(c.pod_max_backoff_seconds) +
            " is less than podInitialBackoffSeconds " +
            std::to_string(c.pod_initial_backoff_seconds) +
            ": set podMaxBackoffSeconds greater than or equal to podInitialBackoffSeconds");
  }

  if (c.profiles.empty()) {  // the parser defaults one; a configuration built in code may not
    fail_at(SourceLocation{c.file, 0, 0},
            "the configuration has no profile: add one under profiles");
  }
  std::map<std::string, const Profile*, std::less<>> by_name;
  for (std::size_t i = 0; i < c.profiles.size(); ++i) {
    const Profile& profile = c.profiles[i];
    if (profile.scheduler_name.empty()) {
      fail_at(known_or(profile.scheduler_name_location, profile.location),
              "profiles[" + std::to_string(i) +
                  "] has no schedulerName: set a unique schedulerName (only a lone profile "
                  "defaults to \"default-scheduler\")");
    }
    const std::string label = "profile \"" + profile.scheduler_name + "\"";
    if (auto [first, inserted] = by_name.emplace(profile.scheduler_name, &profile); !inserted) {
      const Profile& earlier = *first->second;
      fail_at(known_or(profile.scheduler_name_location, profile.location),
              label + " is defined twice (first at " +
                  known_or(earlier.scheduler_name_location, earlier.location).to_string() +
                  "): give each profile a unique schedulerName");
    }
    if (profile.percentage_of_nodes_to_score &&
        !is_percentage(*profile.percentage_of_nodes_to_score)) {
      fail_at(
          known_or(profile.percentage_location, profile.location),
          label + ": percentageOfNodesToScore " +
              std::to_string(*profile.percentage_of_nodes_to_score) +
              " is not in the valid range [0-100]: set a percentage from 0 to 100, or remove it "
              "to use the global value");
    }
  }
}

}  // namespace schedhost::config
