#include "throughput.hpp"

#include <algorithm>
#include <cmath>

namespace schedhost_bench {

double percentile(std::vector<double>& values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * values.size()));
  return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

Throughput compute_throughput(const std::vector<double>& completions) {
  Throughput t;
  t.pods = completions.size();
  if (completions.empty()) return t;
  t.seconds = completions.back();
  t.average = t.seconds > 0 ? static_cast<double>(t.pods) / t.seconds : 0;
  t.first_pod_ms = completions.front() * 1e3;

  // Upstream samples the scheduled count every second; a trailing partial window is left out.
  t.windows = static_cast<std::size_t>(std::floor(t.seconds));
  if (t.windows > 0) {
    std::vector<double> per_window(t.windows, 0.0);
    for (double c : completions) {
      const auto w = static_cast<std::size_t>(c);
      if (w < t.windows) per_window[w] += 1;
    }
    t.p50 = percentile(per_window, 50);
    t.p90 = percentile(per_window, 90);
    t.p99 = percentile(per_window, 99);
  }

  std::vector<double> latencies;
  latencies.reserve(completions.size());
  for (std::size_t i = 1; i < completions.size(); ++i)
    latencies.push_back((completions[i] - completions[i - 1]) * 1e6);
  t.latency_p50_us = percentile(latencies, 50);
  t.latency_p99_us = percentile(latencies, 99);
  return t;
}

}  // namespace schedhost_bench
