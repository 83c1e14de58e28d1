// One series of scheduler_plugin_execution_duration_seconds (a plugin, an extension point, a
// status), counted without a lock. A sampled cycle times every plugin on every node, from every
// Filter and Score thread at once: prometheus-cpp's Histogram::Observe takes a mutex per call,
// and those threads queued on it. Here a call adds to atomic counts, and each scrape moves them
// into the exported histogram (upstream records these durations asynchronously too, flushed
// once a second: ObservePluginDurationAsync).
#pragma once

#include <prometheus/histogram.h>

#include <atomic>
#include <cstdint>
#include <memory>

namespace schedhost::serving {

class PluginDurationSeries {
 public:
  // exported: the family's series, with these bucket bounds (kept by the caller).
  PluginDurationSeries(prometheus::Histogram& exported,
                       const prometheus::Histogram::BucketBoundaries& bounds);

  // Any thread, no lock.
  void observe(double seconds);
  // What was observed since the last flush, into the exported histogram. One thread at a time
  // (the scrape, under the metrics' mutex); an observation racing with it may have its count in
  // this flush and its duration in the next.
  void flush();

 private:
  prometheus::Histogram& exported_;
  const prometheus::Histogram::BucketBoundaries& bounds_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> counts_;  // per bucket, +Inf last
  std::atomic<std::uint64_t> nanoseconds_{0};             // the sum
};

}  // namespace schedhost::serving
