// schedhost/k8s/fit_error.hpp - upstream's "0/N nodes are available: ..." message (FitError).
//
//   ReasonHistogram h;
//   h.add({"Insufficient cpu"}); h.add({"Insufficient cpu"}); h.add({"node(s) were
//   unschedulable"}); no_nodes_available(3, h) -> "0/3 nodes are available: 1 node(s) were
//   unschedulable, 2 Insufficient cpu."
//
// Header-only C++17; depends on nothing but the standard library.
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace schedhost::k8s {

// Reasons counted across nodes: a node whose status has several reasons counts in each.
class ReasonHistogram {
 public:
  template <class Reasons>
  void add(const Reasons& reasons) {
    for (const auto& reason : reasons)
      ++counts_[std::string(reason)];
  }
  bool empty() const { return counts_.empty(); }

  // "<count> <reason>" entries sorted as plain strings (so "10 x" sorts before "2 y"), joined
  // by ", ", as upstream prints them.
  std::string str() const {
    std::vector<std::string> lines;
    lines.reserve(counts_.size());
    for (const auto& [reason, count] : counts_)
      lines.push_back(std::to_string(count) + " " + reason);
    std::sort(lines.begin(), lines.end());
    std::string joined;
    for (const std::string& line : lines)
      joined += (joined.empty() ? "" : ", ") + line;
    return joined;
  }

 private:
  std::map<std::string, int> counts_;
};

// "0/<num_all_nodes> nodes are available: <histogram>." (no histogram: no text after the colon).
inline std::string no_nodes_available(std::size_t num_all_nodes, const ReasonHistogram& histogram) {
  std::string message = "0/" + std::to_string(num_all_nodes) + " nodes are available:";
  if (!histogram.empty()) message += " " + histogram.str() + ".";
  return message;
}

}  // namespace schedhost::k8s
