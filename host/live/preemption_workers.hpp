// v1.35's asynchronous preemption (SchedulerAsyncPreemption, beta, on): the API calls that evict
// a preemption's victims (DisruptionTarget patch, DELETE, Preempted event) and clear the
// nominations of lower-priority pods on its node run here, off the scheduling thread, so a slow
// API server delays the victims' eviction, never the next pods' cycles. While a preemptor's calls
// run it is "running preemption": serve's PreEnqueue holds it back (upstream's DefaultPreemption
// PreEnqueue) until the last victim's eviction has started and that victim is deleted or being
// deleted. A job whose calls failed hands its preemptor back, to be activated.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace schedhost::live {

struct PreemptionJob {
  std::string preemptor_uid;
  nlohmann::json preemptor;                    // its object, for the victims' events
  std::string scheduler_name;                  // its spec.schedulerName
  std::string node;                            // where the room is made
  std::string plugin;                          // the PostFilter plugin that chose the victims
  std::vector<nlohmann::json> victims;         // to evict, in order (the last one last)
  std::vector<nlohmann::json> nominated_pods;  // lower-priority pods nominated to the node
};

class PreemptionWorkers {
 public:
  // evict: the API calls that evict one victim; clear: those that clear one pod's nomination.
  // Both run on a worker and throw on a failure (a victim already gone is not one).
  using Evict = std::function<void(const PreemptionJob&, const nlohmann::json& victim)>;
  using Clear = std::function<void(const PreemptionJob&, const nlohmann::json& pod)>;
  PreemptionWorkers(int threads, Evict evict, Clear clear);
  ~PreemptionWorkers();  // finishes every job started, then joins

  // Scheduling thread. The preemptor is running preemption from now on; a job without victims
  // is not started (upstream: nothing to wait for).
  void start(PreemptionJob job);
  // Upstream's IsPodRunningPreemption: the plugin of the preemptor's job while its calls are to
  // come, or while its last victim's eviction runs and going(that victim's uid) says it is
  // neither deleted nor being deleted; nullopt otherwise. Any thread.
  std::optional<std::string> running(
      const std::string& preemptor_uid,
      const std::function<bool(const std::string& victim_uid)>& going) const;
  // The preemptors whose calls failed since the last call (upstream activates them, so that a
  // failed preemption cannot leave its pod stuck).
  std::vector<std::string> take_failed();
  // The job's calls on the calling thread, in the workers' order, each failure logged; false when
  // one failed. For SchedulerAsyncPreemption=false, where the cycle makes them itself.
  bool run_here(const PreemptionJob& job);
  // Jobs started and not finished.
  std::size_t in_flight() const;
  // Waits until no job is in flight or timeout passes; true when none is.
  bool wait_idle(std::chrono::milliseconds timeout) const;

 private:
  struct Running {
    std::string plugin;
    std::optional<std::string> last_victim_uid;  // set when its eviction starts
  };
  void run();

  Evict evict_;
  Clear clear_;
  mutable std::mutex mutex_;
  std::condition_variable work_;
  mutable std::condition_variable idle_;
  std::deque<PreemptionJob> jobs_;
  std::map<std::string, Running> running_;  // preemptor uid -> its job's state
  std::vector<std::string> failed_;
  std::size_t in_flight_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace schedhost::live
