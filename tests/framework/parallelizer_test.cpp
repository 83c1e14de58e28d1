// The pool behind Filter and Score: every index runs exactly once per call, whatever the pool's
// size, and rest() (serve's "no pod for now") only sends spinning workers to sleep early: calls
// after it, from the same or another thread, still run everything. With a minimum of work
// (serve's), a call site whose jobs are short keeps them on the caller's thread, and one whose
// jobs are long shares them.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <mutex>
#include <set>
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

// Keeps this thread's core busy for cpu of its CPU time (the pool weighs jobs by CPU time).
void burn(std::chrono::microseconds cpu) {
  const auto now = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
  };
  const auto until = now() + cpu;
  while (now() < until) {
  }
}

// The threads that ran a job's items.
std::set<std::thread::id> threads_of(Parallelizer& pool, std::size_t n,
                                     std::chrono::microseconds per_item,
                                     const void* site = nullptr) {
  std::mutex mutex;
  std::set<std::thread::id> threads;
  pool.until(
      n,
      [&](std::size_t) {
        burn(per_item);
        const std::lock_guard lock(mutex);
        threads.insert(std::this_thread::get_id());
      },
      site);
  return threads;
}

TEST(Parallelizer, ShortJobsStayOnTheCallersThread) {
  Parallelizer pool(16, std::chrono::seconds(1));
  const std::set<std::thread::id> caller{std::this_thread::get_id()};
  for (int round = 0; round < 20; ++round)
    EXPECT_EQ(threads_of(pool, 8, std::chrono::microseconds(10)), caller) << "round " << round;
  EXPECT_EQ(pool.jobs_kept(), pool.parallelism() > 1 ? 20U : 0U);
  // Without a minimum every job is shared, as in the replay.
  Parallelizer sharing(16);
  EXPECT_EQ(run_rounds(sharing, 50, 37, false), std::vector<int>(37, 50));
  EXPECT_EQ(sharing.jobs_kept(), 0U);
}

TEST(Parallelizer, EachCallSiteLearnsItsOwnCost) {
  Parallelizer pool(16, std::chrono::milliseconds(2));
  if (pool.parallelism() < 2) {
    GTEST_SKIP() << "one core: no worker to share with";
  }
  const std::thread::id caller = std::this_thread::get_id();
  // A long job (16 items of 1 ms of CPU) runs alone the first time, which measures it; after that
  // it is shared. A short one at another call site stays on the caller's thread throughout.
  bool long_shared = false;
  for (int round = 0; round < 10; ++round) {
    const std::set<std::thread::id> long_job = threads_of(pool, 16, std::chrono::milliseconds(1));
    if (round == 0) {
      EXPECT_EQ(long_job, std::set<std::thread::id>{caller});
    }
    if (long_job.size() > 1) long_shared = true;
    std::set<std::thread::id> short_job;
    pool.until(8, [&](std::size_t) { short_job.insert(std::this_thread::get_id()); });
    EXPECT_EQ(short_job, std::set<std::thread::id>{caller}) << "round " << round;
  }
  EXPECT_TRUE(long_shared);
  EXPECT_EQ(pool.jobs_kept(), 11U);  // the long job once, the short one ten times
}

TEST(Parallelizer, ANamedSiteIsLearntApartFromItsLambda) {
  // parallel_for's one lambda runs every plugin's loop: each loop body names its own site.
  Parallelizer pool(16, std::chrono::milliseconds(2));
  if (pool.parallelism() < 2) {
    GTEST_SKIP() << "one core: no worker to share with";
  }
  const std::set<std::thread::id> caller{std::this_thread::get_id()};
  const int costly = 0;
  const int cheap = 0;
  bool costly_shared = false;
  for (int round = 0; round < 10; ++round) {
    if (threads_of(pool, 16, std::chrono::milliseconds(1), &costly).size() > 1) {
      costly_shared = true;
    }
    EXPECT_EQ(threads_of(pool, 8, std::chrono::microseconds(1), &cheap), caller) << round;
  }
  EXPECT_TRUE(costly_shared);
  EXPECT_EQ(pool.jobs_kept(), 11U);
}

}  // namespace
