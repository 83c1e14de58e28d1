#include "kube/backoff.hpp"

#include <algorithm>

namespace schedhost::kube {

Backoff::Backoff(std::chrono::milliseconds initial, std::chrono::milliseconds cap,
                 std::chrono::milliseconds reset_after)
    : initial_(initial), cap_(cap), reset_after_(reset_after) {}

std::chrono::milliseconds Backoff::next(Clock::time_point now) {
  if (current_.count() == 0 || now - last_failure_ > reset_after_) {
    current_ = initial_;
  } else {
    current_ = std::min(cap_, current_ * 2);
  }
  last_failure_ = now;
  std::uniform_real_distribution<double> jitter(0.0, 1.0);
  return std::chrono::milliseconds(
      static_cast<long long>(static_cast<double>(current_.count()) * (1.0 + jitter(rng_))));
}

}  // namespace schedhost::kube
