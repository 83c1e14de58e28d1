#include "scheduler/fit_error.hpp"

#include <algorithm>
#include <map>

namespace schedhost::scheduler {

std::string fit_error_message(std::size_t num_all_nodes, const std::string& pre_filter_message,
                              const std::vector<framework::Status>& node_statuses,
                              const std::string& post_filter_message) {
  std::string message = "0/" + std::to_string(num_all_nodes) + " nodes are available:";
  if (!pre_filter_message.empty()) {
    message += " " + pre_filter_message + ".";
  } else {
    std::map<std::string, int> histogram;  // a node with several reasons counts in each
    for (const framework::Status& s : node_statuses) {
      for (const std::string& reason : s.reasons)
        ++histogram[reason];
    }
    std::vector<std::string> lines;
    lines.reserve(histogram.size());
    for (const auto& [reason, count] : histogram)
      lines.push_back(std::to_string(count) + " " + reason);
    std::sort(lines.begin(), lines.end());  // as plain strings: "10 x" sorts before "2 y"
    if (!lines.empty()) {
      std::string joined;
      for (const std::string& l : lines)
        joined += (joined.empty() ? "" : ", ") + l;
      message += " " + joined + ".";
    }
  }
  if (!post_filter_message.empty()) message += " " + post_filter_message + ".";
  return message;
}

}  // namespace schedhost::scheduler
