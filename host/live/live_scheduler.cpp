#include "live/live_scheduler.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>
#include <thread>
#include <utility>

#include "cluster/json_field.hpp"
#include "common/log_verbosity.hpp"
#include "kube/pod_condition_patch.hpp"
#include "live/cluster_informers.hpp"
#include "live/filtered_handler.hpp"

namespace schedhost::live {
namespace {

using nlohmann::json;
using scheduler::AssumedPod;
using scheduler::PodPtr;
using scheduler::PodResult;

using Clock = std::chrono::steady_clock;

// Preemptions whose API calls run at once (upstream starts a goroutine for each).
constexpr int kPreemptionThreads = 4;
// Binding writes in flight at once, as many as the Event recorder's lanes: with no bound, pods
// created beforehand were bound so fast that the API server answered the Events too late and
// the recorder's queue dropped 40 % of them.
constexpr std::size_t kMaxBindingWrites = 32;
// How long binding answers may wait to be read together (a new binding is sent at once): the
// pod is bound when the API server says so, and only its binding worker waits for the answer.
constexpr std::chrono::milliseconds kBindingAnswersSettle{2};

kube::InformerHandler fan_out(kube::InformerHandler a, kube::InformerHandler b) {
  return {[=](const kube::Object& o, bool initial) {
            a.on_add(o, initial);
            b.on_add(o, initial);
          },
          [=](const kube::Object& old, const kube::Object& now) {
            a.on_update(old, now);
            b.on_update(old, now);
          },
          [=](const kube::Object& o, bool unknown) {
            a.on_delete(o, unknown);
            b.on_delete(o, unknown);
          }};
}

// An Event's reference to the pod (kube::object_reference), taken from the text a serve Pod
// keeps rather than from a tree parsed for it.
kube::ObjectReference reference_fields(const cluster::Pod& pod) {
  const auto string_at = [&pod](std::string_view pointer) {
    const std::optional<std::string_view> text = pod.json_at(pointer);
    if (!text || text->size() < 2 || text->front() != '"') return std::string();
    const std::string_view inner = text->substr(1, text->size() - 2);
    // Names, uids and versions have no escapes; a string that has some is decoded properly.
    if (inner.find('\\') == std::string_view::npos) return std::string(inner);
    const json decoded = json::parse(*text, nullptr, /*allow_exceptions=*/false);
    return decoded.is_string() ? decoded.get<std::string>() : std::string();
  };
  return kube::reference_from(string_at);
}

std::string node_name_of(const json& pod) {
  return cluster::string_at(pod, {"spec", "nodeName"});
}

// The hooks of the binding cycle (and Unreserve, which undoes a reservation): their Events' action
// is "Binding"; every other hook's is "Scheduling", as upstream's own events say.
bool binding_hook(std::string_view hook) {
  return hook == "PreBindPreFlight" || hook == "PreBind" || hook == "Bind" || hook == "PostBind" ||
         hook == "Unreserve";
}

}  // namespace

// An Event a plugin of one profile records about a pod, written as upstream's profiles write
// theirs: from the controller named by the pod's schedulerName when a profile serves it (else by
// this profile's), through the recorder (queued: aggregated and rate-limited, never blocking).
class LiveScheduler::PluginEventSink : public framework::PluginEvents {
 public:
  PluginEventSink(kube::EventRecorder& events, const config::SchedulerConfiguration& configuration,
                  const std::string& profile)
      : events_(events) {
    for (const config::Profile& p : configuration.profiles) {
      instances_.emplace(p.scheduler_name, kube::reporting_instance_for(p.scheduler_name));
    }
    own_ = instances_.find(profile);
  }

  void record(const cluster::Pod& pod, std::string_view plugin, std::string_view type,
              std::string_view reason, std::string_view message,
              const framework::EventSite& site) override {
    const auto found = std::as_const(instances_).find(pod.scheduler_name());
    const auto& [controller, instance] = found != instances_.cend() ? *found : *own_;
    if (log_verbosity().load() >= 4) {
      spdlog::info("serve: plugin \"{}\": event {} {} about {}: {}", plugin, type, reason,
                   pod.key(), message);
    }
    events_.record(reference_fields(pod), type, reason,
                   binding_hook(site.hook) ? "Binding" : "Scheduling", message, controller,
                   instance);
  }

 private:
  kube::EventRecorder& events_;
  // schedulerName -> reportingInstance, for every profile; read only once built.
  std::map<std::string, std::string, std::less<>> instances_;
  std::map<std::string, std::string, std::less<>>::const_iterator own_;
};

LiveScheduler::LiveScheduler(const config::SchedulerConfiguration& configuration,
                             const loader::PluginRegistry& registry, kube::ApiClient& client,
                             ServeOptions options)
    : configuration_(configuration),
      client_(client),
      options_(options),
      core_(configuration, registry, cluster_.snapshot(), *this,
            {.explain = false,
             .seed = options.seed,
             .opportunistic_batching = options.feature_gates.opportunistic_batching,
             .batch_max_age = std::chrono::milliseconds(500),
             .batch_metrics = options.metrics,
             .rest_after_scoring = true,
             .min_parallel_work = std::chrono::microseconds(250)}),
      events_client_(client.config()),
      events_(events_client_),
      plugin_api_(client) {
  for (const auto& framework : core_.frameworks()) {
    if (options_.metrics != nullptr) {
      framework->set_metrics(options_.metrics, options_.plugin_metrics_sample_percent);
    }
    framework->set_api_access(&plugin_api_);
    plugin_events_.push_back(
        std::make_unique<PluginEventSink>(events_, configuration, framework->name()));
    framework->set_plugin_events(plugin_events_.back().get());
  }
  queue_ = std::make_unique<PodQueue>(
      *core_.frameworks().front(), [this](const cluster::Pod& pod) { return pre_enqueue(pod); },
      QueueOptions{std::chrono::seconds(configuration.pod_initial_backoff_seconds),
                   std::chrono::seconds(configuration.pod_max_backoff_seconds),
                   std::chrono::seconds(300), options.feature_gates.scheduler_pop_from_backoff_q},
      clock_);
  // v1.35: an event is judged for a pod by its rejecting plugins' hints, whether it arrives while
  // the pod waits, is the pod's own update, or happened while the pod was being tried.
  queue_->set_assumed([this](const std::string& uid) { return cluster_.is_assumed(uid); });
  queue_->set_event_worth([this](const QueuedPodInfo& info, const ClusterEvent& event) {
    return worth_requeuing(event)(info);
  });
  binder_ = std::make_unique<BindingWorkers>(
      options.binding_threads,
      [this](AssumedPod& assumed, const BindingWorkers::Finish& finish) { bind(assumed, finish); });
  binding_writes_ = std::make_unique<kube::RequestLoop>(
      client_, kube::RequestLoopOptions{kMaxBindingWrites, "bind-writes", kBindingAnswersSettle});
  preemptions_ = std::make_unique<PreemptionWorkers>(
      kPreemptionThreads,
      [this](const PreemptionJob& job, const json& victim) { evict(job, victim); },
      [this](const PreemptionJob&, const json& pod) { clear_nomination(pod); });
}

std::optional<std::string> LiveScheduler::pre_enqueue(const cluster::Pod& pod) const {
  const framework::Framework* f = core_.framework_for(pod);
  if (f == nullptr) return std::string("no profile");
  if (framework::Status gate = f->run_pre_enqueue(pod); !gate.ok()) {
    return gate.plugin.empty() ? std::string("PreEnqueue") : gate.plugin;
  }
  // Its last victim is going once the informer has seen it deleted or being deleted.
  return preemptions_->running(pod.uid(), [this](const std::string& victim_uid) {
    const cluster::NodeInfo* node = cluster_.snapshot().node_of_pod(victim_uid);
    const cluster::Pod* victim = node != nullptr ? node->find_pod(victim_uid) : nullptr;
    return victim == nullptr || victim->terminating();
  });
}

LiveScheduler::~LiveScheduler() {
  stop_all(informers_);
}

bool LiveScheduler::responsible_for(const json& pod) const {
  const std::string name = cluster::string_at(pod, {"spec", "schedulerName"},
                                              std::string(config::kDefaultSchedulerName));
  return configuration_.find_profile(name) != nullptr;
}

void LiveScheduler::start_informers() {
  // One pod informer, two handlers (upstream's split): assigned pods feed the cache, unassigned
  // pods of our profiles the queue.
  informers_ = cluster_informers(
      client_, cluster_,
      fan_out(filtered_handler([](const json& p) { return !node_name_of(p).empty(); },
                               cluster_.assigned_pod_handler()),
              filtered_handler(
                  [this](const json& p) { return node_name_of(p).empty() && responsible_for(p); },
                  queue_->handler())));
  start_and_sync(informers_, options_.sync_timeout);
}

std::size_t LiveScheduler::run(const std::atomic<bool>& stop) {
  start_informers();
  synced_.store(true);
  if (options_.wait_for_leadership) {
    // A follower keeps its cache and queue current (nothing piles up, a takeover is fast) while
    // the election runs on a thread of its own.
    spdlog::info("serve: caches synced; waiting to lead");
    std::atomic<bool> decided{false};
    bool leading = false;
    std::thread election([&] {
      leading = options_.wait_for_leadership(stop);
      decided.store(true);
    });
    while (!decided.load()) {
      absorb_changes();
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    election.join();
    if (!leading) return shutdown();
  }
  spdlog::info("serve: caches synced; scheduling for {}", [&] {
    std::string names;
    for (const auto& p : configuration_.profiles)
      names += (names.empty() ? "" : ", ") + p.scheduler_name;
    return names;
  }());
  while (!stop.load())
    step();
  shutting_down_.store(true);
  return shutdown();
}

// Everything that happened since the last turn: the informers' changes to the queue, the cache
// and the nominations, the cluster events they make, finished bindings and expired waits.
void LiveScheduler::absorb_changes() {
  queue_->apply_pending();
  // A preemption whose API calls failed may have left its pod with nothing to wait for: upstream
  // activates it.
  for (const std::string& uid : preemptions_->take_failed())
    queue_->activate(uid);
  // A pod that leaves the queue's informer while it waits at Permit (deleted, or bound by
  // someone else) is rejected there at once, as upstream's deletePodFromSchedulingQueue does;
  // Unreserve frees its room.
  for (const std::string& uid : queue_->take_deleted()) {
    core_.reject_waiting(uid, "pod deleted or bound elsewhere while waiting at Permit");
  }
  // Pods nominated elsewhere (another scheduler instance, an earlier run) count on their node;
  // not a pod this cycle has assumed (its nomination ended there).
  for (const PodQueue::NominationChange& change : queue_->take_nomination_changes()) {
    if (!change.pod) {
      core_.nominated_pods().remove(change.uid);
    } else if (cluster_.snapshot().node_of_pod(change.uid) == nullptr) {
      core_.nominated_pods().add(change.pod, change.pod->nominated_node_name());
    }
    if (change.moved_from) nomination_moved(change.moved_from);
  }
  core_.finish_resolved_waits();
  const ClusterChanges changes = cluster_.apply_pending();
  // Each cluster event moves the unschedulable pods it may help (to backoffQ while they still
  // back off); namespaces and PodDisruptionBudgets move nothing, as upstream.
  for (const ClusterEvent& event : changes.events) {
    if (interested_in(event)) queue_->move_all(event, worth_requeuing(event));
  }
  if (!changes.events.empty() && spdlog::should_log(spdlog::level::debug)) {
    const std::map<std::string, std::size_t> pending = queue_->pending();
    spdlog::debug(
        "serve: {} cluster events ({} nodes, {} pods changed); pending: {} active, {} "
        "backoff, {} unschedulable",
        changes.events.size(), changes.nodes, changes.pods, pending.at(kActiveQueue),
        pending.at(kBackoffQueue), pending.at(kUnschedulableQueue));
  }
  finish_bindings();
  core_.expire_due_waits(Clock::now());
  // The queue's counts for /metrics, once a second (pending() walks the unschedulable pods).
  if (options_.metrics != nullptr && Clock::now() - last_metrics_ >= std::chrono::seconds(1)) {
    options_.metrics->set_queue(queue_->pending(), queue_->queue().incoming());
    last_metrics_ = Clock::now();
  }
}

void LiveScheduler::step() {
  absorb_changes();
  PodPtr pod = queue_->pop();
  if (!pod) {
    core_.parallelizer().rest();
    binder_->wait_for_outcome(std::chrono::milliseconds(10));
    return;
  }
  // upstream's skipPodSchedule: deleted, bound or being deleted meanwhile.
  PodPtr latest = queue_->latest(pod->uid());
  if (!latest || latest->terminating() || !latest->node_name().empty()) {
    queue_->done(pod->uid());
    core_.nominated_pods().remove(pod->uid());
    return;
  }
  {
    std::lock_guard lock(stats_mutex_);
    ++stats_.attempts;
  }
  // Its own nomination may not be back from the API server yet: it tries that node first.
  if (auto node = core_.nominated_pods().node_of(latest->uid());
      node && latest->nominated_node_name() != *node) {
    latest = latest->nominated_to(*node);
  }
  attempts_[latest->uid()] = {Clock::now(), std::max(1, queue_->attempts(latest->uid())),
                              queue_->initial_attempt(latest->uid())};
  try {
    core_.schedule_one(latest);
  } catch (const std::exception& e) {
    // A host fault (the model refused something) costs this pod an attempt, never the process:
    // it gets upstream's SchedulerError and comes back after a backoff.
    spdlog::error("serve: scheduling {} failed: {}", latest->key(), e.what());
    write_failure(latest, std::string(kube::kReasonSchedulerError), e.what(), std::nullopt);
    end_attempt(latest->uid(), latest->scheduler_name(), scheduler::kError);
    queue_->requeue_after_error(latest);
  }
  // The pool's worker would otherwise spin through what comes before the next pod's Filter
  // (absorbing the informers' changes, often longer than the spin): CPU the API server needs.
  core_.parallelizer().rest();
  core_.finish_resolved_waits();
}

void LiveScheduler::finish_bindings() {
  for (BindingOutcome& outcome : binder_->take_finished()) {
    core_.finish_binding(std::move(outcome.assumed), outcome.status);
  }
  core_.finish_resolved_waits();
}

void LiveScheduler::bind(AssumedPod& assumed, const BindingWorkers::Finish& finish) {
  // Upstream v1.35 (NominatedNodeNameForExpectation): before a PreBind that does work, the pod's
  // nominatedNodeName says where it is going; the API server clears it with the binding.
  framework::Status status = core_.run_binding_plugins(
      assumed, options_.feature_gates.nominated_node_name_for_expectation
                   ? std::function<void()>([&] { nominate(assumed, "its PreBind"); })
                   : std::function<void()>());
  if (!status.ok()) return finish(std::move(status));
  // the extender wrote the binding
  if (core_.extender_binds(*assumed.pod)) return finish(std::move(status));
  // The Bind plugin approved (DefaultBinder): the host writes the binding, as upstream's
  // DefaultBinder does through its client; not once serve has given its bindings up.
  if (writes_given_up_.load()) {
    return finish(
        framework::Status::error("serve stopped before the binding was written", "serve"));
  }
  const cluster::Pod& pod = *assumed.pod;
  const json binding = {
      {"apiVersion", "v1"},
      {"kind", "Binding"},
      {"metadata", {{"name", pod.name()}, {"namespace", pod.namespace_name()}, {"uid", pod.uid()}}},
      {"target", {{"kind", "Node"}, {"name", assumed.result.node}}}};
  const std::string pod_path = "/api/v1/namespaces/" + kube::url_escape(pod.namespace_name()) +
                               "/pods/" + kube::url_escape(pod.name());
  const std::string path = pod_path + "/binding";
  // The worker moves on; the answer finishes the binding on the loop's thread.
  auto answered = [this, path, pod_path, node = assumed.result.node,
                   finish](const kube::Response& answer) {
    if (answer.code >= 200 && answer.code < 300) return finish({});
    const kube::ApiError e = kube::ApiClient::error_of("POST", path, answer);
    const framework::Status failed =
        framework::Status::error(e.message().empty() ? e.what() : e.message(), "DefaultBinder");
    if (answer.code != 0) return finish(failed);
    // No answer came (a connection cut mid-request): the server may have bound the pod all the
    // same, and a failure written now would mark a bound pod unschedulable. The pod says which.
    binding_writes_->submit(
        "GET", pod_path, "", "", [node, failed, finish](const kube::Response& pod) {
          const json object = json::parse(pod.body, nullptr, false);
          const bool bound = pod.code == 200 && object.is_object() && node_name_of(object) == node;
          finish(bound ? framework::Status() : failed);
        });
  };
  binding_writes_->submit("POST", path, binding.dump(), "application/json", std::move(answered));
}

void LiveScheduler::nominate(const AssumedPod& assumed, const char* before) {
  const json& object = assumed.pod->json();
  try {
    if (auto patch = kube::nominated_node_patch(object, assumed.result.node)) {
      kube::send_pod_status_patch(client_, object, *patch);
    }
  } catch (const kube::ApiError& e) {
    // Upstream logs it and goes on: the nomination is a hint to others, not part of the binding.
    spdlog::warn("serve: could not write the nominated node of {} before {}: {}",
                 assumed.pod->key(), before, e.what());
  }
}

// Upstream v1.35 writes the nomination of a pod that will wait on Permit at the start of its
// binding cycle; here the wait starts on the scheduling thread, so it is written there.
void LiveScheduler::waiting_at_permit(const AssumedPod& assumed) {
  if (options_.feature_gates.nominated_node_name_for_expectation) {
    nominate(assumed, "its wait at Permit");
  }
}

void LiveScheduler::start_binding(AssumedPod assumed) {
  cluster_.assumed(assumed.pod->uid());
  binder_->submit(std::move(assumed));
}

void LiveScheduler::decided(const PodPtr& pod, PodResult result,
                            const scheduler::FailureDetail& detail) {
  const std::string& uid = pod->uid();
  const PodPtr latest = queue_->latest(uid);
  const int attempts = end_attempt(uid, result.profile, result.result);
  if (result.result == scheduler::kScheduled) {
    // kube-scheduler's V(2) line for every pod it binds.
    if (log_verbosity().load() >= 2) {
      spdlog::info("serve: bound {} to {} ({} attempt{})", pod->key(), result.node, attempts,
                   attempts > 1 ? "s" : "");
    }
    cluster_.binding_finished(uid, Clock::now());
    queue_->done(uid);
    events_.record(reference_fields(latest ? *latest : *pod), "Normal", "Scheduled", "Binding",
                   "Successfully assigned " + pod->key() + " to " + result.node, result.profile,
                   kube::reporting_instance_for(result.profile));
    std::lock_guard lock(stats_mutex_);
    ++stats_.bound;
    return;
  }
  if (detail.after_reserve) cluster_.forget(uid);
  const bool error = result.result == scheduler::kError;
  {
    std::lock_guard lock(stats_mutex_);
    ++(error ? stats_.errors : stats_.unschedulable);
  }
  spdlog::info("serve: {} {}: {}", pod->key(), error ? "failed" : "is unschedulable",
               result.message);
  // The core kept its nominator up to date (set, cleared, or left as it was); the status follows.
  write_failure(
      pod,
      error ? std::string(kube::kReasonSchedulerError) : std::string(kube::kReasonUnschedulable),
      result.message, detail.nominated_node);
  if (!latest || !latest->node_name().empty()) {
    queue_->done(uid);  // deleted, or bound by someone else: not retried
    core_.nominated_pods().remove(uid);
  } else if (error) {
    queue_->requeue_after_error(pod);
  } else {
    queue_->requeue_unschedulable(pod, detail.unschedulable_plugins);
  }
  // Upstream's handleBindingCycleError: the room the pod held is free again (an assigned pod
  // deleted, for the queue), so the pods that did not fit are tried again; not the pod itself.
  if (detail.in_binding_cycle) {
    const ClusterEvent freed = framework::assigned_pod_event(SCHEDHOST_ACTION_DELETE);
    queue_->move_all(freed, worth_requeuing(freed), uid);
  }
}

// Upstream's isPodWorthRequeuing: one of the plugins that rejected the pod registered the event,
// and its hint does not say Skip. (v1.35 has no other pre-check: queueing hints are GA.)
// Upstream's updatePodInSchedulingQueue: a pod no longer nominated where it was held room there
// for pods of equal or lower priority, so they are retried as after an assigned pod's deletion.
void LiveScheduler::nomination_moved(const PodPtr& was) {
  ClusterEvent left = framework::assigned_pod_event(SCHEDHOST_ACTION_DELETE);
  left.old_pod = was;
  if (!interested_in(left)) return;
  const SchedulingQueue::Worth worth = worth_requeuing(left);
  queue_->move_all(left, [&](const QueuedPodInfo& info) {
    return info.pod->priority() <= was->priority() && worth(info);
  });
}

bool LiveScheduler::interested_in(const ClusterEvent& event) const {
  // Upstream's DefaultPreemption registers Pod/Delete while preemption is asynchronous: a
  // victim's deletion may lift the gate that holds its preemptor (serve's gate does the same).
  if (options_.feature_gates.scheduler_async_preemption && event.resource == "Pod" &&
      event.actions == SCHEDHOST_ACTION_DELETE) {
    return true;
  }
  // Extenders register nothing: upstream takes every event for the pods they rejected.
  if (!configuration_.extenders.empty()) return true;
  const auto& profiles = core_.frameworks();
  return std::any_of(profiles.begin(), profiles.end(),
                     [&](const auto& f) { return f->interested_in(event); });
}

SchedulingQueue::Worth LiveScheduler::worth_requeuing(const ClusterEvent& event) const {
  return [this, &event](const QueuedPodInfo& info) {
    const framework::Framework* profile = core_.framework_for(*info.pod);
    return profile == nullptr ||
           profile->worth_requeuing(*info.pod, info.unschedulable_plugins, event);
  };
}

// /metrics: the attempt's result and duration (from its cycle's start); for a bound pod, how
// many attempts it took and how long since it first entered activeQ (the SLI).
int LiveScheduler::end_attempt(const std::string& uid, const std::string& profile,
                               const std::string& result) {
  auto it = attempts_.find(uid);
  if (it == attempts_.end()) return 1;
  const Attempt attempt = it->second;
  attempts_.erase(it);
  if (options_.metrics == nullptr) return attempt.number;
  const auto seconds = [](auto since) {
    return std::chrono::duration<double>(Clock::now() - since).count();
  };
  const char* outcome = result == scheduler::kScheduled ? "scheduled"
                        : result == scheduler::kError   ? "error"
                                                        : "unschedulable";
  options_.metrics->attempt(profile, outcome, seconds(attempt.started));
  if (result == scheduler::kScheduled) {
    options_.metrics->scheduled_after(attempt.number);
    if (attempt.queued) {
      options_.metrics->scheduled_since_queued(attempt.number, seconds(*attempt.queued));
    }
  }
  return attempt.number;
}

void LiveScheduler::write_failure(const PodPtr& pod, const std::string& reason,
                                  const std::string& message,
                                  const std::optional<std::string>& nominated) {
  const PodPtr latest = queue_->latest(pod->uid());
  const json& object = latest ? latest->json() : pod->json();
  const std::string profile = pod->scheduler_name();
  events_.record(object, "Warning", "FailedScheduling", "Scheduling", message, profile,
                 kube::reporting_instance_for(profile));
  try {
    if (auto patch = kube::scheduling_failure_patch(object, reason, message, nominated,
                                                    std::chrono::system_clock::now())) {
      kube::send_pod_status_patch(client_, object, *patch);  // retried as upstream retries it
    }
  } catch (const kube::ApiError& e) {
    // Upstream logs it and goes on (the pod may be gone).
    spdlog::warn("serve: could not write the status of {}: {}", pod->key(), e.what());
  }
}

void LiveScheduler::preempt(const PodPtr& pod, PodResult result,
                            const scheduler::Preemption& preemption) {
  {
    std::lock_guard lock(stats_mutex_);
    ++stats_.preemptions;
  }
  if (options_.metrics != nullptr) options_.metrics->preemption(preemption.victim_uids.size());
  PreemptionJob job{
      pod->uid(), pod->json(), pod->scheduler_name(), preemption.node, preemption.plugin, {}, {}};
  const cluster::NodeInfo* node = cluster_.snapshot().find(preemption.node);
  for (const std::string& uid : preemption.victim_uids) {
    if (core_.reject_waiting(uid, "preempted")) continue;  // in memory only: nothing to write
    const cluster::Pod* victim = node != nullptr ? node->find_pod(uid) : nullptr;
    if (victim == nullptr) continue;
    if (victim->terminating()) {  // v1.35: its graceful deletion has begun; no call is needed
      spdlog::debug("serve: victim {} of {} is already being deleted", victim->key(), pod->key());
      continue;
    }
    job.victims.push_back(victim->json());
  }
  // Lower-priority pods nominated to that node may no longer fit there: their nominations are
  // cleared, so they look elsewhere sooner (as upstream, only when there are victims to evict).
  for (const PodPtr& nominated : core_.nominated_pods().lower_priority(*pod, preemption.node)) {
    const PodPtr latest = queue_->latest(nominated->uid());
    job.nominated_pods.push_back(latest ? latest->json() : nominated->json());
  }
  core_.finish_resolved_waits();
  if (options_.feature_gates.scheduler_async_preemption) {
    // The preemptor is held at PreEnqueue until its last victim is going; a victim's deletion
    // may lift that gate.
    queue_->wake_gate_on(job.plugin, "AssignedPodDelete");
    preemptions_->start(std::move(job));
  } else if (!job.victims.empty()) {  // SchedulerAsyncPreemption=false: here, in the cycle
    preemptions_->run_here(job);
  }
  // The preemptor waits, nominated, until the victims are gone (their deletions are cluster
  // changes that move it back to the active queue).
  scheduler::FailureDetail detail;
  detail.nominated_node = preemption.node;
  detail.unschedulable_plugins = preemption.unschedulable_plugins;
  result.result = scheduler::kUnschedulable;
  decided(pod, std::move(result), detail);
}

// One victim, as upstream's PreemptPod: the DisruptionTarget condition, the DELETE, the
// Preempted event. A victim already gone is not a failure. Any thread.
void LiveScheduler::evict(const PreemptionJob& job, const json& victim) {
  const std::string path =
      "/api/v1/namespaces/" +
      kube::url_escape(victim.value("/metadata/namespace"_json_pointer, std::string())) + "/pods/" +
      kube::url_escape(victim.value("/metadata/name"_json_pointer, std::string()));
  try {
    if (auto patch = kube::disruption_target_patch(victim, job.scheduler_name,
                                                   std::chrono::system_clock::now())) {
      kube::send_pod_status_patch(client_, victim, *patch);
    }
    client_.remove(path);
  } catch (const kube::ApiError& e) {
    if (e.not_found()) return;  // already deleted: nothing to record
    throw;
  }
  events_.record(victim, "Normal", "Preempted", "Preempting",
                 "Preempted by pod " + job.preemptor_uid + " on node " + job.node,
                 job.scheduler_name, kube::reporting_instance_for(job.scheduler_name),
                 job.preemptor);
}

// A lower-priority pod nominated to a preemption's node: its nominatedNodeName cleared. Any
// thread.
void LiveScheduler::clear_nomination(const json& pod) {
  if (auto patch = kube::nominated_node_patch(pod, "")) {
    try {
      kube::send_pod_status_patch(client_, pod, *patch);
    } catch (const kube::ApiError& e) {
      if (!e.not_found()) throw;
    }
  }
}

std::size_t LiveScheduler::shutdown() {
  // Bindings in progress may finish within the grace; pods waiting at Permit stay unbound (their
  // reservation was only in memory).
  const auto deadline = Clock::now() + options_.shutdown_grace;
  while (binder_->in_flight() > 0 && Clock::now() < deadline) {
    binder_->wait_for_outcome(std::chrono::milliseconds(50));
    finish_bindings();
  }
  finish_bindings();
  // Preemptions under way finish within what is left of the grace (their victims' calls).
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  preemptions_->wait_idle(std::max(left, std::chrono::milliseconds(0)));
  const std::size_t bindings_left = binder_->in_flight();
  const std::size_t preemptions_left = preemptions_->in_flight();
  if (bindings_left > 0) {
    // A plugin still holds them (a PreBind that hangs, say): none is written from now on, so
    // their pods stay pending for the next scheduler; the threads cannot be joined.
    writes_given_up_.store(true);
    spdlog::warn("serve: gave up {} binding{} in flight after the {} s grace; {} stay{} pending",
                 bindings_left, bindings_left == 1 ? "" : "s", options_.shutdown_grace.count(),
                 bindings_left == 1 ? "its pod" : "their pods", bindings_left == 1 ? "s" : "");
  }
  if (preemptions_left > 0) {  // an API server that does not answer: its threads cannot be joined
    spdlog::warn("serve: gave up {} preemption{} still under way after the {} s grace",
                 preemptions_left, preemptions_left == 1 ? "" : "s",
                 options_.shutdown_grace.count());
  }
  const std::size_t given_up = bindings_left + preemptions_left;
  stop_all(informers_);
  if (given_up == 0) {  // joins the idle workers
    binding_writes_->stop();
    binder_.reset();
    preemptions_.reset();
  }
  events_.flush();
  events_.stop();
  return given_up;
}

ServeStats LiveScheduler::stats() const {
  std::lock_guard lock(stats_mutex_);
  return stats_;
}

}  // namespace schedhost::live
