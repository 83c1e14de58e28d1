// What `schedhost extender` adds to /metrics beside the framework's families (extension points,
// sampled plugin executions, plugin faults, from serving::SchedulerMetrics): its requests, counted
// and timed per verb, in a prometheus-cpp registry of its own.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <memory>
#include <mutex>
#include <string>

namespace schedhost::extender {

class ExtenderMetrics {
 public:
  ExtenderMetrics();

  // One request answered: verb "filter", "prioritize" or "unknown"; code the HTTP status;
  // seconds from the body received to the answer written. Thread-safe.
  void request(const std::string& verb, int code, double seconds);

  // The text exposition of these families. Thread-safe.
  std::string scrape() const;

 private:
  mutable std::mutex mutex_;  // Family::Add beside a scrape's Collect, as SchedulerMetrics does
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>& requests_;
  prometheus::Family<prometheus::Histogram>& duration_;
};

}  // namespace schedhost::extender
