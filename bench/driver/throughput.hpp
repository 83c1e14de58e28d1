// Upstream's SchedulingThroughput from per-pod completion times: pods per 1 s window (average
// and percentiles), and per-pod latency.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace schedhost_bench {

struct Throughput {
  std::size_t pods = 0;
  double seconds = 0;                   // start of the run to the last completion
  double average = 0;                   // pods / seconds
  std::size_t windows = 0;              // full 1 s windows; 0 when the run took less than 1 s
  std::optional<double> p50, p90, p99;  // pods per window, over the full windows
  double latency_p50_us = 0, latency_p99_us = 0;
  double first_pod_ms = 0;  // start to the first completion: setup plus one pod
};

// completions: seconds since the start of the run, ascending. The latency of a pod is the time
// since the previous completion (pods are scheduled one at a time); the first pod, which also
// pays for the setup, is reported apart.
Throughput compute_throughput(const std::vector<double>& completions);

// Nearest-rank percentile of values (sorted in place); 0 for an empty list.
double percentile(std::vector<double>& values, double p);

}  // namespace schedhost_bench
