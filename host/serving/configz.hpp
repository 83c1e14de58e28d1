// /configz: the effective configuration, as kube-scheduler serves it ({"componentconfig": {...}}):
// what the file said with every default filled in, each profile's plugins per extension point in
// the order they run, their args, and the leader election in force.
#pragma once

#include <nlohmann/json.hpp>

#include "config/scheduler_configuration.hpp"
#include "live/leader_election.hpp"

namespace schedhost::serving {

nlohmann::json configz(const config::SchedulerConfiguration& configuration,
                       const live::LeaderElectionConfig& leader_election);

}  // namespace schedhost::serving
