#include "serving/health_checks.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace schedhost::serving {

HealthAnswer answer_health(const std::string& endpoint, const std::vector<HealthCheck>& checks,
                           bool verbose, const std::vector<std::string>& exclude,
                           const std::string& check) {
  if (!check.empty()) {
    auto it = std::find_if(checks.begin(), checks.end(),
                           [&](const HealthCheck& c) { return c.name == check; });
    if (it == checks.end()) return {404, "404 page not found\n"};
    if (auto failure = it->run()) return {500, "internal server error: " + *failure + "\n"};
    return {200, "ok"};
  }
  std::string lines;
  bool failed = false;
  std::vector<std::string> unmatched = exclude;
  for (const HealthCheck& c : checks) {
    if (std::find(exclude.begin(), exclude.end(), c.name) != exclude.end()) {
      unmatched.erase(std::remove(unmatched.begin(), unmatched.end(), c.name), unmatched.end());
      lines += "[+]" + c.name + " excluded: ok\n";
      continue;
    }
    if (auto failure = c.run()) {
      failed = true;
      spdlog::warn("{} check failed: {}: {}", endpoint, c.name, *failure);
      lines += "[-]" + c.name + " failed: reason withheld\n";
    } else {
      lines += "[+]" + c.name + " ok\n";
    }
  }
  if (!unmatched.empty()) {
    std::string names;
    for (const std::string& n : unmatched)
      names += (names.empty() ? "" : ",") + ("\"" + n + "\"");
    lines += "warn: some health checks cannot be excluded: no matches for " + names + "\n";
  }
  if (failed) return {500, lines + endpoint + " check failed\n"};
  if (!verbose) return {200, "ok"};
  return {200, lines + endpoint + " check passed\n"};
}

}  // namespace schedhost::serving
