// The weight of each Score plugin of a profile, as upstream's getScoreWeights computes it: an entry
// under score wins over the multiPoint one, an unset or 0 weight is 1, and the weights are not
// range-checked (upstream accepts negative ones); only an int64 overflow of the total is an error.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "config/plugin_catalog.hpp"
#include "config/plugin_set.hpp"
#include "config/source_location.hpp"

namespace schedhost::config {

// Plugin name -> weight, for every plugin of score.enabled and multiPoint.enabled that implements
// Score. Throws InputError at `profile_location` if sum(weight * 100) could overflow int64.
std::map<std::string, int, std::less<>> score_weights(const PluginSets& merged,
                                                      const PluginCatalog& catalog,
                                                      const std::string& profile_label,
                                                      const SourceLocation& profile_location);

}  // namespace schedhost::config
