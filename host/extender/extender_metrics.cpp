#include "extender/extender_metrics.hpp"

#include <prometheus/text_serializer.h>

namespace schedhost::extender {

ExtenderMetrics::ExtenderMetrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      requests_(prometheus::BuildCounter()
                    .Name("schedhost_extender_requests_total")
                    .Help("Extender requests answered, by verb and HTTP status code.")
                    .Register(*registry_)),
      duration_(prometheus::BuildHistogram()
                    .Name("schedhost_extender_request_duration_seconds")
                    .Help("Time to answer an extender request once its body is received (parse, "
                          "plugins, answer), by verb.")
                    .Register(*registry_)) {}

void ExtenderMetrics::request(const std::string& verb, int code, double seconds) {
  // 100 us to ~3 s: a request at 5000 nodes takes milliseconds.
  static const prometheus::Histogram::BucketBoundaries kBuckets = {
      0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5};
  std::lock_guard lock(mutex_);
  requests_.Add({{"verb", verb}, {"code", std::to_string(code)}}).Increment();
  duration_.Add({{"verb", verb}}, kBuckets).Observe(seconds);
}

std::string ExtenderMetrics::scrape() const {
  std::lock_guard lock(mutex_);
  return prometheus::TextSerializer().Serialize(registry_->Collect());
}

}  // namespace schedhost::extender
