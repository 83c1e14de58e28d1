#include "apiserver_metrics.hpp"

#include <cstdlib>
#include <string>

namespace schedhost_live_bench {

namespace {

// The value of label name in a series' label set ({a="x",b="y"}), or "" when absent.
std::string_view label(std::string_view labels, std::string_view name) {
  std::size_t at = 0;
  while ((at = labels.find(name, at)) != std::string_view::npos) {
    const bool starts = at == 0 || labels[at - 1] == '{' || labels[at - 1] == ',';
    const std::size_t quote = at + name.size() + 1;
    if (starts && quote < labels.size() && labels[at + name.size()] == '=' &&
        labels[quote] == '"') {
      const std::size_t end = labels.find('"', quote + 1);
      if (end == std::string_view::npos) return {};
      return labels.substr(quote + 1, end - quote - 1);
    }
    at += name.size();
  }
  return {};
}

}  // namespace

RequestCounts count_apiserver_requests(std::string_view exposition) {
  constexpr std::string_view kName = "apiserver_request_total";
  RequestCounts counts;
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
    const std::string_view labels = line.substr(kName.size(), space - kName.size());
    std::string key(label(labels, "verb"));
    key += ' ';
    key += label(labels, "resource");
    if (const std::string_view sub = label(labels, "subresource"); !sub.empty()) {
      key += '/';
      key += sub;
    }
    counts[key] += std::strtod(std::string(line.substr(space + 1)).c_str(), nullptr);
  }
  return counts;
}

double total(const RequestCounts& counts) {
  double sum = 0;
  for (const auto& [key, n] : counts)
    sum += n;
  return sum;
}

RequestCounts difference(const RequestCounts& after, const RequestCounts& before) {
  RequestCounts out;
  for (const auto& [key, n] : after) {
    const auto was = before.find(key);
    const double d = n - (was == before.end() ? 0.0 : was->second);
    if (d != 0) out[key] = d;
  }
  return out;
}

}  // namespace schedhost_live_bench
