#include "live/pod_queue.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "cluster/json_field.hpp"
#include "live/cluster_event.hpp"

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

bool PodQueue::less(const QueuedPodInfo& a, const QueuedPodInfo& b) const {
  // Queue time: the creation time until the first failure, then the time of the requeue.
  const auto queued_ms = [this](const QueuedPodInfo& i) -> std::int64_t {
    if (i.attempts == 0) return i.pod->creation_time_ms();
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               (i.timestamp.time_since_epoch() + unix_offset_))
        .count();
  };
  const schedhost_queued_pod_t qa{reinterpret_cast<const schedhost_pod_t*>(a.pod.get()),
                                  queued_ms(a), a.attempts};
  const schedhost_queued_pod_t qb{reinterpret_cast<const schedhost_pod_t*>(b.pod.get()),
                                  queued_ms(b), b.attempts};
  return sorter_.less(qa, qb);
}

PodQueue::PodQueue(const framework::Framework& sorter, SchedulingQueue::PreEnqueue pre_enqueue,
                   QueueOptions options, const QueueClock& clock)
    : sorter_(sorter),
      clock_(clock),
      unix_offset_(std::chrono::system_clock::now().time_since_epoch() -
                   std::chrono::duration_cast<std::chrono::system_clock::duration>(
                       clock.now().time_since_epoch())),
      queue_([this](const QueuedPodInfo& a, const QueuedPodInfo& b) { return less(a, b); },
             std::move(pre_enqueue), options, clock),
      last_backoff_flush_(clock.now()),
      last_leftover_flush_(clock.now()) {}

void PodQueue::push(bool deleted, const kube::Object& object, const kube::Object* previous) {
  Event e;
  e.deleted = deleted;
  e.uid = cluster::string_at(*object, {"metadata", "uid"});
  if (!deleted) {
    try {
      e.pod = std::make_shared<const cluster::Pod>(*object, object.text());
    } catch (const std::exception& ex) {
      e.refused = ex.what();
      e.key = kube::object_key(*object);
    }
    if (previous != nullptr && e.pod != nullptr) {
      e.updated = pod_updated(**previous, *object);
      if (*e.updated && spdlog::should_log(spdlog::level::debug)) {
        spdlog::debug(
            "queue: pod {} updated: {}", e.pod->key(),
            nlohmann::json::diff(compared_part(**previous), compared_part(*object)).dump());
      }
    }
  }
  std::lock_guard lock(mutex_);
  events_.push_back(std::move(e));
}

kube::InformerHandler PodQueue::handler() {
  return {[this](const kube::Object& o, bool) { push(false, o, nullptr); },
          [this](const kube::Object& old, const kube::Object& now) {
            if (kube::resource_version_of(*old) != kube::resource_version_of(*now)) {
              push(false, now, &old);
            }
          },
          [this](const kube::Object& o, bool) { push(true, o, nullptr); }};
}

void PodQueue::apply_pending() {
  std::vector<Event> events;
  {
    std::lock_guard lock(mutex_);
    events.swap(events_);
  }
  for (Event& e : events) {
    const std::string& uid = e.uid;
    if (e.deleted) {
      queue_.remove(uid);
      in_flight_.erase(uid);
      known_.erase(uid);
      deleted_.push_back(uid);
      nominations_.push_back({uid, nullptr, nullptr});
      continue;
    }
    if (e.pod == nullptr) {
      spdlog::warn("queue: skipped pod {}: {}", e.key, e.refused);
      continue;
    }
    PodPtr pod = std::move(e.pod);
    auto known = known_.find(uid);
    if (known == known_.end()) {
      known_[uid] = pod;
      if (!pod->terminating()) queue_.add(pod);  // pods being deleted are not scheduled
      if (!pod->terminating() && !pod->nominated_node_name().empty()) {
        nominations_.push_back({uid, pod, nullptr});
      }
      continue;
    }
    if (assumed_ && assumed_(uid)) {
      known->second = pod;  // the latest version, for the pod's Events; the queue is left alone
      continue;
    }
    // Compared on the informer's thread with the version before (the one known here: the
    // handler passes every new version on); an add of a pod known here (not seen in practice) is
    // compared with it now.
    const bool updated =
        e.updated ? *e.updated : pod_updated(*known->second->json_tree(), *pod->json_tree());
    const std::string& was_nominated = known->second->nominated_node_name();
    const PodPtr moved_from = !was_nominated.empty() && was_nominated != pod->nominated_node_name()
                                  ? known->second
                                  : nullptr;
    if (!pod->terminating() && !pod->nominated_node_name().empty()) {
      nominations_.push_back({uid, pod, moved_from});
    } else if (pod->terminating() || !was_nominated.empty()) {
      nominations_.push_back({uid, nullptr, moved_from});  // the nomination ended
    }
    const PodPtr old_pod = std::exchange(known->second, pod);
    if (pod->terminating()) {
      queue_.remove(uid);  // an attempt in flight ends as it ends; the pod is not retried
      continue;
    }
    // The update as upstream's events of the pod itself (UnschedulablePod...).
    std::vector<framework::ClusterEvent> own_events;
    for (const schedhost_action_t action : pod_update_actions(*old_pod, *pod)) {
      framework::ClusterEvent& event =
          own_events.emplace_back(framework::pending_pod_event(action));
      event.old_pod = old_pod;
      event.pod = pod;
    }
    queue_.update(pod, updated, own_events);
  }
}

PodPtr PodQueue::pop() {
  const QueueClock::time_point now = clock_.now();
  // Every second; with SchedulerPopFromBackoffQ at each whole second, so a window's pods leave
  // together, as upstream's aligned ticker does.
  const bool backoff_flush_due =
      queue_.options().pop_from_backoff
          ? queue_.window_of(now) != queue_.window_of(last_backoff_flush_)
          : now - last_backoff_flush_ >= std::chrono::seconds(1);
  if (backoff_flush_due) {
    queue_.flush_backoff_completed();
    last_backoff_flush_ = now;
  }
  if (now - last_leftover_flush_ >= std::chrono::seconds(30)) {
    queue_.flush_unschedulable_leftover();
    last_leftover_flush_ = now;
  }
  std::optional<QueuedPodInfo> info = queue_.pop();
  if (!info) return nullptr;
  PodPtr pod = info->pod;
  in_flight_[pod->uid()] = std::move(*info);
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

void PodQueue::requeue_unschedulable(const PodPtr& pod, std::set<std::string> plugins) {
  auto it = in_flight_.find(pod->uid());
  if (it == in_flight_.end()) return;
  PodPtr now = latest(pod->uid());
  if (now) queue_.add_unschedulable_if_not_present(it->second, now, false, std::move(plugins));
  in_flight_.erase(it);
}

void PodQueue::requeue_after_error(const PodPtr& pod) {
  auto it = in_flight_.find(pod->uid());
  if (it == in_flight_.end()) return;
  PodPtr now = latest(pod->uid());
  if (now) queue_.add_unschedulable_if_not_present(it->second, now, true);
  in_flight_.erase(it);
}

std::vector<PodQueue::NominationChange> PodQueue::take_nomination_changes() {
  return std::exchange(nominations_, {});
}

int PodQueue::attempts(const std::string& uid) const {
  auto it = in_flight_.find(uid);
  return it == in_flight_.end() ? 0 : it->second.attempts;
}

std::optional<QueueClock::time_point> PodQueue::initial_attempt(const std::string& uid) const {
  auto it = in_flight_.find(uid);
  if (it == in_flight_.end()) return std::nullopt;
  return it->second.initial_attempt;
}

void PodQueue::done(const std::string& uid) {
  in_flight_.erase(uid);
  queue_.done(uid);
}

void PodQueue::move_all(const std::string& event, const SchedulingQueue::Worth& worth,
                        const std::string& except_uid) {
  queue_.move_all(event, worth, except_uid);
}

}  // namespace schedhost::live
