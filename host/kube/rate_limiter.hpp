// The client-side token bucket of clientConnection.qps/burst: every request takes one token,
// the bucket starts full and refills at qps per second, callers wait for a token (client-go's
// flowcontrol.NewTokenBucketRateLimiter).
#pragma once

#include <chrono>
#include <mutex>

namespace schedhost::kube {

class RateLimiter {
 public:
  // qps <= 0: no limit.
  RateLimiter(double qps, int burst);

  // Blocks until a token is available and takes it. Returns how long the caller waited.
  std::chrono::nanoseconds acquire();

 private:
  using Clock = std::chrono::steady_clock;
  std::mutex mutex_;
  double qps_;
  double capacity_;
  double tokens_;
  Clock::time_point last_;
};

}  // namespace schedhost::kube
