// The reflector's backoff between failed list/watch attempts (client-go's
// NewExponentialBackoffManager(800ms, 30s, 2min, 2.0, 1.0)): doubles from 800 ms up to 30 s,
// each wait stretched by up to 100 % jitter, and back to 800 ms after 2 minutes without failure.
#pragma once

#include <chrono>
#include <random>

namespace schedhost::kube {

class Backoff {
 public:
  using Clock = std::chrono::steady_clock;
  Backoff(std::chrono::milliseconds initial = std::chrono::milliseconds(800),
          std::chrono::milliseconds cap = std::chrono::seconds(30),
          std::chrono::milliseconds reset_after = std::chrono::minutes(2));

  // The wait before the next attempt after a failure at now.
  std::chrono::milliseconds next(Clock::time_point now = Clock::now());

 private:
  std::chrono::milliseconds initial_, cap_, reset_after_;
  std::chrono::milliseconds current_{0};
  Clock::time_point last_failure_{};
  std::mt19937 rng_{std::random_device{}()};
};

}  // namespace schedhost::kube
