// Coscheduling: gang scheduling on kubernetes-sigs/scheduler-plugins' own PodGroup custom
// resource (scheduling.x-k8s.io/v1alpha1), read and written through the plugin handle (ABI 1.9).
//
// A pod belongs to the PodGroup its label scheduling.x-k8s.io/pod-group names, in its namespace.
// The PodGroup says how many members must be placed together (spec.minMember) and how long the
// first ones wait for the rest (spec.scheduleTimeoutSeconds, else args.permitWaitingTimeSeconds).
// Pods without the label are not touched.
//
//   PreFilter   UnschedulableAndUnresolvable for a member whose PodGroup does not exist, or whose
//               gang was rejected (a gang is all or nothing) and has not changed since, within
//               args.podGroupBackoffSeconds.
//   PostFilter  when a member fits no node and fewer than minMember are placed, rejects the
//               gang's waiting members and the gang, as upstream does.
//   Permit      members placed (running, assumed or waiting, this pod included) >= minMember:
//               allows the gang's waiting members and this pod. Otherwise WAIT; at the deadline
//               the host rejects the pod and unreserves it.
//   Unreserve   a member was given up (the timeout, a rejection, a failed bind): rejects the
//               gang's other waiting members, and records a Warning Event "GangRejected" on the
//               pod.
//   PostBind    writes the PodGroup's status: scheduled (members placed) and phase (Scheduling,
//               then Scheduled at minMember), read-modify-write on its resourceVersion.
//   Events      a PodGroup added or changed, and a pod added, may help a gang it rejected: the
//               change clears the gang's rejection.
// Metrics: schedhost_plugin_gangs_rejected_total and schedhost_plugin_gang_wait_seconds (from a
// gang's first wait to its last member allowed).
//
// Not upstream's sibling count: upstream's PreFilter also counts the group's pending pods in
// the informer cache. A plugin sees the snapshot (placed pods), not the queue, so an incomplete
// gang is caught at Permit by its timeout instead. No QueueSort: members are not kept together
// in the queue.
//
// Args, every key optional:
//   permitWaitingTimeSeconds  integer 1..900, default 60 (upstream's default), for PodGroups
//                             without scheduleTimeoutSeconds
//   podGroupBackoffSeconds    integer 0..3600, default 60: how long a rejected gang stays
//                             rejected unless its PodGroup changes (0: until it changes)
#include <schedhost/plugin.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

using schedhost::Status;

constexpr schedhost::ApiResource kPodGroups{"scheduling.x-k8s.io", "v1alpha1", "podgroups",
                                            "PodGroup", true};
constexpr std::string_view kGroupLabel = "scheduling.x-k8s.io/pod-group";
constexpr std::int64_t kMaxWaitSeconds = 900;  // the host caps a Permit wait at 15 minutes

using Clock = std::chrono::steady_clock;

[[noreturn]] void refuse(const std::string& message) {
  throw std::invalid_argument(message);
}

std::int64_t integer_arg(const nlohmann::json& json, const char* key, std::int64_t min_value,
                         std::int64_t max_value) {
  const nlohmann::json& v = json.at(key);
  const bool integer = v.is_number_integer() || v.is_number_unsigned();
  if (!integer || (v.is_number_unsigned() && v.get<std::uint64_t>() > INT64_MAX) ||
      v.get<std::int64_t>() < min_value || v.get<std::int64_t>() > max_value) {
    refuse(std::string(key) + " must be an integer from " + std::to_string(min_value) + " to " +
           std::to_string(max_value) + ", got " + v.dump());
  }
  return v.get<std::int64_t>();
}

struct Args {
  std::chrono::seconds timeout{60};
  std::chrono::seconds backoff{60};
};

Args parse_args(const nlohmann::json& json) {
  if (!json.is_object()) refuse("args must be an object, got " + json.dump());
  Args args;
  for (const auto& [key, value] : json.items()) {
    if (key == "permitWaitingTimeSeconds") {
      args.timeout = std::chrono::seconds(integer_arg(json, key.c_str(), 1, kMaxWaitSeconds));
    } else if (key == "podGroupBackoffSeconds") {
      args.backoff = std::chrono::seconds(integer_arg(json, key.c_str(), 0, 3600));
    } else {
      refuse("unknown arg \"" + key +
             "\": the args are permitWaitingTimeSeconds and podGroupBackoffSeconds");
    }
  }
  return args;
}

// The gang a pod belongs to: its namespace and its PodGroup's name.
struct Gang {
  std::string ns;
  std::string name;
  std::string key() const { return ns + "/" + name; }
};

std::optional<Gang> gang_of(const schedhost::Pod& pod) {
  const auto name = pod.label(kGroupLabel);
  if (!name || name->empty()) return std::nullopt;
  return Gang{std::string(pod.namespace_name()), std::string(*name)};
}

bool in_gang(const schedhost::Pod& pod, const Gang& gang) {
  return pod.namespace_name() == gang.ns && pod.label(kGroupLabel) == gang.name;
}

// What the plugin reads of a PodGroup.
struct PodGroup {
  std::int64_t min_member = 1;
  std::optional<std::chrono::seconds> timeout;
  std::string resource_version;
  std::int64_t scheduled = 0;  // status.scheduled
};

// An integer field of the object, when it has one.
std::optional<std::int64_t> integer_at(const schedhost::Object& o, std::string_view pointer) {
  const std::optional<std::string_view> text = o.json(pointer);
  if (!text) return std::nullopt;
  const nlohmann::json v = nlohmann::json::parse(*text, nullptr, false);
  if (!v.is_number_integer()) return std::nullopt;
  return v.get<std::int64_t>();
}

// The PodGroup of the gang, or why it cannot be used.
struct Lookup {
  std::optional<PodGroup> group;
  std::string error;
};

Lookup podgroup(const schedhost::Context& ctx, const Gang& gang) {
  const std::optional<schedhost::Object> o = ctx.object(kPodGroups.name(), gang.ns, gang.name);
  if (!o) return {std::nullopt, "PodGroup " + gang.key() + " not found"};
  PodGroup g;
  const std::optional<std::int64_t> min = integer_at(*o, "/spec/minMember");
  if (!min || *min < 1) {
    return {std::nullopt, "PodGroup " + gang.key() + " has no spec.minMember of at least 1"};
  }
  g.min_member = *min;
  if (const auto seconds = integer_at(*o, "/spec/scheduleTimeoutSeconds");
      seconds && *seconds > 0) {
    g.timeout = std::chrono::seconds(std::min(*seconds, kMaxWaitSeconds));
  }
  g.resource_version = std::string(o->resource_version());
  g.scheduled = integer_at(*o, "/status/scheduled").value_or(0);
  return {g, ""};
}

// Members of the gang placed in the snapshot (running, assumed, waiting), other than pod.
std::int64_t placed_members(const schedhost::Context& ctx, const Gang& gang,
                            const schedhost::Pod& pod) {
  std::int64_t count = 0;
  for (const schedhost::NodeInfo& node : ctx.nodes()) {
    for (const schedhost::Pod& p : node.pods()) {
      if (p.uid() != pod.uid() && in_gang(p, gang)) ++count;
    }
  }
  return count;
}

class Coscheduling {
 public:
  Coscheduling(const nlohmann::json& args, const schedhost::Host& host)
      : args_(parse_args(args)),
        rejected_total_(host.metric("gangs_rejected_total")),
        wait_seconds_(host.metric("gang_wait_seconds")) {}

  Status PreFilter(schedhost::Context& ctx, schedhost::CycleState&, const schedhost::Pod& pod,
                   schedhost::PreFilterResult&) {
    const auto gang = gang_of(pod);
    if (!gang) return {};
    const Lookup found = podgroup(ctx, *gang);
    if (!found.group) return Status::UnschedulableAndUnresolvable(found.error);
    if (auto why = still_rejected(*gang, found.group->resource_version)) {
      return Status::UnschedulableAndUnresolvable("pod group " + gang->key() +
                                                  " was rejected earlier: " + *why);
    }
    return {};
  }

  // The gang cannot complete without this member: give up the members that wait for it.
  Status PostFilter(schedhost::Context& ctx, schedhost::CycleState&, const schedhost::Pod& pod,
                    const schedhost::NodeStatusList&, schedhost::PostFilterResult&) {
    const auto gang = gang_of(pod);
    if (!gang) return Status::Unschedulable();
    const Lookup found = podgroup(ctx, *gang);
    if (!found.group || still_rejected(*gang, found.group->resource_version)) {
      return Status::Unschedulable();
    }
    // Enough members are placed already: this one is just an extra that does not fit.
    if (placed_members(ctx, *gang, pod) >= found.group->min_member) return Status::Unschedulable();
    const std::string message = "PodGroup " + gang->key() + " gets rejected due to Pod " +
                                std::string(pod.name()) + " is unschedulable even after PostFilter";
    reject_gang(ctx, *gang, *found.group, pod,
                "member " + std::string(pod.name()) + " is unschedulable", message);
    return Status::Unschedulable(message);
  }

  Status Reserve(schedhost::Context&, schedhost::CycleState&, const schedhost::Pod&,
                 std::string_view) {
    return {};
  }

  void Unreserve(schedhost::Context& ctx, schedhost::CycleState&, const schedhost::Pod& pod,
                 std::string_view) {
    const auto gang = gang_of(pod);
    if (!gang) return;
    const Lookup found = podgroup(ctx, *gang);
    const std::string why = "member " + std::string(pod.name()) + " was unreserved";
    reject_gang(ctx, *gang, found.group.value_or(PodGroup{}), pod, why,
                "pod group " + gang->key() + " was rejected: " + why);
    // The host unreserves a member at its Permit timeout, at a rejection or when its binding
    // failed: which one, the pod's own status says; the Event says what it meant for the gang.
    std::string message = "PodGroup " + gang->key() + " rejected: " + why;
    if (found.group) {
      message += " (" + std::to_string(placed_members(ctx, *gang, pod)) + " other member(s) " +
                 "placed, minMember " + std::to_string(found.group->min_member) + ")";
    }
    ctx.record_event(pod, "Warning", "GangRejected", message);
  }

  Status Permit(schedhost::Context& ctx, schedhost::CycleState&, const schedhost::Pod& pod,
                std::string_view, std::chrono::milliseconds& timeout) {
    const auto gang = gang_of(pod);
    if (!gang) return {};
    const Lookup found = podgroup(ctx, *gang);
    if (!found.group) return Status::UnschedulableAndUnresolvable(found.error);
    if (placed_members(ctx, *gang, pod) + 1 < found.group->min_member) {
      timeout = found.group->timeout.value_or(args_.timeout);
      started_waiting(*gang);
      return Status::Wait();
    }
    // Collect first: allowing may change the list the host iterates.
    std::vector<std::string> waiting;
    for (const schedhost::Pod& w : ctx.waiting_pods()) {
      if (in_gang(w, *gang)) waiting.emplace_back(w.uid());
    }
    for (const std::string& uid : waiting)
      ctx.allow_waiting_pod(uid);
    if (const auto since = stop_waiting(*gang)) {
      wait_seconds_.observe(std::chrono::duration<double>(Clock::now() - *since).count());
    }
    return {};
  }

  // The PodGroup's status, from the members placed: read, modified, written on its
  // resourceVersion, and read again when another binding wrote first.
  void PostBind(schedhost::Context& ctx, schedhost::CycleState&, const schedhost::Pod& pod,
                std::string_view) {
    const auto gang = gang_of(pod);
    if (!gang) return;
    const std::int64_t placed = placed_members(ctx, *gang, pod) + 1;
    const std::string path = kPodGroups.path(gang->ns, gang->name);
    for (int attempt = 0; attempt < 5; ++attempt) {
      const auto current = ctx.api_request("GET", path);
      if (current.no_api_server) return;
      if (!current.answered() || current.status != 200) {
        ctx.record_event(pod, "Warning", "PodGroupStatusFailed",
                         "cannot read PodGroup " + gang->key() + ": " +
                             (current.error.empty()
                                  ? std::to_string(current.status) + " " + std::string(current.body)
                                  : current.error));
        return;
      }
      const nlohmann::json object = nlohmann::json::parse(current.body, nullptr, false);
      if (!object.is_object()) return;
      const std::int64_t min = object.value("/spec/minMember"_json_pointer, std::int64_t{1});
      const std::int64_t known = object.value("/status/scheduled"_json_pointer, std::int64_t{0});
      const std::int64_t scheduled = std::max(known, placed);
      const nlohmann::json patch = {
          {"metadata",
           {{"resourceVersion", object.value("/metadata/resourceVersion"_json_pointer, "")}}},
          {"status",
           {{"scheduled", scheduled}, {"phase", scheduled >= min ? "Scheduled" : "Scheduling"}}}};
      const auto written =
          ctx.api_request("PATCH", path + "/status", patch.dump(), "application/merge-patch+json");
      if (written.answered() && written.status == 409) continue;  // another binding wrote first
      if (!written.answered() || written.status >= 300) {
        ctx.record_event(pod, "Warning", "PodGroupStatusFailed",
                         "cannot write PodGroup " + gang->key() + "'s status: " +
                             (written.error.empty() ? std::string(written.body) : written.error));
      }
      return;
    }
  }

  // A PodGroup added or changed (its minMember lowered...), or a new pod (a member that was
  // missing), may complete a gang this plugin rejected; so may room on a node.
  void EventsToRegister(schedhost::EventRegistry& events) {
    events.add(kPodGroups.name(), schedhost::action::kAdd | schedhost::action::kUpdate);
    events.add(schedhost::resource::kPod, schedhost::action::kAdd);
    events.add(schedhost::resource::kNode,
               schedhost::action::kAdd | schedhost::action::kUpdateNodeAllocatable);
  }

 private:
  struct Rejection {
    std::string why;
    std::string resource_version;  // of the PodGroup when it was rejected
    Clock::time_point at;
  };

  // Why the gang was rejected, while that still holds: the PodGroup has not changed since, and
  // the backoff (if any) has not run out.
  std::optional<std::string> still_rejected(const Gang& gang, const std::string& version) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = rejected_.find(gang.key());
    if (it == rejected_.end()) return std::nullopt;
    const bool changed = it->second.resource_version != version;
    const bool expired = args_.backoff.count() > 0 && Clock::now() - it->second.at >= args_.backoff;
    if (changed || expired) {
      rejected_.erase(it);
      return std::nullopt;
    }
    return it->second.why;
  }

  // Rejects the gang's waiting members other than pod and remembers the gang as rejected
  // (keeping the first reason), counting it once.
  void reject_gang(schedhost::Context& ctx, const Gang& gang, const PodGroup& group,
                   const schedhost::Pod& pod, const std::string& why, const std::string& message) {
    bool first = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      first = rejected_.emplace(gang.key(), Rejection{why, group.resource_version, Clock::now()})
                  .second;
      waiting_since_.erase(gang.key());
    }
    if (first) rejected_total_.add();
    std::vector<std::string> waiting;
    for (const schedhost::Pod& w : ctx.waiting_pods()) {
      if (w.uid() != pod.uid() && in_gang(w, gang)) waiting.emplace_back(w.uid());
    }
    for (const std::string& uid : waiting)
      ctx.reject_waiting_pod(uid, message);
  }

  void started_waiting(const Gang& gang) {
    std::lock_guard<std::mutex> lock(mutex_);
    waiting_since_.emplace(gang.key(), Clock::now());
  }
  std::optional<Clock::time_point> stop_waiting(const Gang& gang) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = waiting_since_.find(gang.key());
    if (it == waiting_since_.end()) return std::nullopt;
    const Clock::time_point since = it->second;
    waiting_since_.erase(it);
    return since;
  }
  const Args args_;
  const schedhost::Metric rejected_total_;
  const schedhost::Metric wait_seconds_;
  // Unreserve and PostBind run on binding threads while PreFilter runs for the next pod.
  std::mutex mutex_;
  std::map<std::string, Rejection> rejected_;               // gang key -> its rejection
  std::map<std::string, Clock::time_point> waiting_since_;  // gang key -> its first wait
};

}  // namespace

SCHEDHOST_LIBRARY(
    "coscheduling", "2.0.0",
    schedhost::plugin<Coscheduling, schedhost::hook::PreFilter, schedhost::hook::PostFilter,
                      schedhost::hook::Reserve, schedhost::hook::Unreserve, schedhost::hook::Permit,
                      schedhost::hook::PostBind, schedhost::hook::EnqueueExtensions>(
        "Coscheduling",
        "Example: gang scheduling on scheduler-plugins' PodGroup (scheduling.x-k8s.io/v1alpha1); "
        "a gang's members wait at Permit until minMember of them are placed, then all go")
        .reads(kPodGroups)
        .counter("gangs_rejected_total", "Gangs rejected whole (a member timed out or fit nowhere)")
        .histogram("gang_wait_seconds",
                   "From a gang's first member waiting at Permit to its last one allowed",
                   {0.1, 0.5, 1, 5, 15, 60, 300}))
