#include "kube/pod_condition_patch.hpp"

#include <algorithm>
#include <random>
#include <thread>
#include <vector>

#include "cluster/rfc3339.hpp"
#include "kube/json_text.hpp"
#include "kube/micro_time.hpp"
#include "kube/resource.hpp"

namespace schedhost::kube {
namespace {

using nlohmann::json;
using WallClock = std::chrono::system_clock;

constexpr const char* kMergeKey = "type";

// A metav1.Time as Go re-encodes it: UTC seconds, null for absent or zero.
json normalized_time(const json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return nullptr;
  const auto ms = cluster::parse_rfc3339_ms(it->get_ref<const std::string&>());
  if (!ms) return *it;
  const std::string text = format_time(WallClock::time_point(std::chrono::milliseconds(*ms)));
  if (text == "0001-01-01T00:00:00Z") return nullptr;
  return text;
}

// A v1.PodCondition as Go encodes it: observedGeneration, reason and message omitted when
// empty, both times always there (a struct is never "empty" to omitempty).
json encoded_condition(std::string_view type, std::string_view status, json last_probe,
                       json last_transition, std::string_view reason, std::string_view message,
                       std::int64_t observed_generation) {
  json out = {{"type", type},
              {"status", status},
              {"lastProbeTime", std::move(last_probe)},
              {"lastTransitionTime", std::move(last_transition)}};
  if (observed_generation != 0) out["observedGeneration"] = observed_generation;
  if (!reason.empty()) out["reason"] = reason;
  if (!message.empty()) out["message"] = message;
  return out;
}

std::vector<json> encoded_conditions(const json& pod) {
  std::vector<json> out;
  const auto status = pod.find("status");
  if (status == pod.end() || !status->is_object()) return out;
  const auto list = status->find("conditions");
  if (list == status->end() || !list->is_array()) return out;
  for (const json& c : *list) {
    if (!c.is_object()) continue;
    out.push_back(encoded_condition(
        string_field(c, "type"), string_field(c, "status"), normalized_time(c, "lastProbeTime"),
        normalized_time(c, "lastTransitionTime"), string_field(c, "reason"),
        string_field(c, "message"), int_field(c, "observedGeneration")));
  }
  return out;
}

std::string merge_key(const json& element) {
  return element[kMergeKey].get<std::string>();
}

// diffMaps over flat objects: changed or added keys with their new value, removed keys null.
json diff_flat(const json& original, const json& modified) {
  json patch = json::object();
  for (const auto& [key, value] : modified.items()) {
    const auto it = original.find(key);
    if (it == original.end() || *it != value) patch[key] = value;
  }
  for (const auto& [key, value] : original.items()) {
    if (!modified.contains(key)) patch[key] = nullptr;
  }
  return patch;
}

// The strategic diff of two lists merged by `type` (diffLists + diffListsOfMaps): both sorted
// by key and walked together; the patch items in the new list's order, deletions last.
json diff_condition_lists(std::vector<json> original, const std::vector<json>& modified) {
  std::vector<json> modified_sorted = modified;
  const auto by_key = [](const json& a, const json& b) { return merge_key(a) < merge_key(b); };
  std::stable_sort(original.begin(), original.end(), by_key);
  std::stable_sort(modified_sorted.begin(), modified_sorted.end(), by_key);

  std::vector<json> patch;
  std::vector<json> deletions;
  std::size_t i = 0, j = 0;
  while (i < original.size() || j < modified_sorted.size()) {
    const bool both = i < original.size() && j < modified_sorted.size();
    if (both && merge_key(original[i]) == merge_key(modified_sorted[j])) {
      json d = diff_flat(original[i], modified_sorted[j]);
      if (!d.empty()) {
        d[kMergeKey] = modified_sorted[j][kMergeKey];
        patch.push_back(std::move(d));
      }
      ++i, ++j;
    } else if (i >= original.size() ||
               (both && merge_key(original[i]) > merge_key(modified_sorted[j]))) {
      patch.push_back(modified_sorted[j++]);
    } else {
      deletions.push_back({{"$patch", "delete"}, {kMergeKey, original[i++][kMergeKey]}});
    }
  }
  const auto position = [&](const json& item) {
    for (std::size_t k = 0; k < modified.size(); ++k) {
      if (merge_key(modified[k]) == merge_key(item)) return k;
    }
    return modified.size();
  };
  std::stable_sort(patch.begin(), patch.end(),
                   [&](const json& a, const json& b) { return position(a) < position(b); });
  json out = json::array();
  for (json& p : patch)
    out.push_back(std::move(p));
  for (json& d : deletions)
    out.push_back(std::move(d));
  return out;
}

bool same_order(const std::vector<json>& original, const std::vector<json>& modified) {
  if (original.size() != modified.size()) return false;
  for (std::size_t k = 0; k < original.size(); ++k) {
    if (merge_key(original[k]) != merge_key(modified[k])) return false;
  }
  return true;
}

// The status patch's "conditions" entries (and its $setElementOrder) for old → new.
void diff_conditions(const std::vector<json>& old_list, const std::vector<json>& new_list,
                     json& status_patch) {
  if (old_list.empty()) {
    if (!new_list.empty()) status_patch["conditions"] = new_list;
    return;
  }
  json changes = diff_condition_lists(old_list, new_list);
  const bool reordered = !same_order(old_list, new_list);
  if (changes.empty() && !reordered) return;
  if (!changes.empty()) status_patch["conditions"] = std::move(changes);
  json order = json::array();
  for (const json& c : new_list)
    order.push_back({{kMergeKey, c[kMergeKey]}});
  status_patch["$setElementOrder/conditions"] = std::move(order);
}

std::string nominated_node_of(const json& pod) {
  const auto status = pod.find("status");
  if (status == pod.end() || !status->is_object()) return "";
  return string_field(*status, "nominatedNodeName");
}

void diff_nominated_node(const json& pod, const std::optional<std::string>& nominated_node,
                         json& status_patch) {
  if (!nominated_node || *nominated_node == nominated_node_of(pod)) return;
  if (nominated_node->empty()) {
    status_patch["nominatedNodeName"] = nullptr;  // omitempty: the new status lacks the key
  } else {
    status_patch["nominatedNodeName"] = valid_utf8(*nominated_node);
  }
}

std::optional<json> wrapped(json status_patch) {
  if (status_patch.empty()) return std::nullopt;
  return json{{"status", std::move(status_patch)}};
}

// upstream's util.Retriable (InternalError, ServiceUnavailable, a refused connection), widened
// to every failure without an answer (a connection reset or cut mid-stream too): a status patch
// is idempotent, and a pod left without its condition waits for an event or the 5-minute flush.
bool retriable(const ApiError& e) {
  return e.code() == 500 || e.code() == 503 || e.code() == 0;
}

}  // namespace

std::optional<json> pod_condition_patch(const json& pod, const PodCondition& condition,
                                        const std::optional<std::string>& nominated_node,
                                        WallClock::time_point now) {
  // UpdatePodCondition on a copy of the status: the first condition of that type is replaced,
  // or the condition appended.
  const std::vector<json> old_list = encoded_conditions(pod);
  std::vector<json> new_list = old_list;
  // PodObservedGenerationTracking (GA in v1.35): the condition says which generation of the pod
  // it was written for.
  const auto metadata = pod.find("metadata");
  const std::int64_t generation =
      metadata != pod.end() && metadata->is_object() ? int_field(*metadata, "generation") : 0;
  json updated = encoded_condition(valid_utf8(condition.type), valid_utf8(condition.status),
                                   nullptr, format_time(now), valid_utf8(condition.reason),
                                   valid_utf8(condition.message), generation);
  const auto existing = std::find_if(new_list.begin(), new_list.end(), [&](const json& c) {
    return c[kMergeKey] == updated[kMergeKey];
  });
  if (existing == new_list.end()) {
    new_list.push_back(std::move(updated));
  } else {
    if ((*existing)["status"] == updated["status"]) {
      updated["lastTransitionTime"] = (*existing)["lastTransitionTime"];
    }
    *existing = std::move(updated);
  }

  json status_patch = json::object();
  diff_conditions(old_list, new_list, status_patch);
  diff_nominated_node(pod, nominated_node, status_patch);
  return wrapped(std::move(status_patch));
}

std::optional<json> scheduling_failure_patch(const json& pod, std::string_view reason,
                                             std::string_view message,
                                             const std::optional<std::string>& nominated_node,
                                             WallClock::time_point now) {
  return pod_condition_patch(
      pod, {std::string(kPodScheduled), "False", std::string(reason), std::string(message)},
      nominated_node, now);
}

std::optional<json> nominated_node_patch(const json& pod, std::string_view node) {
  json status_patch = json::object();
  diff_nominated_node(pod, std::string(node), status_patch);
  return wrapped(std::move(status_patch));
}

std::optional<json> disruption_target_patch(const json& victim, std::string_view scheduler_name,
                                            WallClock::time_point now) {
  return pod_condition_patch(
      victim,
      {std::string(kDisruptionTarget), "True", std::string(kReasonPreemptionByScheduler),
       std::string(scheduler_name) + ": preempting to accommodate a higher priority pod"},
      std::nullopt, now);
}

std::string pod_status_path(const json& pod) {
  const json& metadata = pod.at("metadata");
  return Resource::pods().object_path(metadata.value("namespace", ""), metadata.value("name", "")) +
         "/status";
}

json send_pod_status_patch(ApiClient& client, const json& pod, const json& patch) {
  // retry.DefaultBackoff: Steps 4, Duration 10 ms, Factor 5, Jitter 0.1.
  constexpr int kSteps = 4;
  thread_local std::mt19937 rng{std::random_device{}()};
  std::uniform_real_distribution<double> jitter(0.0, 0.1);
  const std::string path = pod_status_path(pod);
  double delay_ms = 10;
  for (int attempt = 1;; ++attempt) {
    try {
      return client.patch(path, patch, PatchType::StrategicMerge);
    } catch (const ApiError& e) {
      if (attempt == kSteps || !retriable(e)) throw;
    }
    std::this_thread::sleep_for(
        std::chrono::microseconds(static_cast<long long>(delay_ms * (1 + jitter(rng)) * 1000)));
    delay_ms *= 5;
  }
}

}  // namespace schedhost::kube
