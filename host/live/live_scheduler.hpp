// `schedhost serve`'s scheduler: informers feed the live cluster cache and the queue; one
// scheduling loop pops pods and runs the cycle shared with the replay (scheduler/
// scheduling_core.hpp); bindings are written by binding workers; failures, nominations,
// preemptions and events are written to the API server as upstream writes them.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "config/feature_gates.hpp"
#include "config/scheduler_configuration.hpp"
#include "kube/api_client.hpp"
#include "kube/event_recorder.hpp"
#include "kube/informer.hpp"
#include "kube/request_loop.hpp"
#include "live/binding_workers.hpp"
#include "live/live_cluster.hpp"
#include "live/plugin_api.hpp"
#include "live/pod_queue.hpp"
#include "live/preemption_workers.hpp"
#include "loader/plugin_registry.hpp"
#include "scheduler/scheduling_core.hpp"
#include "serving/scheduler_metrics.hpp"

namespace schedhost::live {

struct ServeOptions {
  std::uint64_t seed = 0;  // tie-break among equally scored nodes, as `run --seed`
  int binding_threads = 8;
  std::chrono::seconds sync_timeout{60};    // informers must list everything by then
  std::chrono::seconds shutdown_grace{10};  // bindings in progress may finish meanwhile
  // Leader election: called once the informers have synced (a follower keeps them warm), returns
  // when this replica leads (true) or stop was set first (false). Empty: schedule at once.
  std::function<bool(const std::atomic<bool>& stop)> wait_for_leadership;
  // Where attempts, preemptions and the queue's counts go (the secure port's /metrics); may be
  // null.
  serving::SchedulerMetrics* metrics = nullptr;
  // The share of cycles whose plugin hooks are timed for /metrics (upstream: 10).
  unsigned plugin_metrics_sample_percent = 10;
  config::FeatureGates feature_gates = {};  // --feature-gates
};

// What the scheduler did, for logs and tests.
struct ServeStats {
  std::uint64_t attempts = 0;
  std::uint64_t bound = 0;
  std::uint64_t unschedulable = 0;
  std::uint64_t errors = 0;
  std::uint64_t preemptions = 0;
};

class LiveScheduler : public scheduler::CycleSink {
 public:
  // configuration resolved against registry (as `run` needs). Throws InputError when a plugin
  // refuses its args.
  LiveScheduler(const config::SchedulerConfiguration& configuration,
                const loader::PluginRegistry& registry, kube::ApiClient& client,
                ServeOptions options);
  ~LiveScheduler() override;

  // Starts the informers and waits until each has listed its objects (throws
  // std::runtime_error naming the ones that did not in time), then schedules until stop is
  // set; then stops: bindings in progress may finish within shutdown_grace, events are
  // flushed. Returns the bindings (and preemptions) still in flight after the grace: given up
  // (never written), and their threads still run plugin code, so the caller must end the process
  // without destroying this object (std::_Exit) when it is not 0.
  std::size_t run(const std::atomic<bool>& stop);
  ServeStats stats() const;
  // What the Event recorder did: posted, patched, counted in memory, dropped (a full queue).
  kube::EventRecorderStats event_stats() const { return events_.stats(); }
  // For the health checks (any thread): every informer has listed its objects; SIGTERM came.
  bool synced() const { return synced_.load(); }
  bool shutting_down() const { return shutting_down_.load(); }

  void decided(const scheduler::PodPtr& pod, scheduler::PodResult result,
               const scheduler::FailureDetail& detail) override;
  void preempt(const scheduler::PodPtr& pod, scheduler::PodResult result,
               const scheduler::Preemption& preemption) override;
  void start_binding(scheduler::AssumedPod assumed) override;
  void waiting_at_permit(const scheduler::AssumedPod& assumed) override;

 private:
  // Writes status.nominatedNodeName = the node assumed.pod is reserved on (v1.35's
  // NominatedNodeNameForExpectation); a failure is logged, naming what it came `before`.
  void nominate(const scheduler::AssumedPod& assumed, const char* before);
  bool responsible_for(const nlohmann::json& pod) const;
  void start_informers();
  void step();  // one turn of the loop
  void absorb_changes();
  void finish_bindings();
  void bind(scheduler::AssumedPod& assumed, const BindingWorkers::Finish& finish);
  // A preemption's API calls (preemption_workers.hpp); any thread, throw on a failure.
  void evict(const PreemptionJob& job, const nlohmann::json& victim);
  void clear_nomination(const nlohmann::json& pod);
  // serve's PreEnqueue: the profile's plugins, then upstream's DefaultPreemption gate (a pod
  // whose asynchronous preemption is still under way waits); the gate's name, or nullopt.
  std::optional<std::string> pre_enqueue(const cluster::Pod& pod) const;
  // Whether an unschedulable pod is worth moving on event (captures event by reference).
  SchedulingQueue::Worth worth_requeuing(const ClusterEvent& event) const;
  // Whether a plugin of any profile registered event: if none did, moving pods is not tried.
  bool interested_in(const ClusterEvent& event) const;
  // A pending pod's nominatedNodeName changed or was cleared (was: the pod before).
  void nomination_moved(const PodPtr& was);
  // The pod's attempt ended (result: scheduler::kScheduled, ...): /metrics, and which attempt it
  // was (1 when unknown).
  int end_attempt(const std::string& uid, const std::string& profile, const std::string& result);
  void write_failure(const scheduler::PodPtr& pod, const std::string& reason,
                     const std::string& message, const std::optional<std::string>& nominated);
  std::size_t shutdown();

  // A profile's sink for its plugins' Events (ABI 1.9 record_event): written through events_.
  class PluginEventSink;

  const config::SchedulerConfiguration& configuration_;
  kube::ApiClient& client_;
  ServeOptions options_;
  LiveCluster cluster_;
  scheduler::SchedulingCore core_;
  SteadyQueueClock clock_;
  std::unique_ptr<PodQueue> queue_;
  kube::ApiClient events_client_;  // its own token bucket, as upstream's event client
  kube::EventRecorder events_;
  // One per profile, in core_.frameworks()' order; after events_, which they write to.
  std::vector<std::unique_ptr<PluginEventSink>> plugin_events_;
  PluginApi plugin_api_;  // plugins' api_request from their blocking hooks
  std::unique_ptr<BindingWorkers> binder_;
  // The bindings' API writes; after binder_, so that it stops (answering what is left "stopped")
  // while binder_ still takes the outcomes.
  std::unique_ptr<kube::RequestLoop> binding_writes_;
  std::unique_ptr<PreemptionWorkers> preemptions_;
  std::atomic<bool> writes_given_up_{false};  // after the shutdown grace: no binding is written
  std::vector<std::unique_ptr<kube::Informer>> informers_;
  std::atomic<bool> synced_{false};
  std::atomic<bool> shutting_down_{false};
  std::chrono::steady_clock::time_point last_metrics_{};
  // The pods in an attempt, noted when popped (the queue forgets a pod once the informer sees it
  // bound, which may be before its binding is reported here).
  struct Attempt {
    std::chrono::steady_clock::time_point started;  // its cycle began
    int number = 1;                                 // 1 for the first attempt
    std::optional<QueueClock::time_point> queued;   // it first entered activeQ
  };
  std::map<std::string, Attempt> attempts_;
  mutable std::mutex stats_mutex_;
  ServeStats stats_;
};

}  // namespace schedhost::live
