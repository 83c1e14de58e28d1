#include "serving/plugin_duration_series.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace schedhost::serving {

PluginDurationSeries::PluginDurationSeries(prometheus::Histogram& exported,
                                           const prometheus::Histogram::BucketBoundaries& bounds)
    : exported_(exported),
      bounds_(bounds),
      counts_(std::make_unique<std::atomic<std::uint64_t>[]>(bounds.size() + 1)) {}

void PluginDurationSeries::observe(double seconds) {
  // Prometheus buckets are "less than or equal": the first bound not below the value.
  const auto bucket = static_cast<std::size_t>(
      std::lower_bound(bounds_.begin(), bounds_.end(), seconds) - bounds_.begin());
  counts_[bucket].fetch_add(1, std::memory_order_relaxed);
  const double nanoseconds = std::max(0.0, seconds) * 1e9;
  nanoseconds_.fetch_add(static_cast<std::uint64_t>(std::llround(nanoseconds)),
                         std::memory_order_relaxed);
}

void PluginDurationSeries::flush() {
  std::vector<double> increments(bounds_.size() + 1);
  bool any = false;
  for (std::size_t i = 0; i < increments.size(); ++i) {
    increments[i] = static_cast<double>(counts_[i].exchange(0, std::memory_order_relaxed));
    any = any || increments[i] > 0;
  }
  // A racing observation may have left only its duration: it is passed on all the same.
  const std::uint64_t nanoseconds = nanoseconds_.exchange(0, std::memory_order_relaxed);
  if (any || nanoseconds > 0) {
    exported_.ObserveMultiple(increments, static_cast<double>(nanoseconds) / 1e9);
  }
}

}  // namespace schedhost::serving
