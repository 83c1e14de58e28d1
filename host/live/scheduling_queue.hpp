// Upstream's scheduling queue as kube-scheduler v1.35 keeps it: activeQ in QueueSort order;
// backoffQ, two heaps by the end of each pod's backoff: one for pods some plugin rejected, one for
// pods that failed with an Error (no rejecting plugin); unschedulablePods, gated pods included.
// The backoff is podInitialBackoffSeconds x 2^(count-1), at most podMaxBackoffSeconds, where count
// is the pod's consecutive Errors after an Error and its rejections otherwise (v1.28 counted every
// attempt); a count of 0, or podMaxBackoffSeconds 0, means no backoff.
// A pod that fails goes to unschedulablePods, or towards backoffQ when no plugin rejected it or
// when an event that happened while it was being tried is worth it (v1.35, queueing hints GA:
// the events are kept while pods are in flight and judged by the pod's rejecting plugins; without
// an event judge, v1.28's move-request cycle rule: any event); cluster events move unschedulable
// pods out (to backoffQ while they still back off); the periodic flushes end backoffs and return
// pods left unschedulable for 5 minutes.
// With SchedulerPopFromBackoffQ (v1.35: beta, on) backoff ends are rounded down to whole seconds
// and a pod whose window is the current second still backs off, rejected pods in one window are
// in QueueSort order, PreEnqueue runs when a pod enters backoffQ (not again when it leaves), and
// an empty activeQ pops the head of the rejected pods' heap even before its backoff ends (never
// the Errors' heap), so the scheduler is not idle while pods wait out a backoff.
//
// Pure bookkeeping on one thread: no informer, no lock, time from a QueueClock, so it is tested
// deterministically on a fake clock. live/pod_queue.hpp feeds it from the informer.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cluster/pod.hpp"
#include "framework/cluster_event.hpp"

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
  QueueClock::time_point timestamp{};  // when it was last added or re-added
  int attempts = 0;                    // scheduling attempts (one per pop)
  int unschedulable_count = 0;  // failures with a rejecting plugin (upstream's UnschedulableCount)
  int consecutive_errors = 0;   // failures without one since the last rejection
  std::optional<QueueClock::time_point> initial_attempt;  // first entry into activeQ
  std::set<std::string> unschedulable_plugins;  // the plugins that rejected it last, and its gate
  bool gated = false;                           // held by a PreEnqueue plugin
  std::string gating_plugin;                    // which one
  std::uint64_t seq = 0;                        // arrival order: the tie-break of QueueSort
};

struct QueueOptions {
  std::chrono::seconds initial_backoff{1};
  std::chrono::seconds max_backoff{10};
  std::chrono::seconds max_in_unschedulable{300};  // upstream's 5 minutes
  bool pop_from_backoff = true;                    // the SchedulerPopFromBackoffQ gate
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

  // v1.35's judge of an event for a pod (its rejecting plugins' registrations and hints). Set, a
  // pending pod's own update moves it only when one of its events is worth it, and a pod that
  // fails is judged on the events that happened while it was tried; unset (tests of v1.28's
  // rules), any spec change moves it and any event during its attempt sends it to backoffQ.
  using EventWorth = std::function<bool(const QueuedPodInfo&, const framework::ClusterEvent&)>;
  void set_event_worth(EventWorth worth) { event_worth_ = std::move(worth); }

  // -- the informer of unassigned pods --
  void add(const PodPtr& pod);
  // An update of a pending pod. spec_changed: upstream's isPodUpdated (more than the status
  // changed). own_events: the update as events of the pod itself (UnschedulablePod...). A pod in
  // flight is not in the queue: the update is kept for its requeue.
  void update(const PodPtr& pod, bool spec_changed,
              const std::vector<framework::ClusterEvent>& own_events = {});
  void remove(const std::string& uid);

  // -- the scheduling loop --
  // The head of activeQ (its attempts counted, its unschedulable plugins cleared), now in flight;
  // when activeQ is empty, the head of the rejected pods' backoffQ (SchedulerPopFromBackoffQ);
  // nullopt when there is neither.
  std::optional<QueuedPodInfo> pop();
  // After a failed attempt: to unschedulablePods, or backoffQ (an Error, no rejecting plugin, or a
  // move request during the attempt; activeQ when its backoff is already over). pod: the object
  // to keep (the latest). plugins: the ones that rejected it (an Error has none).
  void add_unschedulable_if_not_present(QueuedPodInfo info, const PodPtr& pod, bool error,
                                        std::set<std::string> plugins = {});
  // The attempt ended without a requeue (bound, deleted, bound elsewhere).
  void done(const std::string& uid);
  // A cluster event (its upstream label, for the counts): every unschedulable pod `worth` lets
  // through (all when it is empty; it sees the plugins that rejected the pod) but except_uid
  // moves to activeQ, or backoffQ while it still backs off. Gated pods wait for an update of
  // themselves (or the 5-minute flush), unless their gate is woken by the event.
  using Worth = std::function<bool(const QueuedPodInfo&)>;
  void move_all(const std::string& event, const Worth& worth, const std::string& except_uid = {});
  // The same for a cluster event, which is also kept for the pods in flight (with an event judge).
  void move_all(const framework::ClusterEvent& event, const Worth& worth,
                const std::string& except_uid = {});
  // Pods gated by `gate` are considered by move_all for `event` too (upstream matches the gating
  // plugin's registered events): serve's preemption gate wakes on AssignedPodDelete.
  void wake_gate_on(const std::string& gate, const std::string& event);
  // Upstream's Activate: a pod waiting (unschedulable, gated or backing off) goes to activeQ at
  // once, through PreEnqueue; a pod in flight comes back after its backoff when its attempt fails
  // (upstream: a wildcard event for it).
  void activate(const std::string& uid);
  // upstream's flushBackoffQCompleted (every second; at each whole second with
  // SchedulerPopFromBackoffQ) and flushUnschedulablePodsLeftover (every 30 s).
  void flush_backoff_completed();
  void flush_unschedulable_leftover();

  // -- inspection --
  const QueueOptions& options() const { return options_; }
  // The backoff after count failures: 0 for none, then initial x 2^(count-1), at most max.
  QueueClock::duration backoff_of(int count) const;
  // The ordering window a time falls in: the whole second below it with
  // SchedulerPopFromBackoffQ, the time itself without.
  QueueClock::time_point window_of(QueueClock::time_point t) const;
  // Pods per queue: active, backoff, unschedulable (gated not counted there), gated.
  std::map<std::string, std::size_t> pending() const;
  // Pods that entered each queue, by event: (queue, event) -> count.
  const std::map<std::pair<std::string, std::string>, std::uint64_t>& incoming() const {
    return incoming_;
  }
  // Where the pod is: a queue name, "in flight", or "" when unknown.
  std::string where(const std::string& uid) const;

 private:
  enum class Place { Active, Backoff, ErrorBackoff, Unschedulable, InFlight };
  struct Entry {
    QueuedPodInfo info;
    Place place = Place::Active;
    bool updated_in_flight = false;    // without an event judge (v1.28): back to activeQ
    bool activated_in_flight = false;  // activate() while it was tried
  };
  struct ActiveOrder {
    const SchedulingQueue* queue;
    bool operator()(const std::string& a, const std::string& b) const;
  };
  // By backoff end; in one window by QueueSort when with_sort (the rejected pods' heap with
  // SchedulerPopFromBackoffQ); then by arrival.
  struct BackoffOrder {
    const SchedulingQueue* queue;
    bool with_sort;
    bool operator()(const std::string& a, const std::string& b) const;
  };

  // Rejections, or consecutive Errors after an Error: what the backoff doubles with.
  static int backoff_count(const QueuedPodInfo& info);
  // When its backoff ends (its window's start); the epoch when it has none.
  QueueClock::time_point backoff_end(const QueuedPodInfo& info) const;
  bool backing_off(const QueuedPodInfo& info) const;
  // PreEnqueue (not for a pod leaving backoffQ with SchedulerPopFromBackoffQ); may end gated.
  void add_to_active(Entry& e, const std::string& event, bool from_backoff = false);
  // To the heap its plugins say (PreEnqueue first with SchedulerPopFromBackoffQ; may end gated).
  void add_to_backoff(Entry& e, const std::string& event);
  // To backoffQ while it backs off, else activeQ (upstream's queueAfterBackoff).
  void add_after_backoff(Entry& e, const std::string& event);
  void add_to_unschedulable(Entry& e, const std::string& event);
  void hold_at_gate(Entry& e, std::string gate, const std::string& event);
  // Every change of a pod's place goes through here, which keeps unschedulable_ in step.
  void set_place(Entry& e, Place place);
  void take_out(const std::string& uid, Entry& e);  // from whichever queue holds it
  void move(const std::vector<std::string>& uids, const std::string& event);
  // Upstream's in-flight events: kept only while some pod is in flight, each pod judged on the
  // ones since it was popped.
  void record_in_flight(const framework::ClusterEvent& event);
  bool worth_after_flight(const std::string& uid, const QueuedPodInfo& info) const;
  void end_flight(const std::string& uid);

  Less less_;
  PreEnqueue pre_enqueue_;
  QueueOptions options_;
  const QueueClock& clock_;

  // uid -> every pod known, in a queue or in flight. Hashed: the heaps' orders look both pods up
  // by uid in every comparison; never iterated, so its order does not matter.
  std::unordered_map<std::string, Entry> entries_;
  std::set<std::string, ActiveOrder> active_;
  std::set<std::string, BackoffOrder> backoff_;        // rejected pods
  std::set<std::string, BackoffOrder> error_backoff_;  // pods that failed with an Error
  // The unschedulable (and gated) pods by uid, so a cluster event looks at them alone, not at
  // every pending pod (thousands in activeQ under load).
  std::set<std::string> unschedulable_;
  std::int64_t scheduling_cycle_ = 0;     // one more per pop
  std::int64_t move_request_cycle_ = -1;  // the cycle of the last move request
  std::uint64_t next_seq_ = 0;
  std::map<std::pair<std::string, std::string>, std::uint64_t> incoming_;
  std::set<std::pair<std::string, std::string>> gate_wakers_;  // (gate, event)
  EventWorth event_worth_;
  struct RecordedEvent {
    std::uint64_t seq;
    framework::ClusterEvent event;
  };
  std::deque<RecordedEvent> in_flight_events_;
  std::uint64_t next_event_seq_ = 0;
  std::map<std::string, std::uint64_t> in_flight_since_;  // uid -> first event it may see
  // The same starts, sorted: the oldest one says which events may go (serve has hundreds of pods
  // in flight while their bindings run).
  std::multiset<std::uint64_t> flight_starts_;
};

}  // namespace schedhost::live
