// Upstream's ValidateKubeSchedulerConfiguration, the checks that need no installed plugin: value
// ranges and profile names. Plugin checks need the catalog and live in resolve_profiles().
#pragma once

#include "config/scheduler_configuration.hpp"

namespace schedhost::config {

// Throws InputError (one line, with the location of the offending value) at the first problem:
// no profile; parallelism <= 0; percentageOfNodesToScore (global or per profile) outside [0, 100];
// podInitialBackoffSeconds <= 0; podMaxBackoffSeconds < podInitialBackoffSeconds; a profile without
// schedulerName; two profiles with one schedulerName.
void validate_configuration(const SchedulerConfiguration& configuration);

}  // namespace schedhost::config
