#include "live/binding_workers.hpp"

#include "common/thread_name.hpp"

namespace schedhost::live {

BindingWorkers::BindingWorkers(int threads,
                               std::function<void(scheduler::AssumedPod&, Finish)> bind)
    : bind_(std::move(bind)) {
  for (int i = 0; i < threads; ++i)
    threads_.emplace_back([this] {
      name_this_thread("binding");
      run();
    });
}

BindingWorkers::~BindingWorkers() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_.notify_all();
  for (std::thread& t : threads_)
    t.join();
}

void BindingWorkers::submit(scheduler::AssumedPod assumed) {
  {
    std::lock_guard lock(mutex_);
    jobs_.push_back(std::move(assumed));
    ++in_flight_;
  }
  work_.notify_one();
}

std::vector<BindingOutcome> BindingWorkers::take_finished() {
  std::lock_guard lock(mutex_);
  std::vector<BindingOutcome> out;
  out.swap(finished_);
  in_flight_ -= out.size();
  return out;
}

std::size_t BindingWorkers::in_flight() const {
  std::lock_guard lock(mutex_);
  return in_flight_;
}

void BindingWorkers::wait_for_outcome(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  finished_cv_.wait_for(lock, timeout, [this] { return !finished_.empty(); });
}

void BindingWorkers::run() {
  for (;;) {
    std::shared_ptr<scheduler::AssumedPod> job;
    {
      std::unique_lock lock(mutex_);
      work_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;  // stopping, and nothing left to bind
      job = std::make_shared<scheduler::AssumedPod>(std::move(jobs_.front()));
      jobs_.pop_front();
    }
    bind_(*job,
          [this, job](framework::Status status) { finished(std::move(*job), std::move(status)); });
  }
}

void BindingWorkers::finished(scheduler::AssumedPod assumed, framework::Status status) {
  {
    std::lock_guard lock(mutex_);
    finished_.push_back({std::move(assumed), std::move(status)});
  }
  finished_cv_.notify_all();
}

}  // namespace schedhost::live
