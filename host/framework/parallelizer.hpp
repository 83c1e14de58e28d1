// Parallelizer: a fixed pool of threads for the per-node work of one pod (Filter, Score), sized by
// the configuration's parallelism, like upstream's parallelize.Until.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

namespace schedhost::framework {

class Parallelizer {
 public:
  // min(parallelism, cores) threads in all: the caller plus the workers. A job whose work is
  // expected to take less than min_parallel_work on one thread runs on the caller's thread
  // alone (zero: every job is shared), the expectation learnt per call site from its last runs.
  explicit Parallelizer(int parallelism,
                        std::chrono::nanoseconds min_parallel_work = std::chrono::nanoseconds(0));
  ~Parallelizer();
  Parallelizer(const Parallelizer&) = delete;
  Parallelizer& operator=(const Parallelizer&) = delete;

  // Calls work(i) for every i in [0, n), spread over the pool in chunks, and returns when all
  // calls have returned. work must not throw. Not reentrant: one call at a time. site names the
  // call site whose cost is learnt (above); by default the type of work, unique to a lambda.
  void until(std::size_t n, const std::function<void(std::size_t)>& work,
             const void* site = nullptr);

  // How many jobs until() has run on the caller's thread alone though it had workers.
  std::size_t jobs_kept() const { return jobs_kept_; }

  // No call is coming soon (serve between two pods, or with none to schedule): workers spinning
  // for the next call go to sleep at once instead of burning the rest of their spin, on a
  // machine whose other cores the API server may need. The next until() wakes them as usual.
  // Any thread.
  void rest() { resting_.store(true); }

  int parallelism() const { return static_cast<int>(workers_.size()) + 1; }

 private:
  void worker_loop();
  std::size_t run_chunks();  // takes chunks until none is left; returns the items it ran
  // Whether a job of n items of work is expected to pay for waking the workers.
  bool worth_sharing(const void* site, std::size_t n) const;
  void learn(const void* site, double ns_per_item);

  const std::chrono::nanoseconds min_parallel_work_;
  // Per call site: the CPU nanoseconds one item took on the caller's thread, smoothed. Caller's
  // thread only.
  std::unordered_map<const void*, double> ns_per_item_;
  std::size_t jobs_kept_ = 0;

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  const std::function<void(std::size_t)>* work_ = nullptr;
  std::size_t size_ = 0;
  std::size_t chunk_ = 1;
  std::size_t next_ = 0;  // next index to hand out (guarded by mutex_)
  // Written under mutex_; atomic so that threads may spin on them without it.
  std::atomic<std::size_t> busy_{0};  // workers inside run_chunks for the current job
  std::atomic<std::size_t> job_{0};   // increments per until() call
  std::atomic<bool> stopping_{false};
  std::atomic<bool> resting_{false};  // set by rest(), cleared by until()
};

}  // namespace schedhost::framework
