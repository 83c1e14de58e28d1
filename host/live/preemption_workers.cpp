#include "live/preemption_workers.hpp"

#include <spdlog/spdlog.h>

#include <exception>
#include <utility>

#include "common/thread_name.hpp"

namespace schedhost::live {

PreemptionWorkers::PreemptionWorkers(int threads, Evict evict, Clear clear)
    : evict_(std::move(evict)), clear_(std::move(clear)) {
  for (int i = 0; i < threads; ++i)
    threads_.emplace_back([this] {
      name_this_thread("preemption");
      run();
    });
}

PreemptionWorkers::~PreemptionWorkers() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_.notify_all();
  for (std::thread& t : threads_)
    t.join();
}

void PreemptionWorkers::start(PreemptionJob job) {
  if (job.victims.empty()) return;
  {
    std::lock_guard lock(mutex_);
    running_[job.preemptor_uid] = {job.plugin, std::nullopt};
    jobs_.push_back(std::move(job));
    ++in_flight_;
  }
  work_.notify_one();
}

std::optional<std::string> PreemptionWorkers::running(
    const std::string& preemptor_uid,
    const std::function<bool(const std::string& victim_uid)>& going) const {
  std::optional<std::string> last_victim;
  std::string plugin;
  {
    std::lock_guard lock(mutex_);
    auto it = running_.find(preemptor_uid);
    if (it == running_.end()) return std::nullopt;
    plugin = it->second.plugin;
    last_victim = it->second.last_victim_uid;
  }
  // The calls before the last victim's are still to come: it waits. Once the last eviction has
  // started, a victim that is gone or terminating means the room is on its way.
  if (last_victim && going(*last_victim)) return std::nullopt;
  return plugin;
}

std::vector<std::string> PreemptionWorkers::take_failed() {
  std::lock_guard lock(mutex_);
  return std::exchange(failed_, {});
}

std::size_t PreemptionWorkers::in_flight() const {
  std::lock_guard lock(mutex_);
  return in_flight_;
}

bool PreemptionWorkers::wait_idle(std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return idle_.wait_for(lock, timeout, [this] { return in_flight_ == 0; });
}

void PreemptionWorkers::run() {
  for (;;) {
    PreemptionJob job;
    {
      std::unique_lock lock(mutex_);
      work_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;  // stopping, and every job started is done
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    const bool failed = !run_here(job);
    {
      // One step, so that a preemptor handed back is never still "running" when activated.
      std::lock_guard lock(mutex_);
      running_.erase(job.preemptor_uid);
      if (failed) failed_.push_back(job.preemptor_uid);
      --in_flight_;
    }
    idle_.notify_all();
  }
}

// Upstream's order: the lower-priority nominations first (a failure there is logged and counts
// as a failed preemption, but the victims still go), then every victim but the last, then the
// last one, noted first so that PreEnqueue can tell when its deletion has begun.
bool PreemptionWorkers::run_here(const PreemptionJob& job) {
  bool failed = false;
  const auto attempt = [&](const char* what, const nlohmann::json& pod, const auto& call) {
    try {
      call(job, pod);
    } catch (const std::exception& e) {
      failed = true;
      spdlog::warn("serve: preemption for pod uid {}: could not {} {}/{}: {}", job.preemptor_uid,
                   what, pod.value("/metadata/namespace"_json_pointer, std::string()),
                   pod.value("/metadata/name"_json_pointer, std::string()), e.what());
    }
  };
  for (const nlohmann::json& pod : job.nominated_pods)
    attempt("clear the nomination of", pod, clear_);
  for (std::size_t i = 0; i + 1 < job.victims.size(); ++i)
    attempt("preempt", job.victims[i], evict_);
  if (job.victims.empty()) return !failed;
  const nlohmann::json& last = job.victims.back();
  {
    std::lock_guard lock(mutex_);
    if (auto it = running_.find(job.preemptor_uid); it != running_.end()) {
      it->second.last_victim_uid = last.value("/metadata/uid"_json_pointer, std::string());
    }
  }
  attempt("preempt", last, evict_);
  return !failed;
}

}  // namespace schedhost::live
