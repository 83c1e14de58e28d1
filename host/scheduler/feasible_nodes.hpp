// How many feasible nodes to look for before Filter stops (upstream numFeasibleNodesToFind).
#pragma once

#include <cstddef>

namespace schedhost::scheduler {

// percentage: the profile's percentageOfNodesToScore, else the global one; 0 means adaptive.
std::size_t num_feasible_nodes_to_find(int percentage, std::size_t num_nodes);

}  // namespace schedhost::scheduler
