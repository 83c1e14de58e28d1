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

}  // namespace

bool SchedulingQueue::ActiveOrder::operator()(const std::string& a, const std::string& b) const {
  const QueuedPodInfo& x = queue->entries_.at(a).info;
  const QueuedPodInfo& y = queue->entries_.at(b).info;
  if (queue->less_(x, y)) return true;
  if (queue->less_(y, x)) return false;
  return x.seq < y.seq;
}

SchedulingQueue::SchedulingQueue(Less less, PreEnqueue pre_enqueue, QueueOptions options,
                                 const QueueClock& clock)
    : less_(std::move(less)),
      pre_enqueue_(std::move(pre_enqueue)),
      options_(options),
      clock_(clock),
      active_(ActiveOrder{this}) {}

QueueClock::duration SchedulingQueue::backoff_of(int attempts) const {
  // initial x 2^(attempts-1), at most max; doubling stops at max, so it never overflows.
  QueueClock::duration d = options_.initial_backoff;
  for (int i = 1; i < attempts && d < options_.max_backoff; ++i)
    d *= 2;
  return std::min<QueueClock::duration>(d, options_.max_backoff);
}

QueueClock::time_point SchedulingQueue::backoff_end(const QueuedPodInfo& info) const {
  return info.timestamp + backoff_of(info.attempts);
}

bool SchedulingQueue::backing_off(const QueuedPodInfo& info) const {
  return !info.gated && backoff_end(info) > clock_.now();
}

void SchedulingQueue::add_to_active(Entry& e, const std::string& event) {
  const std::string uid = e.info.pod->uid();
  if (std::optional<std::string> gate = pre_enqueue_(*e.info.pod)) {
    e.info.gated = true;
    e.info.unschedulable_plugins = {*gate};
    e.place = Place::Unschedulable;
    return;
  }
  e.info.gated = false;
  if (!e.info.initial_attempt) e.info.initial_attempt = clock_.now();
  e.place = Place::Active;
  active_.insert(uid);
  ++incoming_[{kActiveQueue, event}];
}

void SchedulingQueue::add_to_backoff(Entry& e, const std::string& event) {
  e.place = Place::Backoff;
  backoff_.insert({backoff_end(e.info), e.info.pod->uid()});
  ++incoming_[{kBackoffQueue, event}];
}

void SchedulingQueue::add_to_unschedulable(Entry& e, const std::string& event) {
  e.place = Place::Unschedulable;
  ++incoming_[{kUnschedulableQueue, event}];
}

void SchedulingQueue::take_out(const std::string& uid, Entry& e) {
  if (e.place == Place::Active) active_.erase(uid);
  if (e.place == Place::Backoff) backoff_.erase({backoff_end(e.info), uid});
}

void SchedulingQueue::add(const PodPtr& pod) {
  const std::string uid = pod->uid();
  if (auto it = entries_.find(uid); it != entries_.end()) {  // a stale copy: replaced
    take_out(uid, it->second);
    entries_.erase(it);
  }
  Entry& e = entries_[uid];
  e.info.pod = pod;
  e.info.timestamp = clock_.now();
  e.info.seq = next_seq_++;
  add_to_active(e, kPodAdd);
}

void SchedulingQueue::update(const PodPtr& pod, bool spec_changed) {
  const std::string uid = pod->uid();
  auto it = entries_.find(uid);
  if (it == entries_.end()) return add(pod);
  Entry& e = it->second;
  switch (e.place) {
    case Place::InFlight:
      e.info.pod = pod;
      e.updated_in_flight = e.updated_in_flight || spec_changed;
      return;
    case Place::Active:
    case Place::Backoff:
      take_out(uid, e);  // re-sorted with the new object
      e.info.pod = pod;
      if (e.place == Place::Active) {
        active_.insert(uid);
      } else {
        backoff_.insert({backoff_end(e.info), uid});
      }
      return;
    case Place::Unschedulable:
      e.info.pod = pod;
      if (!spec_changed) return;  // a status change (our own condition) moves nothing
      if (backing_off(e.info)) {
        add_to_backoff(e, kPodUpdate);
      } else {
        add_to_active(e, kPodUpdate);
      }
      return;
  }
}

void SchedulingQueue::remove(const std::string& uid) {
  auto it = entries_.find(uid);
  if (it == entries_.end()) return;
  take_out(uid, it->second);
  entries_.erase(it);
}

std::optional<QueuedPodInfo> SchedulingQueue::pop() {
  if (active_.empty()) return std::nullopt;
  const std::string uid = *active_.begin();
  active_.erase(active_.begin());
  Entry& e = entries_.at(uid);
  e.place = Place::InFlight;
  e.updated_in_flight = false;
  ++e.info.attempts;
  ++scheduling_cycle_;
  e.info.unschedulable_plugins.clear();
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
  info.pod = pod;
  info.timestamp = clock_.now();
  info.unschedulable_plugins = std::move(plugins);
  info.gated = false;
  e.info = std::move(info);
  e.updated_in_flight = false;
  if (updated) {  // updated during the attempt: as upstream, the update put it in activeQ
    add_to_active(e, kPodUpdate);
  } else if (error || move_request_cycle_ >= scheduling_cycle_) {
    add_to_backoff(e, kScheduleAttemptFailure);
  } else {
    add_to_unschedulable(e, kScheduleAttemptFailure);
  }
}

void SchedulingQueue::done(const std::string& uid) {
  auto it = entries_.find(uid);
  if (it != entries_.end() && it->second.place == Place::InFlight) entries_.erase(it);
}

void SchedulingQueue::move(const std::vector<std::string>& uids, const std::string& event) {
  for (const std::string& uid : uids) {
    Entry& e = entries_.at(uid);
    if (backing_off(e.info)) {
      add_to_backoff(e, event);
    } else {
      add_to_active(e, event);
    }
  }
  move_request_cycle_ = scheduling_cycle_;  // even when nothing moved, as upstream
}

void SchedulingQueue::move_all(const std::string& event, const Worth& worth,
                               const std::string& except_uid) {
  std::vector<std::string> uids;
  for (const auto& [uid, e] : entries_) {
    if (e.place != Place::Unschedulable || e.info.gated || uid == except_uid) continue;
    if (worth && !worth(e.info)) continue;
    uids.push_back(uid);
  }
  move(uids, event);
}

void SchedulingQueue::flush_backoff_completed() {
  const QueueClock::time_point now = clock_.now();
  while (!backoff_.empty() && backoff_.begin()->first <= now) {
    const std::string uid = backoff_.begin()->second;
    backoff_.erase(backoff_.begin());
    add_to_active(entries_.at(uid), kBackoffComplete);
  }
}

void SchedulingQueue::flush_unschedulable_leftover() {
  const QueueClock::time_point now = clock_.now();
  std::vector<std::string> uids;
  for (const auto& [uid, e] : entries_) {
    if (e.place == Place::Unschedulable && now - e.info.timestamp > options_.max_in_unschedulable)
      uids.push_back(uid);
  }
  move(uids, kUnschedulableTimeout);
}

std::optional<QueueClock::time_point> SchedulingQueue::next_backoff_end() const {
  if (backoff_.empty()) return std::nullopt;
  return backoff_.begin()->first;
}

std::map<std::string, std::size_t> SchedulingQueue::pending() const {
  std::map<std::string, std::size_t> out = {
      {kActiveQueue, 0}, {kBackoffQueue, 0}, {kUnschedulableQueue, 0}, {kGatedQueue, 0}};
  for (const auto& [uid, e] : entries_) {
    if (e.place == Place::Active) ++out[kActiveQueue];
    if (e.place == Place::Backoff) ++out[kBackoffQueue];
    if (e.place == Place::Unschedulable) ++out[e.info.gated ? kGatedQueue : kUnschedulableQueue];
  }
  return out;
}

std::string SchedulingQueue::where(const std::string& uid) const {
  auto it = entries_.find(uid);
  if (it == entries_.end()) return "";
  switch (it->second.place) {
    case Place::Active:
      return kActiveQueue;
    case Place::Backoff:
      return kBackoffQueue;
    case Place::Unschedulable:
      return it->second.info.gated ? kGatedQueue : kUnschedulableQueue;
    case Place::InFlight:
      return "in flight";
  }
  return "";
}

}  // namespace schedhost::live
