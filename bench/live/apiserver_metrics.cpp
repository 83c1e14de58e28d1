#include "apiserver_metrics.hpp"

#include <cstdlib>
#include <string>

namespace schedhost_live_bench {

double sum_apiserver_requests(std::string_view exposition) {
  constexpr std::string_view kName = "apiserver_request_total";
  double total = 0;
  std::size_t start = 0;
  while (start < exposition.size()) {
    std::size_t end = exposition.find('\n', start);
    if (end == std::string_view::npos) end = exposition.size();
    const std::string_view line = exposition.substr(start, end - start);
    start = end + 1;
    // The name alone, not apiserver_request_total_something.
    if (line.rfind(kName, 0) != 0 || line.size() <= kName.size()) continue;
    if (line[kName.size()] != '{' && line[kName.size()] != ' ') continue;
    const auto space = line.rfind(' ');
    if (space == std::string_view::npos) continue;
    total += std::strtod(std::string(line.substr(space + 1)).c_str(), nullptr);
  }
  return total;
}

}  // namespace schedhost_live_bench
