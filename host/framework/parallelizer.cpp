#include "framework/parallelizer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>

#include "common/thread_name.hpp"

namespace schedhost::framework {
namespace {

// One pod's Filter, PreScore and Score calls, and the next pod's, come microseconds apart. A
// thread about to sleep on a condition variable first spins this long for what it waits for:
// on two cores that saves a futex sleep and wake per call (about 5 % of a SchedulingBasic run).
constexpr auto kSpin = std::chrono::microseconds(50);

template <class Done>
void spin_until(Done done) {
  const auto deadline = std::chrono::steady_clock::now() + kSpin;
  while (!done()) {
    for (int i = 0; i < 64; ++i) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    if (std::chrono::steady_clock::now() > deadline) return;
  }
}

// How much a new run of a call site counts against what its earlier runs showed.
constexpr double kLearningRate = 0.25;

// This thread's CPU time: what a job's items cost, whether or not the API server or another
// process took the core meanwhile (wall time would count that, and keep a cheap job shared).
double thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

}  // namespace

Parallelizer::Parallelizer(int parallelism, std::chrono::nanoseconds min_parallel_work)
    : min_parallel_work_(min_parallel_work) {
  // More threads than cores only wait on each other: at the default parallelism of 16 on two
  // cores, waking 15 workers per call cost a third of the run in futex calls (docs/benchmarks.md).
  // Results do not depend on the thread count (Filter verdicts are taken in rotation order).
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const int workers = std::min(std::max(parallelism, 1), cores) - 1;
  workers_.reserve(static_cast<std::size_t>(workers));
  for (int i = 0; i < workers; ++i)
    workers_.emplace_back([this] {
      name_this_thread("parallel");
      worker_loop();
    });
}

Parallelizer::~Parallelizer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_)
    t.join();
}

bool Parallelizer::worth_sharing(const void* site, std::size_t n) const {
  const auto it = ns_per_item_.find(site);
  // A call site not seen yet runs alone once, which measures it exactly.
  if (it == ns_per_item_.end()) return false;
  return it->second * static_cast<double>(n) >= static_cast<double>(min_parallel_work_.count());
}

void Parallelizer::learn(const void* site, double ns_per_item) {
  const auto [it, first] = ns_per_item_.try_emplace(site, ns_per_item);
  if (!first) it->second += kLearningRate * (ns_per_item - it->second);
}

void Parallelizer::until(std::size_t n, const std::function<void(std::size_t)>& work,
                         const void* site) {
  if (n == 0) return;
  const bool adaptive = min_parallel_work_.count() > 0 && !workers_.empty() && n > 1;
  // A type_info lives as long as the program, one per type.
  if (adaptive && site == nullptr) site = &work.target_type();
  const double cpu_start = adaptive ? thread_cpu_ns() : 0;
  if (workers_.empty() || n == 1 || (adaptive && !worth_sharing(site, n))) {
    for (std::size_t i = 0; i < n; ++i)
      work(i);
    if (adaptive) {
      ++jobs_kept_;
      learn(site, (thread_cpu_ns() - cpu_start) / static_cast<double>(n));
    }
    return;
  }
  {
    std::lock_guard lock(mutex_);
    work_ = &work;
    size_ = n;
    // Upstream's chunk size: sqrt(n), but no more than an even share per thread.
    const auto root = static_cast<std::size_t>(std::sqrt(static_cast<double>(n)));
    chunk_ =
        std::max<std::size_t>(1, std::min(root, n / static_cast<std::size_t>(parallelism()) + 1));
    next_ = 0;
    resting_ = false;
    ++job_;
  }
  wake_.notify_all();
  const std::size_t done_here = run_chunks();  // returns once every index is handed out
  // The caller's own items measure the cost (the workers' would need their clocks read too).
  if (adaptive && done_here > 0) {
    learn(site, (thread_cpu_ns() - cpu_start) / static_cast<double>(done_here));
  }
  spin_until([this] { return busy_.load() == 0; });
  std::unique_lock lock(mutex_);
  done_.wait(lock, [this] { return next_ >= size_ && busy_ == 0; });
  work_ = nullptr;
}

std::size_t Parallelizer::run_chunks() {
  std::size_t done = 0;
  for (;;) {
    std::size_t begin = 0;
    std::size_t end = 0;
    const std::function<void(std::size_t)>* work = nullptr;
    {
      std::lock_guard lock(mutex_);
      if (work_ == nullptr || next_ >= size_) return done;
      begin = next_;
      end = std::min(size_, begin + chunk_);
      next_ = end;
      work = work_;
    }
    for (std::size_t i = begin; i < end; ++i)
      (*work)(i);
    done += end - begin;
  }
}

void Parallelizer::worker_loop() {
  std::size_t seen_job = 0;
  for (;;) {
    spin_until([&] { return stopping_.load() || job_.load() != seen_job || resting_.load(); });
    {
      std::unique_lock lock(mutex_);
      if (!stopping_ && job_ != seen_job && work_ == nullptr) {
        seen_job = job_;  // that job finished without this thread: wait for the next one
        continue;
      }
      wake_.wait(lock, [&] { return stopping_ || (job_ != seen_job && work_ != nullptr); });
      if (stopping_) return;
      seen_job = job_;
      ++busy_;
    }
    run_chunks();
    {
      std::lock_guard lock(mutex_);
      --busy_;
    }
    done_.notify_all();
  }
}

}  // namespace schedhost::framework
