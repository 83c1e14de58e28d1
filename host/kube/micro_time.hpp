// The two time formats Kubernetes objects carry, always in UTC: metav1.Time
// ("2006-01-02T15:04:05Z", conditions, timestamps) and metav1.MicroTime
// ("2006-01-02T15:04:05.000000Z", event times, lease times). Go's time.Format truncates, so both
// truncate toward the past.
#pragma once

#include <chrono>
#include <string>

namespace schedhost::kube {

// "2024-01-02T03:04:05Z".
std::string format_time(std::chrono::system_clock::time_point t);

// "2024-01-02T03:04:05.123456Z".
std::string format_micro_time(std::chrono::system_clock::time_point t);

}  // namespace schedhost::kube
