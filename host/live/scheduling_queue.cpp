#include "live/scheduling_queue.hpp"

#include <algorithm>

namespace schedhost::live {
namespace {

// Upstream's event labels for what is not a cluster event.
constexpr const char* kPodAdd = "PodAdd";
constexpr const char* kPodUpdate = "PodUpdate";
constexpr const char* kScheduleAttemptFailure = "ScheduleAttemptFailure";
constexpr const char* kBackoffComplete = "BackoffComplete";
constexpr const char* kUnschedulableTimeout = "UnschedulableTimeout";
constexpr const char* kPopFromBackoffQ = "PopFromBackoffQ";
constexpr const char* kForceActivate = "ForceActivate";

}  // namespace

bool SchedulingQueue::ActiveOrder::operator()(const std::string& a, const std::string& b) const {
  const QueuedPodInfo& x = queue->entries_.at(a).info;
  const QueuedPodInfo& y = queue->entries_.at(b).info;
  if (queue->less_(x, y)) return true;
  if (queue->less_(y, x)) return false;
  return x.seq < y.seq;
}

bool SchedulingQueue::BackoffOrder::operator()(const std::string& a, const std::string& b) const {
  const QueuedPodInfo& x = queue->entries_.at(a).info;
  const QueuedPodInfo& y = queue->entries_.at(b).info;
  const QueueClock::time_point ex = queue->backoff_end(x);
  const QueueClock::time_point ey = queue->backoff_end(y);
  if (ex != ey) return ex < ey;
  if (with_sort) {
    if (queue->less_(x, y)) return true;
    if (queue->less_(y, x)) return false;
  }
  return x.seq < y.seq;
}

SchedulingQueue::SchedulingQueue(Less less, PreEnqueue pre_enqueue, QueueOptions options,
                                 const QueueClock& clock)
    : less_(std::move(less)),
      pre_enqueue_(std::move(pre_enqueue)),
      options_(options),
      clock_(clock),
      active_(ActiveOrder{this}),
      backoff_(BackoffOrder{this, options.pop_from_backoff}),
      error_backoff_(BackoffOrder{this, false}) {}

QueueClock::duration SchedulingQueue::backoff_of(int count) const {
  if (count <= 0 || options_.max_backoff.count() == 0) return QueueClock::duration::zero();
  // initial x 2^(count-1), at most max; doubling stops at max, so it never overflows.
  QueueClock::duration d = options_.initial_backoff;
  for (int i = 1; i < count && d < options_.max_backoff; ++i)
    d *= 2;
  return std::min<QueueClock::duration>(d, options_.max_backoff);
}

QueueClock::time_point SchedulingQueue::window_of(QueueClock::time_point t) const {
  if (!options_.pop_from_backoff) return t;
  return std::chrono::floor<std::chrono::seconds>(t);
}

int SchedulingQueue::backoff_count(const QueuedPodInfo& info) {
  return info.consecutive_errors > 0 ? info.consecutive_errors : info.unschedulable_count;
}

QueueClock::time_point SchedulingQueue::backoff_end(const QueuedPodInfo& info) const {
  const QueueClock::duration backoff = backoff_of(backoff_count(info));
  if (backoff == QueueClock::duration::zero()) return {};  // no backoff at all
  return window_of(info.timestamp + backoff);
}

bool SchedulingQueue::backing_off(const QueuedPodInfo& info) const {
  if (backoff_of(backoff_count(info)) == QueueClock::duration::zero()) return false;
  // Upstream: still backing off while the end is not before the current window.
  return backoff_end(info) >= window_of(clock_.now());
}

void SchedulingQueue::hold_at_gate(Entry& e, std::string gate, const std::string& event) {
  const bool new_there = e.place != Place::Unschedulable;
  e.info.gated = true;
  // Upstream adds the gate to the plugins that rejected the pod: an event one of them registered
  // may still wake it, if the gate's own events include it.
  e.info.unschedulable_plugins.insert(gate);
  e.info.gating_plugin = std::move(gate);
  set_place(e, Place::Unschedulable);
  if (new_there) ++incoming_[{kUnschedulableQueue, event}];
}

void SchedulingQueue::add_to_active(Entry& e, const std::string& event, bool from_backoff) {
  const std::string uid = e.info.pod->uid();
  if (!(from_backoff && options_.pop_from_backoff)) {
    if (std::optional<std::string> gate = pre_enqueue_(*e.info.pod)) {
      hold_at_gate(e, std::move(*gate), event);
      return;
    }
  }
  e.info.gated = false;
  e.info.gating_plugin.clear();
  if (!e.info.initial_attempt) e.info.initial_attempt = clock_.now();
  set_place(e, Place::Active);
  active_.insert(uid);
  ++incoming_[{kActiveQueue, event}];
}

void SchedulingQueue::add_to_backoff(Entry& e, const std::string& event) {
  if (options_.pop_from_backoff) {  // PreEnqueue now, so a pod popped early passed it
    if (std::optional<std::string> gate = pre_enqueue_(*e.info.pod)) {
      hold_at_gate(e, std::move(*gate), event);
      return;
    }
  }
  e.info.gated = false;
  e.info.gating_plugin.clear();
  // Upstream: no rejecting plugin means an Error, whose heap is never popped early.
  if (e.info.unschedulable_plugins.empty()) {
    set_place(e, Place::ErrorBackoff);
    error_backoff_.insert(e.info.pod->uid());
  } else {
    set_place(e, Place::Backoff);
    backoff_.insert(e.info.pod->uid());
  }
  ++incoming_[{kBackoffQueue, event}];
}

void SchedulingQueue::add_after_backoff(Entry& e, const std::string& event) {
  if (backing_off(e.info)) {
    add_to_backoff(e, event);
  } else {
    add_to_active(e, event);
  }
}

void SchedulingQueue::add_to_unschedulable(Entry& e, const std::string& event) {
  set_place(e, Place::Unschedulable);
  ++incoming_[{kUnschedulableQueue, event}];
}

void SchedulingQueue::set_place(Entry& e, Place place) {
  if (e.place == Place::Unschedulable && place != Place::Unschedulable)
    unschedulable_.erase(e.info.pod->uid());
  if (place == Place::Unschedulable) unschedulable_.insert(e.info.pod->uid());
  e.place = place;
}

void SchedulingQueue::take_out(const std::string& uid, Entry& e) {
  if (e.place == Place::Active) active_.erase(uid);
  if (e.place == Place::Backoff) backoff_.erase(uid);
  if (e.place == Place::ErrorBackoff) error_backoff_.erase(uid);
  if (e.place == Place::Unschedulable) unschedulable_.erase(uid);
}

void SchedulingQueue::add(const PodPtr& pod) {
  const std::string uid = pod->uid();
  if (auto it = entries_.find(uid); it != entries_.end()) {  // a stale copy: replaced
    take_out(uid, it->second);
    entries_.erase(it);
    end_flight(uid);
  }
  Entry& e = entries_[uid];
  e.info.pod = pod;
  e.info.timestamp = clock_.now();
  e.info.seq = next_seq_++;
  add_to_active(e, kPodAdd);
}

void SchedulingQueue::update(const PodPtr& pod, bool spec_changed,
                             const std::vector<framework::ClusterEvent>& own_events) {
  const std::string uid = pod->uid();
  auto it = entries_.find(uid);
  if (it == entries_.end()) return add(pod);
  Entry& e = it->second;
  switch (e.place) {
    case Place::InFlight:
      e.info.pod = pod;
      e.updated_in_flight = e.updated_in_flight || spec_changed;
      for (const framework::ClusterEvent& event : own_events)
        record_in_flight(event);
      return;
    case Place::Active:
    case Place::Backoff:
    case Place::ErrorBackoff:
      take_out(uid, e);  // re-sorted with the new object
      e.info.pod = pod;
      if (e.place == Place::Active) active_.insert(uid);
      if (e.place == Place::Backoff) backoff_.insert(uid);
      if (e.place == Place::ErrorBackoff) error_backoff_.insert(uid);
      return;
    case Place::Unschedulable:
      e.info.pod = pod;
      if (event_worth_) {  // upstream v1.35: each of the update's events through the hints
        for (const framework::ClusterEvent& event : own_events) {
          if (!event_worth_(e.info, event)) continue;
          add_after_backoff(e, event.label);
          return;
        }
        return;
      }
      if (!spec_changed) return;  // a status change (our own condition) moves nothing
      add_after_backoff(e, kPodUpdate);
      return;
  }
}

void SchedulingQueue::remove(const std::string& uid) {
  auto it = entries_.find(uid);
  if (it == entries_.end()) return;
  take_out(uid, it->second);
  entries_.erase(it);
  end_flight(uid);
}

std::optional<QueuedPodInfo> SchedulingQueue::pop() {
  std::string uid;
  if (!active_.empty()) {
    uid = *active_.begin();
    active_.erase(active_.begin());
  } else if (options_.pop_from_backoff && !backoff_.empty()) {
    uid = *backoff_.begin();  // activeQ is empty: do not idle while it backs off
    backoff_.erase(backoff_.begin());
    ++incoming_[{kActiveQueue, kPopFromBackoffQ}];
  } else {
    return std::nullopt;
  }
  Entry& e = entries_.at(uid);
  set_place(e, Place::InFlight);
  end_flight(uid);  // never in flight twice; an old start would hold the events back
  in_flight_since_[uid] = next_event_seq_;
  flight_starts_.insert(next_event_seq_);
  e.updated_in_flight = false;
  e.activated_in_flight = false;
  ++e.info.attempts;
  ++scheduling_cycle_;
  e.info.unschedulable_plugins.clear();
  e.info.gating_plugin.clear();
  return e.info;
}

void SchedulingQueue::add_unschedulable_if_not_present(QueuedPodInfo info, const PodPtr& pod,
                                                       bool error, std::set<std::string> plugins) {
  const std::string uid = info.pod->uid();
  auto it = entries_.find(uid);
  if (it == entries_.end()) return;  // deleted meanwhile: nothing to requeue
  Entry& e = it->second;
  if (e.place != Place::InFlight) return;  // already queued again (upstream's "not present")
  const bool updated = e.updated_in_flight;
  const bool activated = e.activated_in_flight;
  if (error) plugins.clear();
  // Upstream: no rejecting plugin counts as an Error (a temporary failure); a rejection ends a
  // run of Errors.
  if (plugins.empty()) {
    ++info.consecutive_errors;
  } else {
    ++info.unschedulable_count;
    info.consecutive_errors = 0;
  }
  info.pod = pod;
  info.timestamp = clock_.now();
  info.unschedulable_plugins = std::move(plugins);
  info.gated = false;
  e.info = std::move(info);
  e.updated_in_flight = false;
  e.activated_in_flight = false;
  if (event_worth_) {
    // v1.35: no rejecting plugin, an activation, or an event during the attempt that its
    // rejecting plugins' hints take: after its backoff; otherwise it waits for the next one.
    const bool worth =
        e.info.unschedulable_plugins.empty() || activated || worth_after_flight(uid, e.info);
    end_flight(uid);
    if (worth) {
      add_after_backoff(e, kScheduleAttemptFailure);
    } else {
      add_to_unschedulable(e, kScheduleAttemptFailure);
    }
    return;
  }
  end_flight(uid);
  if (updated) {  // updated during the attempt: as v1.28, the update put it in activeQ
    add_to_active(e, kPodUpdate);
  } else if (e.info.unschedulable_plugins.empty() || move_request_cycle_ >= scheduling_cycle_ ||
             activated) {
    add_after_backoff(e, kScheduleAttemptFailure);
  } else {
    add_to_unschedulable(e, kScheduleAttemptFailure);
  }
}

void SchedulingQueue::done(const std::string& uid) {
  auto it = entries_.find(uid);
  if (it != entries_.end() && it->second.place == Place::InFlight) entries_.erase(it);
  end_flight(uid);
}

void SchedulingQueue::record_in_flight(const framework::ClusterEvent& event) {
  if (!event_worth_ || in_flight_since_.empty()) return;
  in_flight_events_.push_back({next_event_seq_++, event});
}

bool SchedulingQueue::worth_after_flight(const std::string& uid, const QueuedPodInfo& info) const {
  const auto since = in_flight_since_.find(uid);
  if (since == in_flight_since_.end()) return false;
  for (const RecordedEvent& r : in_flight_events_) {
    if (r.seq >= since->second && event_worth_(info, r.event)) return true;
  }
  return false;
}

void SchedulingQueue::end_flight(const std::string& uid) {
  const auto it = in_flight_since_.find(uid);
  if (it == in_flight_since_.end()) return;
  flight_starts_.erase(flight_starts_.find(it->second));
  in_flight_since_.erase(it);
  const std::uint64_t oldest = flight_starts_.empty() ? next_event_seq_ : *flight_starts_.begin();
  while (!in_flight_events_.empty() && in_flight_events_.front().seq < oldest)
    in_flight_events_.pop_front();
}

void SchedulingQueue::move(const std::vector<std::string>& uids, const std::string& event) {
  for (const std::string& uid : uids) {
    add_after_backoff(entries_.at(uid), event);
  }
  move_request_cycle_ = scheduling_cycle_;  // even when nothing moved, as upstream
}

void SchedulingQueue::move_all(const std::string& event, const Worth& worth,
                               const std::string& except_uid) {
  std::vector<std::string> uids;
  for (const std::string& uid : unschedulable_) {
    if (uid == except_uid) continue;
    const Entry& e = entries_.at(uid);
    if (e.info.gated && gate_wakers_.count({e.info.gating_plugin, event}) == 0) continue;
    if (worth && !worth(e.info)) continue;
    uids.push_back(uid);
  }
  move(uids, event);
}

void SchedulingQueue::move_all(const framework::ClusterEvent& event, const Worth& worth,
                               const std::string& except_uid) {
  record_in_flight(event);
  move_all(event.label, worth, except_uid);
}

void SchedulingQueue::wake_gate_on(const std::string& gate, const std::string& event) {
  gate_wakers_.insert({gate, event});
}

void SchedulingQueue::activate(const std::string& uid) {
  auto it = entries_.find(uid);
  if (it == entries_.end()) return;
  Entry& e = it->second;
  switch (e.place) {
    case Place::InFlight:
      e.activated_in_flight = true;
      return;
    case Place::Active:
      return;
    case Place::Backoff:
    case Place::ErrorBackoff:
    case Place::Unschedulable:
      take_out(uid, e);
      add_to_active(e, kForceActivate);
      return;
  }
}

void SchedulingQueue::flush_backoff_completed() {
  for (auto* heap : {&backoff_, &error_backoff_}) {
    while (!heap->empty() && !backing_off(entries_.at(*heap->begin()).info)) {
      const std::string uid = *heap->begin();
      heap->erase(heap->begin());
      add_to_active(entries_.at(uid), kBackoffComplete, true);
    }
  }
}

void SchedulingQueue::flush_unschedulable_leftover() {
  const QueueClock::time_point now = clock_.now();
  std::vector<std::string> uids;
  for (const std::string& uid : unschedulable_) {
    if (now - entries_.at(uid).info.timestamp > options_.max_in_unschedulable) uids.push_back(uid);
  }
  move(uids, kUnschedulableTimeout);
}

std::map<std::string, std::size_t> SchedulingQueue::pending() const {
  std::map<std::string, std::size_t> out = {
      {kActiveQueue, active_.size()},
      {kBackoffQueue, backoff_.size() + error_backoff_.size()},
      {kUnschedulableQueue, 0},
      {kGatedQueue, 0}};
  for (const std::string& uid : unschedulable_)
    ++out[entries_.at(uid).info.gated ? kGatedQueue : kUnschedulableQueue];
  return out;
}

std::string SchedulingQueue::where(const std::string& uid) const {
  auto it = entries_.find(uid);
  if (it == entries_.end()) return "";
  switch (it->second.place) {
    case Place::Active:
      return kActiveQueue;
    case Place::Backoff:
    case Place::ErrorBackoff:
      return kBackoffQueue;
    case Place::Unschedulable:
      return it->second.info.gated ? kGatedQueue : kUnschedulableQueue;
    case Place::InFlight:
      return "in flight";
  }
  return "";
}

}  // namespace schedhost::live
