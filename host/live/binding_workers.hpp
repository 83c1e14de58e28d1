// The binding cycles of `serve`, off the scheduling thread (upstream starts a goroutine per
// pod): each worker runs a pod's PreBind and Bind plugins, then hands the binding's write
// (POST pods/<name>/binding) to a RequestLoop and moves on; the outcome goes back to the
// scheduling loop, which alone touches the snapshot. A slow API server delays bindings, never
// the next pods' cycles.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "framework/status.hpp"
#include "scheduler/scheduling_core.hpp"

namespace schedhost::live {

struct BindingOutcome {
  scheduler::AssumedPod assumed;
  framework::Status status;
};

class BindingWorkers {
 public:
  // How a binding cycle ends: called once with its outcome, on the worker or later on another
  // thread (when the API answers the write). The pod stays alive until then.
  using Finish = std::function<void(framework::Status)>;
  // bind: the binding cycle of one pod (plugins, then the API write), started on a worker; it
  // calls finish exactly once.
  BindingWorkers(int threads, std::function<void(scheduler::AssumedPod&, Finish)> bind);
  ~BindingWorkers();  // stops (after the bindings in progress)

  void submit(scheduler::AssumedPod assumed);
  // The outcomes since the last call. Scheduling thread.
  std::vector<BindingOutcome> take_finished();
  // Submitted and not yet taken back.
  std::size_t in_flight() const;
  // Waits until an outcome is ready or timeout passes.
  void wait_for_outcome(std::chrono::milliseconds timeout);

 private:
  void run();
  void finished(scheduler::AssumedPod assumed, framework::Status status);
  std::function<void(scheduler::AssumedPod&, Finish)> bind_;
  mutable std::mutex mutex_;
  std::condition_variable work_;
  std::condition_variable finished_cv_;
  std::deque<scheduler::AssumedPod> jobs_;
  std::vector<BindingOutcome> finished_;
  std::size_t in_flight_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace schedhost::live
