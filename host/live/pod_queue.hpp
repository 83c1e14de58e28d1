// The live scheduling queue, in its first, simple form: pending pods of the profiles served,
// taken in QueueSort order; a pod that fits nowhere waits until the cluster changes (any node or
// assigned-pod change moves every such pod back), and one that met an error comes back after a
// backoff (podInitialBackoffSeconds doubling up to podMaxBackoffSeconds). Upstream's full queue
// (backoffQ, unschedulable timeouts, queueing hints per plugin) is issue 16.
//
// Pods that tie in QueueSort are taken in the order they arrived: the initial list's order
// (namespace/name, as the API server lists them), then the order of their creation events.
// Scheduling thread only, except the informer handler, which queues events under a lock.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "cluster/pod.hpp"
#include "framework/framework.hpp"
#include "kube/informer.hpp"

namespace schedhost::live {

using PodPtr = std::shared_ptr<const cluster::Pod>;

class PodQueue {
 public:
  using Clock = std::chrono::steady_clock;
  // sorter: the QueueSort of the profiles (they share one). admit: the pod's PreEnqueue
  // plugins let it in (a gated pod waits for an update of itself). Backoffs in seconds.
  PodQueue(const framework::Framework& sorter, std::function<bool(const cluster::Pod&)> admit,
           std::int64_t initial_backoff_s, std::int64_t max_backoff_s);

  // For the informer of unassigned pods whose schedulerName a profile serves: queues events.
  kube::InformerHandler handler();
  // Applies the queued events (adds, updates, deletes). Scheduling thread.
  void apply_pending();

  // The next pod to schedule, nullptr when none is ready. Its entry stays known (in flight)
  // until it is requeued or done.
  PodPtr pop(Clock::time_point now = Clock::now());
  // After a failed attempt (pod: the object popped, or the copy the cycle assumed): waits for a
  // cluster change (unschedulable) or a backoff (error); a pod updated meanwhile is tried again.
  void requeue_unschedulable(const PodPtr& pod);
  void requeue_after_error(const PodPtr& pod, Clock::time_point now = Clock::now());
  // The attempt ended for good (bound, or deleted meanwhile).
  void done(const std::string& uid);
  // Something changed that may make pods fit: every unschedulable pod but except_uid (the pod
  // whose failure freed room, as upstream excludes it) is tried again.
  void move_all_to_active(const std::string& except_uid = {});

  // The uids of the pods that left since the last call: deleted, or bound (by anyone). A pod
  // waiting at Permit is rejected then.
  std::vector<std::string> take_deleted();
  // The latest object the informer holds for uid (nullptr: deleted, or bound meanwhile).
  PodPtr latest(const std::string& uid) const;
  std::size_t active_size() const { return active_.size(); }
  std::size_t unschedulable_size() const { return unschedulable_.size(); }
  std::size_t gated_size() const { return gated_.size(); }
  // When the next backoff ends (for the loop's wait), if any pod is backing off.
  std::optional<Clock::time_point> next_backoff_end() const;

 private:
  struct Entry {
    PodPtr pod;
    std::uint64_t seq;  // arrival order: the tie-break
  };
  struct Less {
    const framework::Framework* sorter;
    bool operator()(const Entry& a, const Entry& b) const;
  };
  struct Event {
    bool deleted;
    kube::Object object;
  };
  void add_active(const PodPtr& pod);
  void remove_everywhere(const std::string& uid);

  const framework::Framework& sorter_;
  std::function<bool(const cluster::Pod&)> admit_;
  std::int64_t initial_backoff_s_;
  std::int64_t max_backoff_s_;
  std::mutex mutex_;  // guards events_
  std::vector<Event> events_;

  std::set<Entry, Less> active_;
  std::map<std::string, std::uint64_t> seq_;     // uid -> arrival order
  std::map<std::string, PodPtr> known_;          // uid -> latest object (all states)
  std::map<std::string, PodPtr> unschedulable_;  // uid -> pod
  std::map<std::string, std::pair<PodPtr, Clock::time_point>> backoff_;  // uid -> pod, end
  std::map<std::string, int> attempts_;  // uid -> failed attempts (for backoff)
  std::map<std::string, PodPtr> in_flight_;
  std::vector<std::string> deleted_;  // uid -> the object pop() gave out
  std::set<std::string> gated_;
  std::uint64_t next_seq_ = 0;
};

}  // namespace schedhost::live
