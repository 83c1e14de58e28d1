// `schedhost exercise -o html`: what one plugin's hooks returned for one pod, as a self-contained
// page in the style of `run -o html` (framework/plugin_exerciser.hpp has the data): each
// pod-level hook's status, then one row per node with its Filter verdict and reasons, its Score
// and its normalized score (coloured 0 to 100).
#pragma once

#include <ostream>
#include <string>

#include "cluster/snapshot.hpp"
#include "framework/plugin_exerciser.hpp"

namespace schedhost::cli {

void write_exercise_html(const std::string& plugin, const std::string& pod,
                         const framework::ExerciseResult& result, const cluster::Snapshot& snapshot,
                         std::ostream& out);

}  // namespace schedhost::cli
