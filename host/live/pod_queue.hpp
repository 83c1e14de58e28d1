// The live scheduling queue: upstream's queue (live/scheduling_queue.hpp: activeQ, backoffQ,
// unschedulablePods, the move-request rule, the periodic flushes) fed by the informer of the
// unassigned pods our profiles serve. This side keeps the latest object of each pod (a pod
// updated while it is tried is retried as it is now), tells the loop which pods left (deleted,
// or bound by someone else), and decides upstream's isPodUpdated (more than the status changed).
//
// QueueSort sees each pod's creation time as its queue time until its first failure, then the
// time it was requeued (upstream: the time of each add), so `run` and `serve` order the pods of a
// cluster file alike; pods that tie are taken in the order they arrived (the initial list's
// order, namespace/name, then the order of their creation events).
// Scheduling thread only, except the informer handler, which queues events under a lock.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cluster/pod.hpp"
#include "framework/framework.hpp"
#include "kube/informer.hpp"
#include "live/scheduling_queue.hpp"

namespace schedhost::live {

class PodQueue {
 public:
  using Clock = std::chrono::steady_clock;
  // sorter: the QueueSort of the profiles (they share one). pre_enqueue: the pod's PreEnqueue
  // plugins (the name of the one that holds it back, or nullopt). clock: steady time (a fake one
  // in tests).
  PodQueue(const framework::Framework& sorter, SchedulingQueue::PreEnqueue pre_enqueue,
           QueueOptions options, const QueueClock& clock);

  // For the informer of unassigned pods whose schedulerName a profile serves: queues events.
  kube::InformerHandler handler();
  // Applies the queued events (adds, updates, deletes). Scheduling thread.
  void apply_pending();

  // The periodic flushes, when due (backoffs every second, 5-minute leftovers every 30 s), then
  // the next pod to schedule; nullptr when none is ready. It is in flight until requeued or done.
  PodPtr pop();
  // After a failed attempt (pod: the object popped, or the copy the cycle assumed):
  // unschedulable (to wait for an event), or an Error (after a backoff). plugins: the ones that
  // rejected it, when known.
  void requeue_unschedulable(const PodPtr& pod, std::set<std::string> plugins = {});
  void requeue_after_error(const PodPtr& pod);
  // The attempt ended for good (bound, or deleted meanwhile).
  void done(const std::string& uid);
  // Attempts made so far for a pod in flight (this one included); 0 when it is not in flight.
  int attempts(const std::string& uid) const;
  // When a pod in flight first entered activeQ (upstream's InitialAttemptTimestamp: gated time
  // excluded), for the scheduling SLI; nullopt when it is not in flight.
  std::optional<QueueClock::time_point> initial_attempt(const std::string& uid) const;
  // A cluster event (upstream's label): the unschedulable pods it may help (all when worth is
  // empty) move to activeQ, or backoffQ while they still back off; not except_uid (a pod whose
  // failed binding freed the room).
  void move_all(const std::string& event, const SchedulingQueue::Worth& worth = {},
                const std::string& except_uid = {});
  // The same for a cluster event, also kept for the pods in flight.
  void move_all(const framework::ClusterEvent& event, const SchedulingQueue::Worth& worth,
                const std::string& except_uid = {}) {
    queue_.move_all(event, worth, except_uid);
  }
  // SchedulingQueue's: gated pods that an event may release; upstream's Activate.
  void wake_gate_on(const std::string& gate, const std::string& event) {
    queue_.wake_gate_on(gate, event);
  }
  void activate(const std::string& uid) { queue_.activate(uid); }
  // SchedulingQueue's judge of events (v1.35's queueing hints): serve sets it.
  void set_event_worth(SchedulingQueue::EventWorth worth) {
    queue_.set_event_worth(std::move(worth));
  }
  // Whether the cache holds the pod as assumed (bound by this scheduler, or being bound): an
  // update of such a pod leaves the queue alone, as upstream's updatePodInSchedulingQueue skips
  // assumed pods. Without it, a late update of the unassigned version (a PreBind plugin's own
  // write, seen after the binding ended) queued the bound pod again. serve sets it.
  void set_assumed(std::function<bool(const std::string& uid)> assumed) {
    assumed_ = std::move(assumed);
  }

  // The uids of the pods that left since the last call: deleted, or bound (by anyone). A pod
  // waiting at Permit is rejected then.
  std::vector<std::string> take_deleted();
  // Nominations the informer brought since the last call (upstream's nominator follows the
  // queue): a pod that arrived or was updated with status.nominatedNodeName (pod set), or one whose
  // nomination ended: deleted, being deleted, its nominatedNodeName cleared (pod null). An update
  // that leaves it empty on both sides changes nothing (the scheduler's own nomination may not
  // have come back yet). moved_from: set when an update changed or cleared a nominatedNodeName
  // the pod had (the pod as it was): upstream then retries lower-priority pods, as if the pod
  // had left that node.
  struct NominationChange {
    std::string uid;
    PodPtr pod;
    PodPtr moved_from;
  };
  std::vector<NominationChange> take_nomination_changes();
  // The latest object the informer holds for uid (nullptr: deleted, or bound meanwhile).
  PodPtr latest(const std::string& uid) const;
  // Pods per queue (active, backoff, unschedulable, gated) and incoming counts, for logs and
  // metrics.
  std::map<std::string, std::size_t> pending() const { return queue_.pending(); }
  const SchedulingQueue& queue() const { return queue_; }

 private:
  // A pod event, made ready on the informer's thread (the typed Pod built, the update compared),
  // so no JSON tree waits here for the scheduling thread.
  struct Event {
    bool deleted = false;
    std::string uid;      // metadata.uid
    PodPtr pod;           // not deleted (null: refused, see refused)
    std::string refused;  // why the model refused the pod (logged, the event skipped)
    std::string key;      // namespace/name, for that line
    // An update's upstream isPodUpdated against the version before it (unset for an add).
    std::optional<bool> updated;
  };
  void push(bool deleted, const kube::Object& object, const kube::Object* previous);
  bool less(const QueuedPodInfo& a, const QueuedPodInfo& b) const;

  const framework::Framework& sorter_;
  const QueueClock& clock_;
  const std::chrono::system_clock::duration unix_offset_;  // steady -> Unix time
  SchedulingQueue queue_;
  std::mutex mutex_;  // guards events_
  std::vector<Event> events_;

  std::map<std::string, PodPtr> known_;              // uid -> latest object (all states)
  std::function<bool(const std::string&)> assumed_;  // set_assumed
  std::map<std::string, QueuedPodInfo> in_flight_;   // uid -> as popped
  std::vector<std::string> deleted_;
  std::vector<NominationChange> nominations_;
  QueueClock::time_point last_backoff_flush_{};
  QueueClock::time_point last_leftover_flush_{};
};

}  // namespace schedhost::live
