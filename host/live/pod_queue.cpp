#include "live/pod_queue.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace schedhost::live {
namespace {

// What upstream's isPodUpdated compares: everything but the status (which the scheduler itself
// writes), resourceVersion, generation and managedFields; and kind and apiVersion, which watch
// events carry and list items do not.
nlohmann::json compared_part(nlohmann::json p) {
  p.erase("status");
  p.erase("kind");
  p.erase("apiVersion");
  if (auto m = p.find("metadata"); m != p.end() && m->is_object()) {
    m->erase("resourceVersion");
    m->erase("generation");
    m->erase("managedFields");
  }
  return p;
}

bool pod_updated(const nlohmann::json& old_pod, const nlohmann::json& new_pod) {
  return compared_part(old_pod) != compared_part(new_pod);
}

}  // namespace

bool PodQueue::Less::operator()(const Entry& a, const Entry& b) const {
  const schedhost_queued_pod_t qa{reinterpret_cast<const schedhost_pod_t*>(a.pod.get()),
                                  a.pod->creation_time_ms(), 0};
  const schedhost_queued_pod_t qb{reinterpret_cast<const schedhost_pod_t*>(b.pod.get()),
                                  b.pod->creation_time_ms(), 0};
  if (sorter->less(qa, qb)) return true;
  if (sorter->less(qb, qa)) return false;
  return a.seq < b.seq;
}

PodQueue::PodQueue(const framework::Framework& sorter,
                   std::function<bool(const cluster::Pod&)> admit, std::int64_t initial_backoff_s,
                   std::int64_t max_backoff_s)
    : sorter_(sorter),
      admit_(std::move(admit)),
      initial_backoff_s_(initial_backoff_s),
      max_backoff_s_(max_backoff_s),
      active_(Less{&sorter}) {}

kube::InformerHandler PodQueue::handler() {
  auto add = [this](const kube::Object& o) {
    std::lock_guard lock(mutex_);
    events_.push_back({false, o});
  };
  return {[add](const kube::Object& o, bool) { add(o); },
          [add](const kube::Object& old, const kube::Object& now) {
            if (kube::resource_version_of(*old) != kube::resource_version_of(*now)) add(now);
          },
          [this](const kube::Object& o, bool) {
            std::lock_guard lock(mutex_);
            events_.push_back({true, o});
          }};
}

void PodQueue::apply_pending() {
  std::vector<Event> events;
  {
    std::lock_guard lock(mutex_);
    events.swap(events_);
  }
  for (Event& e : events) {
    const std::string uid = e.object->value("/metadata/uid"_json_pointer, std::string());
    if (e.deleted) {
      remove_everywhere(uid);
      known_.erase(uid);
      deleted_.push_back(uid);
      continue;
    }
    PodPtr pod;
    try {
      pod = std::make_shared<const cluster::Pod>(*e.object);
    } catch (const std::exception& ex) {
      spdlog::warn("queue: skipped pod {}: {}", kube::object_key(*e.object), ex.what());
      continue;
    }
    auto known = known_.find(uid);
    if (known == known_.end()) {
      known_[uid] = pod;
      seq_[uid] = next_seq_++;
      add_active(pod);
      continue;
    }
    const bool updated = pod_updated(known->second->json(), pod->json());
    if (updated) {
      spdlog::debug(
          "queue: pod {} updated: {}", pod->key(),
          nlohmann::json::diff(compared_part(known->second->json()), compared_part(pod->json()))
              .dump());
    }
    known->second = pod;
    if (!updated) {
      // Only its status changed (our own condition, say): the queued copy is refreshed in place.
      if (unschedulable_.count(uid) != 0) unschedulable_[uid] = pod;
      continue;
    }
    // An update: the queued copy is replaced; an unschedulable pod that changed is retried
    // (upstream's isPodUpdated: its spec or labels may now fit).
    if (in_flight_.count(uid) != 0) continue;  // the attempt ends first; latest() has it
    remove_everywhere(uid);
    add_active(pod);
  }
}

void PodQueue::add_active(const PodPtr& pod) {
  if (pod->terminating()) return;  // pods being deleted are not scheduled
  if (!admit_(*pod)) {
    gated_.insert(pod->uid());
    return;
  }
  gated_.erase(pod->uid());
  active_.insert({pod, seq_[pod->uid()]});
}

void PodQueue::remove_everywhere(const std::string& uid) {
  for (auto it = active_.begin(); it != active_.end(); ++it) {
    if (it->pod->uid() == uid) {
      active_.erase(it);
      break;
    }
  }
  unschedulable_.erase(uid);
  backoff_.erase(uid);
  gated_.erase(uid);
}

PodPtr PodQueue::pop(Clock::time_point now) {
  for (auto it = backoff_.begin(); it != backoff_.end();) {
    if (it->second.second <= now) {
      add_active(it->second.first);
      it = backoff_.erase(it);
    } else {
      ++it;
    }
  }
  if (active_.empty()) return nullptr;
  PodPtr pod = active_.begin()->pod;
  active_.erase(active_.begin());
  in_flight_[pod->uid()] = pod;
  return pod;
}

std::vector<std::string> PodQueue::take_deleted() {
  std::vector<std::string> out;
  out.swap(deleted_);
  return out;
}

PodPtr PodQueue::latest(const std::string& uid) const {
  auto it = known_.find(uid);
  return it == known_.end() ? nullptr : it->second;
}

void PodQueue::requeue_unschedulable(const PodPtr& pod) {
  const std::string uid = pod->uid();
  PodPtr popped;
  if (auto it = in_flight_.find(uid); it != in_flight_.end()) {
    popped = it->second;
    in_flight_.erase(it);
  }
  PodPtr now = latest(uid);
  if (!now) return;  // deleted, or bound elsewhere, meanwhile
  ++attempts_[uid];
  if (popped && now != popped && pod_updated(popped->json(), now->json())) {
    // Updated during the attempt: try the new version at once.
    add_active(now);
    return;
  }
  unschedulable_[uid] = now;
}

void PodQueue::requeue_after_error(const PodPtr& pod, Clock::time_point now) {
  const std::string uid = pod->uid();
  in_flight_.erase(uid);
  PodPtr latest_pod = latest(uid);
  if (!latest_pod) return;
  const int attempts = ++attempts_[uid];
  std::int64_t seconds = initial_backoff_s_;
  for (int i = 1; i < attempts && seconds < max_backoff_s_; ++i)
    seconds *= 2;
  seconds = std::min(seconds, max_backoff_s_);
  backoff_[uid] = {latest_pod, now + std::chrono::seconds(seconds)};
}

void PodQueue::done(const std::string& uid) {
  in_flight_.erase(uid);
  attempts_.erase(uid);
  unschedulable_.erase(uid);
  backoff_.erase(uid);
}

void PodQueue::move_all_to_active(const std::string& except_uid) {
  for (auto it = unschedulable_.begin(); it != unschedulable_.end();) {
    if (it->first == except_uid) {
      ++it;
      continue;
    }
    add_active(it->second);
    it = unschedulable_.erase(it);
  }
}

std::optional<PodQueue::Clock::time_point> PodQueue::next_backoff_end() const {
  std::optional<Clock::time_point> next;
  for (const auto& [uid, entry] : backoff_) {
    if (!next || entry.second < *next) next = entry.second;
  }
  return next;
}

}  // namespace schedhost::live
