// The replay: every pending pod of a cluster file through the shared scheduling cycle
// (scheduling_core.hpp), in queue order, each decision updating the snapshot before the next
// pod. Time is virtual: nothing happens between two pods, and once the queue is empty the waits
// at Permit expire, earliest deadline first. Bindings are written into the snapshot, and a
// preemption's victims leave it at once, before the preemptor is retried. Nominated pods (a
// preemptor whose retry failed, a pod that arrives with status.nominatedNodeName) count on their
// node for the pods after them, as upstream's nominator makes them. The Events plugins record
// (ABI 1.9 record_event) are logged, and listed on the results of the pending pods they are about;
// their writes to the resources they declared apply to the replay's objects (replay_api.hpp).
#include "scheduler/scheduler.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "scheduler/explanation_digest.hpp"
#include "scheduler/replay_api.hpp"
#include "scheduler/scheduling_core.hpp"

namespace schedhost::scheduler {
namespace {

using cluster::Pod;
using framework::Framework;
using framework::Status;

// The Events plugins record during the replay, by the uid of the pod they are about; each is
// logged at info as it comes.
class RunEvents : public framework::PluginEvents {
 public:
  void record(const Pod& pod, std::string_view plugin, std::string_view type,
              std::string_view reason, std::string_view message,
              const framework::EventSite& site) override {
    spdlog::info("plugin \"{}\": event {} {} about {}: {}", plugin, type, reason, pod.key(),
                 message);
    Recorded r{{std::string(plugin), std::string(type), std::string(reason), std::string(message)},
               std::string(site.hook),
               site.node != nullptr ? std::optional<std::string>(*site.node) : std::nullopt};
    const std::lock_guard lock(mutex_);
    by_pod_[pod.uid()].push_back(std::move(r));
  }

  // The events about the pod with this uid, in the order recorded, and forgets them. A hook
  // given a node (Filter, Score, AddPod, RemovePod) runs on many nodes at once, in no set order:
  // each run of its events is put in node-name order, so that a run's output does not depend on
  // the threads.
  std::vector<PluginEvent> take(const std::string& uid) {
    const std::lock_guard lock(mutex_);
    const auto it = by_pod_.find(uid);
    if (it == by_pod_.end()) return {};
    std::vector<Recorded>& recorded = it->second;
    for (std::size_t begin = 0; begin < recorded.size();) {
      std::size_t end = begin + 1;
      if (recorded[begin].node) {
        while (end < recorded.size() && recorded[end].node &&
               recorded[end].hook == recorded[begin].hook) {
          ++end;
        }
        std::stable_sort(recorded.begin() + static_cast<std::ptrdiff_t>(begin),
                         recorded.begin() + static_cast<std::ptrdiff_t>(end),
                         [](const Recorded& a, const Recorded& b) { return *a.node < *b.node; });
      }
      begin = end;
    }
    std::vector<PluginEvent> out;
    out.reserve(recorded.size());
    for (Recorded& r : recorded)
      out.push_back(std::move(r.event));
    by_pod_.erase(it);
    return out;
  }

 private:
  struct Recorded {
    PluginEvent event;
    std::string hook;
    std::optional<std::string> node;  // the node the hook was given
  };
  std::mutex mutex_;
  std::map<std::string, std::vector<Recorded>> by_pod_;
};

class Replay : public CycleSink {
 public:
  Replay(const config::SchedulerConfiguration& configuration,
         const loader::PluginRegistry& registry, const cluster::Cluster& cluster,
         const RunOptions& options)
      : options_(options),
        snapshot_(std::make_shared<cluster::Snapshot>(cluster.snapshot())),
        api_(*snapshot_),
        core_(configuration, registry, *snapshot_, *this,
              {options.explain || options.digest.has_value(), options.seed,
               options.feature_gates.opportunistic_batching}) {
    if (options.digest) more_budget_ = options.digest->more_budget;
    for (const auto& framework : core_.frameworks()) {
      framework->set_plugin_events(&events_);
      framework->set_api_access(&api_);  // the declared resources' writes (ABI 1.9)
    }
  }

  RunResult run(const cluster::Cluster& cluster) {
    const std::size_t pending = cluster.pending_pods.size();
    entry_of_.reserve(pending);
    placed_.reserve(pending);
    result_.pods.reserve(pending);
    for (const PodPtr& pod : queue(cluster)) {
      core_.schedule_one(pod);
      core_.finish_resolved_waits();
    }
    // Nothing else will happen: waits expire, earliest deadline first (virtual time).
    while (core_.expire_first_wait()) {
    }
    // Events about a pending pod go on its entry; those about other pods were only logged.
    for (const auto& [uid, entry] : entry_of_)
      result_.pods[entry].events = events_.take(uid);
    result_.written = api_.written();
    result_.final_snapshot = snapshot_;
    return std::move(result_);
  }

  void decided(const PodPtr& pod, PodResult result, const FailureDetail& detail) override {
    if (options_.digest && result.explain) {  // decided in page order: the budget goes in order
      Explanation condensed;
      condensed.digest = digest_explanation(*result.explain, options_.digest->shown, more_budget_);
      condensed.reused = result.explain->reused;
      result.explain = std::move(condensed);
    }
    entry_of_.emplace(pod->uid(), result_.pods.size());
    if (result.result == kScheduled) {
      placed_.emplace(pod->uid(), result_.pods.size());
      result_.pods.push_back(std::move(result));
      snapshot_changed();
      return;
    }
    if (detail.after_reserve) {
      snapshot_changed();
      // A victim rejected at Permit by a preemption is reported as preempted.
      if (auto it = preempted_.find(pod->uid()); it != preempted_.end()) {
        result.result = kPreempted;
        result.message = std::move(it->second);
        preempted_.erase(it);
      } else {
        result.node.clear();
      }
    }
    result_.pods.push_back(std::move(result));
  }

  // Evict the victims, then retry the pod, which now carries the nomination (upstream requeues
  // it; nothing else can run in between here).
  void preempt(const PodPtr& pod, PodResult, const Preemption& preemption) override {
    for (const std::string& uid : preemption.victim_uids)
      evict(uid, *pod, preemption.node);
    core_.finish_resolved_waits();  // victims that waited at Permit are unreserved now
    core_.retry_after_preemption(pod, preemption.node, preemption.victim_keys);
  }

  void start_binding(AssumedPod assumed) override { core_.bind_now(std::move(assumed)); }

 private:
  // Pending pods in QueueSort order. Pods no profile serves, and pods a PreEnqueue plugin
  // gates, are decided here and never enter the queue.
  std::vector<PodPtr> queue(const cluster::Cluster& cluster) {
    struct Entry {
      PodPtr pod;
      const Framework* framework;
    };
    std::vector<Entry> active;
    for (const PodPtr& pod : cluster.pending_pods) {
      const Framework* f = core_.framework_for(*pod);
      if (f == nullptr) {
        entry_of_.emplace(pod->uid(), result_.pods.size());
        result_.pods.push_back({pod->key(),
                                "",
                                kSkipped,
                                "",
                                "no profile serves schedulerName \"" + pod->scheduler_name() + "\"",
                                std::nullopt,
                                {}});
        continue;
      }
      if (Status gate = f->run_pre_enqueue(*pod); !gate.ok()) {
        entry_of_.emplace(pod->uid(), result_.pods.size());
        result_.pods.push_back(
            {pod->key(), f->name(), kGated, "", gate.message(), std::nullopt, {}});
        continue;
      }
      active.push_back({pod, f});
      // A pod that arrives nominated (status.nominatedNodeName) counts on that node for the pods
      // of equal or lower priority until it is placed, as in upstream's queue.
      if (!pod->nominated_node_name().empty()) {
        core_.nominated_pods().add(pod, pod->nominated_node_name());
      }
    }
    // One queue for all profiles (upstream requires them to share the QueueSort plugin).
    const Framework* sorter = active.empty() ? nullptr : active.front().framework;
    std::stable_sort(active.begin(), active.end(), [sorter](const Entry& a, const Entry& b) {
      const schedhost_queued_pod_t qa{reinterpret_cast<const schedhost_pod_t*>(a.pod.get()),
                                      a.pod->creation_time_ms(), 0};
      const schedhost_queued_pod_t qb{reinterpret_cast<const schedhost_pod_t*>(b.pod.get()),
                                      b.pod->creation_time_ms(), 0};
      return sorter->less(qa, qb);
    });
    std::vector<PodPtr> out;
    out.reserve(active.size());
    for (Entry& e : active)
      out.push_back(std::move(e.pod));
    return out;
  }

  // Removes a victim from the snapshot and reports it Preempted (upstream deletes it; a victim
  // waiting at Permit is rejected there instead, and unreserved).
  void evict(const std::string& uid, const Pod& preemptor, const std::string& node) {
    std::string message = "Preempted by pod " + preemptor.uid() + " on node " + node;
    if (core_.reject_waiting(uid, "preempted")) {
      preempted_.emplace(uid, std::move(message));  // decided() reports it
      return;
    }
    const Pod* victim = snapshot_->find(node)->find_pod(uid);
    PodResult entry{victim->key(),
                    victim->scheduler_name(),
                    kPreempted,
                    node,
                    std::move(message),
                    std::nullopt,
                    {}};
    snapshot_->remove(uid);
    snapshot_changed();
    if (auto placed = placed_.find(uid); placed != placed_.end()) {
      // Placed earlier in this run: its one entry changes.
      PodResult& earlier = result_.pods[placed->second];
      earlier.result = kPreempted;
      earlier.message = std::move(entry.message);
      placed_.erase(placed);
      return;
    }
    result_.pods.push_back(std::move(entry));
  }

  void snapshot_changed() const {
    if (options_.on_snapshot_change) options_.on_snapshot_change(*snapshot_);
  }

  const RunOptions& options_;
  RunEvents events_;  // before core_: its frameworks record into it until they are gone
  std::shared_ptr<cluster::Snapshot> snapshot_;  // shared with the result (final_snapshot)
  ReplayApi api_;  // plugins' api_request: answers for the declared resources, from snapshot_
  SchedulingCore core_;
  std::unordered_map<std::string, std::size_t> placed_;    // pod uid -> its Scheduled entry
  std::map<std::string, std::string> preempted_;           // waiting victim uid -> its message
  std::unordered_map<std::string, std::size_t> entry_of_;  // pending pod uid -> its entry
  RunResult result_;
  std::size_t more_budget_ = 0;  // with RunOptions::digest: "show more" rows still to keep
};

}  // namespace

RunResult run_scheduler(const config::SchedulerConfiguration& configuration,
                        const loader::PluginRegistry& registry, const cluster::Cluster& cluster,
                        const RunOptions& options) {
  Replay replay(configuration, registry, cluster, options);
  return replay.run(cluster);
}

}  // namespace schedhost::scheduler
