// Coscheduling: gang scheduling, a simplified kubernetes-sigs/scheduler-plugins coscheduling.
//
// A pod belongs to the pod group named by its label pod-group.scheduling.sigs.k8s.io (groups are
// per namespace). The group's min-available comes from the pod's label, else its annotation,
// pod-group.scheduling.sigs.k8s.io/min-available, else args.defaultMinAvailable. No PodGroup
// object: the cluster file holds only core objects. Pods without the label are not touched.
//
//   PreFilter   rejects (UnschedulableAndUnresolvable) a member whose min-available is missing or
//               not a positive integer, and a member of a group that was already rejected in this
//               run (a gang is all or nothing, so its later members cannot complete it).
//   PostFilter  when a member fits no node and the group has fewer than min-available members
//               placed, rejects the group's waiting members and the group, as upstream does.
//   Reserve     nothing; it exists so that the host calls Unreserve.
//   Unreserve   a member was given up (timeout, rejection, failed bind): rejects the group's
//               other waiting members and the group.
//   Permit      members placed (running, assumed or waiting, counted in the snapshot, this pod
//               included) >= min-available: allows the group's waiting members and this pod.
//               Otherwise WAIT for args.permitWaitingTimeSeconds; at the deadline the host
//               rejects the pod ("rejected due to timeout after waiting 1m0s at plugin
//               Coscheduling") and unreserves it, which rejects the rest of the gang.
//
// Not upstream's sibling count: upstream's PreFilter counts the group's pods in the informer
// cache, pending ones included. A plugin sees only the snapshot (placed pods), not the queue, so
// an incomplete gang is caught at Permit by its timeout instead. No QueueSort: members of a gang
// are not kept together in the queue.
//
// Args, every key optional:
//   permitWaitingTimeSeconds  integer 1..900, default 60 (upstream's default)
//   defaultMinAvailable       integer >= 1, for members that carry no min-available
//
// A rejected group stays rejected for the rest of the run (the instance's lifetime); upstream
// forgets it after a backoff, which a replay that decides each pod once does not need.
#include <schedhost/plugin.hpp>

#include <charconv>
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

constexpr std::string_view kGroupLabel = "pod-group.scheduling.sigs.k8s.io";
constexpr std::string_view kMinAvailableKey = "pod-group.scheduling.sigs.k8s.io/min-available";
constexpr std::int64_t kMaxWaitSeconds = 900;  // the host caps a Permit wait at 15 minutes

[[noreturn]] void refuse(const std::string& message) {
  throw std::invalid_argument(message);
}

std::int64_t positive_integer_arg(const nlohmann::json& json, const char* key,
                                  std::int64_t max_value) {
  const nlohmann::json& v = json.at(key);
  const bool ok = v.is_number_unsigned()
                      ? v.get<std::uint64_t>() >= 1 &&
                            v.get<std::uint64_t>() <= static_cast<std::uint64_t>(max_value)
                      : v.is_number_integer() && v.get<std::int64_t>() >= 1 &&
                            v.get<std::int64_t>() <= max_value;
  if (!ok) {
    refuse(std::string(key) + " must be an integer from 1 to " + std::to_string(max_value) +
           ", got " + v.dump());
  }
  return v.get<std::int64_t>();
}

struct Args {
  std::chrono::milliseconds timeout{60'000};
  std::optional<std::int64_t> default_min_available;
};

Args parse_args(const nlohmann::json& json) {
  if (!json.is_object()) refuse("args must be an object, got " + json.dump());
  Args args;
  for (const auto& [key, value] : json.items()) {
    if (key == "permitWaitingTimeSeconds") {
      args.timeout = std::chrono::seconds(positive_integer_arg(json, key.c_str(), kMaxWaitSeconds));
    } else if (key == "defaultMinAvailable") {
      args.default_min_available = positive_integer_arg(json, key.c_str(), INT32_MAX);
    } else {
      refuse("unknown arg \"" + key +
             "\": the args are permitWaitingTimeSeconds and defaultMinAvailable");
    }
  }
  return args;
}

// The group of a pod: its namespace and the value of the group label.
struct Group {
  std::string key;   // "namespace/name", for messages and the rejected-groups map
  std::string name;  // the label value, to compare with other pods' labels
  std::string_view ns;
};

std::optional<Group> group_of(const schedhost::Pod& pod) {
  const auto name = pod.label(kGroupLabel);
  if (!name) return std::nullopt;
  std::string key(pod.namespace_name());
  key += '/';
  key += *name;
  return Group{std::move(key), std::string(*name), pod.namespace_name()};
}

bool same_group(const schedhost::Pod& other, const Group& group) {
  return other.namespace_name() == group.ns && other.label(kGroupLabel) == group.name;
}

// The min-available of the pod's group, or why there is none.
struct MinAvailable {
  std::int64_t value = 0;
  std::string error;  // set when value is unusable
};

MinAvailable min_available(const schedhost::Pod& pod, const Args& args) {
  auto text = pod.label(kMinAvailableKey);
  if (!text) text = pod.annotation(kMinAvailableKey);
  if (!text) {
    if (args.default_min_available) return {*args.default_min_available, ""};
    return {0, "pod has no " + std::string(kMinAvailableKey) +
                   " label or annotation and args.defaultMinAvailable is not set"};
  }
  std::int64_t value = 0;
  const char* end = text->data() + text->size();
  const auto [ptr, ec] = std::from_chars(text->data(), end, value);
  if (ec != std::errc() || ptr != end || value < 1) {
    return {0, std::string(kMinAvailableKey) + " must be a positive integer, got \"" +
                   std::string(*text) + "\""};
  }
  return {value, ""};
}

class Coscheduling {
 public:
  explicit Coscheduling(const nlohmann::json& args) : args_(parse_args(args)) {}

  schedhost::Status PreFilter(schedhost::Context&, schedhost::CycleState&,
                              const schedhost::Pod& pod, schedhost::PreFilterResult&) {
    const auto group = group_of(pod);
    if (!group) return {};
    if (MinAvailable min = min_available(pod, args_); !min.error.empty()) {
      return schedhost::Status::UnschedulableAndUnresolvable(std::move(min.error));
    }
    if (auto why = rejected_reason(group->key)) {
      return schedhost::Status::UnschedulableAndUnresolvable("pod group " + group->key +
                                                             " was rejected earlier: " + *why);
    }
    return {};
  }

  // The gang cannot complete without this member: give up the members that wait for it.
  schedhost::Status PostFilter(schedhost::Context& ctx, schedhost::CycleState&,
                               const schedhost::Pod& pod, const schedhost::NodeStatusList&,
                               schedhost::PostFilterResult&) {
    const auto group = group_of(pod);
    const MinAvailable min = min_available(pod, args_);
    if (!group || !min.error.empty() || rejected_reason(group->key)) {
      return schedhost::Status::Unschedulable();
    }
    // Enough members are placed already: this one is just an extra that does not fit.
    if (placed_members(ctx, *group, pod) >= min.value) return schedhost::Status::Unschedulable();
    const std::string message = "PodGroup " + group->key + " gets rejected due to Pod " +
                                std::string(pod.name()) + " is unschedulable even after PostFilter";
    reject_group(ctx, *group, pod, "member " + std::string(pod.name()) + " is unschedulable",
                 message);
    return schedhost::Status::Unschedulable(message);
  }

  schedhost::Status Reserve(schedhost::Context&, schedhost::CycleState&, const schedhost::Pod&,
                            std::string_view) {
    return {};
  }

  void Unreserve(schedhost::Context& ctx, schedhost::CycleState&, const schedhost::Pod& pod,
                 std::string_view) {
    const auto group = group_of(pod);
    if (!group) return;
    const std::string why = "member " + std::string(pod.name()) + " was unreserved";
    reject_group(ctx, *group, pod, why, "pod group " + group->key + " was rejected: " + why);
  }

  schedhost::Status Permit(schedhost::Context& ctx, schedhost::CycleState&,
                           const schedhost::Pod& pod, std::string_view,
                           std::chrono::milliseconds& timeout) {
    const auto group = group_of(pod);
    if (!group) return {};
    const MinAvailable min = min_available(pod, args_);
    if (!min.error.empty()) return schedhost::Status::UnschedulableAndUnresolvable(min.error);
    if (placed_members(ctx, *group, pod) + 1 < min.value) {
      timeout = args_.timeout;
      return schedhost::Status::Wait();
    }
    // Collect first: allowing may change the list the host iterates.
    std::vector<std::string> waiting;
    for (const schedhost::Pod& w : ctx.waiting_pods()) {
      if (same_group(w, *group)) waiting.emplace_back(w.uid());
    }
    for (const std::string& uid : waiting)
      ctx.allow_waiting_pod(uid);
    return {};
  }

 private:
  // Members of the group placed in the snapshot (running, assumed, waiting), other than pod.
  static std::int64_t placed_members(const schedhost::Context& ctx, const Group& group,
                                     const schedhost::Pod& pod) {
    std::int64_t count = 0;
    for (const schedhost::NodeInfo& node : ctx.nodes()) {
      for (const schedhost::Pod& p : node.pods()) {
        if (p.uid() != pod.uid() && same_group(p, group)) ++count;
      }
    }
    return count;
  }

  // Rejects the group's waiting members other than pod, and remembers the group as rejected
  // (keeping the first reason).
  void reject_group(schedhost::Context& ctx, const Group& group, const schedhost::Pod& pod,
                    const std::string& why, const std::string& message) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      rejected_.emplace(group.key, why);
    }
    std::vector<std::string> waiting;
    for (const schedhost::Pod& w : ctx.waiting_pods()) {
      if (w.uid() != pod.uid() && same_group(w, group)) waiting.emplace_back(w.uid());
    }
    for (const std::string& uid : waiting)
      ctx.reject_waiting_pod(uid, message);
  }

  std::optional<std::string> rejected_reason(const std::string& key) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = rejected_.find(key);
    if (it == rejected_.end()) return std::nullopt;
    return it->second;
  }

  const Args args_;
  // Unreserve may run on the binding thread while PreFilter runs for the next pod.
  mutable std::mutex mutex_;
  std::map<std::string, std::string> rejected_;  // group key -> why it was rejected
};

}  // namespace

SCHEDHOST_LIBRARY("coscheduling", "1.0.0",
                  schedhost::plugin<Coscheduling, schedhost::hook::PreFilter,
                                    schedhost::hook::PostFilter, schedhost::hook::Reserve,
                                    schedhost::hook::Unreserve, schedhost::hook::Permit>(
                      "Coscheduling",
                      "Example: gang scheduling; a pod group's members wait at Permit until "
                      "min-available of them are placed, then all go (all or nothing)"))
