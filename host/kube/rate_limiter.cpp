#include "kube/rate_limiter.hpp"

#include <algorithm>
#include <thread>

namespace schedhost::kube {

RateLimiter::RateLimiter(double qps, int burst)
    : qps_(qps), capacity_(std::max(1, burst)), tokens_(capacity_), last_(Clock::now()) {}

std::chrono::nanoseconds RateLimiter::acquire() {
  if (qps_ <= 0) return {};
  Clock::time_point ready;
  const Clock::time_point start = Clock::now();
  {
    // Reserve a token now, possibly in the future (tokens_ may go negative), so waiters are
    // served in order and never spin.
    std::lock_guard lock(mutex_);
    const double elapsed = std::chrono::duration<double>(start - last_).count();
    tokens_ = std::min(capacity_, tokens_ + elapsed * qps_);
    last_ = start;
    tokens_ -= 1;
    if (tokens_ >= 0) return {};
    ready = start + std::chrono::duration_cast<Clock::duration>(
                        std::chrono::duration<double>(-tokens_ / qps_));
  }
  std::this_thread::sleep_until(ready);
  return ready - start;
}

}  // namespace schedhost::kube
