#include "scheduler/fit_error.hpp"

#include <schedhost/k8s/fit_error.hpp>

namespace schedhost::scheduler {

std::string fit_error_message(std::size_t num_all_nodes, const std::string& pre_filter_message,
                              const std::vector<framework::Status>& node_statuses,
                              const std::string& post_filter_message) {
  std::string message;
  if (!pre_filter_message.empty()) {
    message =
        "0/" + std::to_string(num_all_nodes) + " nodes are available: " + pre_filter_message + ".";
  } else {
    k8s::ReasonHistogram histogram;
    for (const framework::Status& s : node_statuses)
      histogram.add(s.reasons);
    message = k8s::no_nodes_available(num_all_nodes, histogram);
  }
  // v1.35 appends PostFilter's message as it is (v1.28 added a period, often a second one).
  if (!post_filter_message.empty()) message += " " + post_filter_message;
  return message;
}

}  // namespace schedhost::scheduler
