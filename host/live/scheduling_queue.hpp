// Upstream's scheduling queue (kube-scheduler v1.28, with QueueingHints off, its later-1.28
// default): activeQ in QueueSort order; backoffQ, by the end of each pod's backoff
// (podInitialBackoffSeconds x 2^(attempts-1), at most podMaxBackoffSeconds); unschedulablePods,
// gated pods included. A pod that fails goes to unschedulablePods, or to backoffQ when a move
// request arrived while it was being tried (the move-request cycle rule) or when it failed with an
// Error; cluster events move unschedulable pods out (to backoffQ while they still back off); the
// periodic flushes end backoffs (every second) and return pods left unschedulable for 5 minutes.
//
// Pure bookkeeping on one thread: no informer, no lock, time from a QueueClock, so it is tested
// deterministically on a fake clock. live/pod_queue.hpp feeds it from the informer.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cluster/pod.hpp"

namespace schedhost::live {

using PodPtr = std::shared_ptr<const cluster::Pod>;

class QueueClock {
 public:
  using time_point = std::chrono::steady_clock::time_point;
  using duration = std::chrono::steady_clock::duration;
  virtual ~QueueClock() = default;
  virtual time_point now() const = 0;
};

// The process's monotonic clock.
class SteadyQueueClock final : public QueueClock {
 public:
  time_point now() const override { return std::chrono::steady_clock::now(); }
};

// A pod in the queue, as upstream's QueuedPodInfo.
struct QueuedPodInfo {
  PodPtr pod;
  QueueClock::time_point timestamp{};                     // when it was last added or re-added
  int attempts = 0;                                       // scheduling attempts (one per pop)
  std::optional<QueueClock::time_point> initial_attempt;  // first entry into activeQ
  std::set<std::string> unschedulable_plugins;            // the plugins that rejected it last
  bool gated = false;                                     // held by a PreEnqueue plugin
  std::uint64_t seq = 0;  // arrival order: the tie-break of QueueSort
};

struct QueueOptions {
  std::chrono::seconds initial_backoff{1};
  std::chrono::seconds max_backoff{10};
  std::chrono::seconds max_in_unschedulable{300};  // upstream's 5 minutes
};

// The queues' names, as upstream's scheduler_pending_pods{queue} has them.
inline constexpr const char* kActiveQueue = "active";
inline constexpr const char* kBackoffQueue = "backoff";
inline constexpr const char* kUnschedulableQueue = "unschedulable";
inline constexpr const char* kGatedQueue = "gated";

class SchedulingQueue {
 public:
  // less: the profiles' QueueSort. pre_enqueue: the pod's PreEnqueue plugins; the name of the one
  // that holds it back, or nullopt to let it in.
  using Less = std::function<bool(const QueuedPodInfo&, const QueuedPodInfo&)>;
  using PreEnqueue = std::function<std::optional<std::string>(const cluster::Pod&)>;

  SchedulingQueue(Less less, PreEnqueue pre_enqueue, QueueOptions options, const QueueClock& clock);

  // -- the informer of unassigned pods --
  void add(const PodPtr& pod);
  // spec_changed: upstream's isPodUpdated (more than the status changed). A pod in flight is not
  // in the queue: the update is kept for its requeue.
  void update(const PodPtr& pod, bool spec_changed);
  void remove(const std::string& uid);

  // -- the scheduling loop --
  // The head of activeQ (its attempts counted, its unschedulable plugins cleared), now in flight;
  // nullopt when activeQ is empty.
  std::optional<QueuedPodInfo> pop();
  // After a failed attempt: to unschedulablePods, or backoffQ (an Error, or a move request during
  // the attempt). pod: the object to keep (the latest). plugins: the ones that rejected it.
  void add_unschedulable_if_not_present(QueuedPodInfo info, const PodPtr& pod, bool error,
                                        std::set<std::string> plugins = {});
  // The attempt ended without a requeue (bound, deleted, bound elsewhere).
  void done(const std::string& uid);
  // A cluster event (its upstream label, for the counts): every unschedulable pod `worth` lets
  // through (all when it is empty; it sees the plugins that rejected the pod) but except_uid
  // moves to activeQ, or backoffQ while it still backs off. Gated pods wait for an update of
  // themselves (or the 5-minute flush).
  using Worth = std::function<bool(const QueuedPodInfo&)>;
  void move_all(const std::string& event, const Worth& worth, const std::string& except_uid = {});
  // upstream's flushBackoffQCompleted (every second) and flushUnschedulablePodsLeftover (every
  // 30 s).
  void flush_backoff_completed();
  void flush_unschedulable_leftover();

  // -- inspection --
  std::optional<QueueClock::time_point> next_backoff_end() const;
  QueueClock::duration backoff_of(int attempts) const;
  // Pods per queue: active, backoff, unschedulable (gated not counted there), gated.
  std::map<std::string, std::size_t> pending() const;
  // Pods that entered each queue, by event: (queue, event) -> count.
  const std::map<std::pair<std::string, std::string>, std::uint64_t>& incoming() const {
    return incoming_;
  }
  // Where the pod is: a queue name, "in flight", or "" when unknown.
  std::string where(const std::string& uid) const;

 private:
  enum class Place { Active, Backoff, Unschedulable, InFlight };
  struct Entry {
    QueuedPodInfo info;
    Place place = Place::Active;
    bool updated_in_flight = false;
  };
  struct ActiveOrder {
    const SchedulingQueue* queue;
    bool operator()(const std::string& a, const std::string& b) const;
  };

  QueueClock::time_point backoff_end(const QueuedPodInfo& info) const;
  bool backing_off(const QueuedPodInfo& info) const;
  void add_to_active(Entry& e, const std::string& event);  // PreEnqueue; may end gated
  void add_to_backoff(Entry& e, const std::string& event);
  void add_to_unschedulable(Entry& e, const std::string& event);
  void take_out(const std::string& uid, Entry& e);  // from whichever queue holds it
  void move(const std::vector<std::string>& uids, const std::string& event);

  Less less_;
  PreEnqueue pre_enqueue_;
  QueueOptions options_;
  const QueueClock& clock_;

  std::map<std::string, Entry> entries_;  // uid -> every pod known, in a queue or in flight
  std::set<std::string, ActiveOrder> active_;
  std::set<std::pair<QueueClock::time_point, std::string>> backoff_;  // (end, uid)
  std::int64_t scheduling_cycle_ = 0;                                 // one more per pop
  std::int64_t move_request_cycle_ = -1;  // the cycle of the last move request
  std::uint64_t next_seq_ = 0;
  std::map<std::pair<std::string, std::string>, std::uint64_t> incoming_;
};

}  // namespace schedhost::live
