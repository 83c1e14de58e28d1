// The message of a pod no node fits, exactly as upstream's FitError prints it:
//   0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint(s).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "framework/status.hpp"

namespace schedhost::scheduler {

// num_all_nodes: nodes in the snapshot. pre_filter_message: PreFilter's rejection ("" when
// PreFilter passed; then the reasons of node_statuses are counted and sorted instead).
// post_filter_message: PostFilter's message ("" for none).
std::string fit_error_message(std::size_t num_all_nodes, const std::string& pre_filter_message,
                              const std::vector<framework::Status>& node_statuses,
                              const std::string& post_filter_message);

}  // namespace schedhost::scheduler
