// How `schedhost exercise` prints what the hooks returned: JSON, or tables.
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>

#include "cluster/snapshot.hpp"
#include "framework/plugin_exerciser.hpp"

namespace schedhost::cli {

nlohmann::ordered_json exercise_json(const std::string& plugin,
                                     const framework::ExerciseResult& result);
void print_exercise_tables(const std::string& plugin, const framework::ExerciseResult& result,
                           const cluster::Snapshot& snapshot, std::ostream& out);

}  // namespace schedhost::cli
