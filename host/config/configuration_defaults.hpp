// Upstream's SetDefaults_KubeSchedulerConfiguration, the part that is not a member initializer of
// SchedulerConfiguration: the default profile and its name. Plugins are defaulted (merged) later,
// in resolve_profiles(), because the merge result is only useful together with the catalog.
#pragma once

#include "config/scheduler_configuration.hpp"

namespace schedhost::config {

// No profiles -> one profile; a lone profile without a written schedulerName ->
// "default-scheduler". With several profiles nothing is named: validation then asks for the missing
// names.
void apply_defaults(SchedulerConfiguration& configuration);

}  // namespace schedhost::config
