// What `schedhost exercise` reads besides the cluster: the one Pod of --pod, the plugin's
// --args, and the --score-nodes names checked against the cluster.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cluster/pod.hpp"
#include "cluster/snapshot.hpp"

namespace schedhost::cli {

// The one Pod of a YAML or JSON file. Throws InputError "file[:line:column]: ...".
std::shared_ptr<const cluster::Pod> read_exercise_pod(const std::string& file);

// --args: inline JSON, or @FILE (JSON for *.json, else YAML); "" means {}. Returns compact JSON
// of a mapping; throws InputError otherwise.
std::string read_exercise_args(const std::string& value);

// Throws InputError naming the first name that is not a Node of the cluster.
void check_score_nodes(const std::vector<std::string>& names, const cluster::Snapshot& snapshot,
                       const std::string& cluster_file);

}  // namespace schedhost::cli
