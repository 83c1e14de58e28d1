// The pool behind Filter and Score: every index runs exactly once per call, whatever the pool's
// size, and rest() (serve's "no pod for now") only sends spinning workers to sleep early: calls
// after it, from the same or another thread, still run everything.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "framework/parallelizer.hpp"

namespace {

using schedhost::framework::Parallelizer;

// Runs rounds of until(n) and returns how often each index ran in all.
std::vector<int> run_rounds(Parallelizer& pool, int rounds, std::size_t n, bool rest_between) {
  std::vector<std::atomic<int>> hits(n);
  for (int round = 0; round < rounds; ++round) {
    pool.until(n, [&](std::size_t i) { hits[i].fetch_add(1); });
    if (rest_between) pool.rest();
  }
  std::vector<int> out;
  for (const auto& h : hits)
    out.push_back(h.load());
  return out;
}

TEST(Parallelizer, EveryIndexRunsOncePerCall) {
  Parallelizer pool(16);  // capped at the machine's cores
  EXPECT_EQ(run_rounds(pool, 500, 37, false), std::vector<int>(37, 500));
  EXPECT_EQ(run_rounds(pool, 3, 5000, false), std::vector<int>(5000, 3));
}

TEST(Parallelizer, CallsAfterRestStillRunEveryIndex) {
  Parallelizer pool(16);
  EXPECT_EQ(run_rounds(pool, 500, 37, true), std::vector<int>(37, 500));
  // rest() from another thread while calls are being made (serve calls it from its loop, but
  // the contract says any thread).
  std::atomic<bool> done{false};
  std::thread rester([&] {
    while (!done.load()) {
      pool.rest();
      std::this_thread::yield();
    }
  });
  const std::vector<int> hits = run_rounds(pool, 2000, 11, false);
  done.store(true);
  rester.join();
  EXPECT_EQ(hits, std::vector<int>(11, 2000));
}

}  // namespace
