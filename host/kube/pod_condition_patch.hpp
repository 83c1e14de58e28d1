// The pod status patches the scheduler sends (PATCH pods/<name>/status, strategic merge), with
// the bytes upstream's PatchPodStatus makes: the two-way strategic-merge diff of the pod's status
// and the same status after UpdatePodCondition and, when asked, a new nominatedNodeName.
// - lastTransitionTime is now, or the old one when the condition's status did not change;
// - a changed condition carries only its changed keys plus `type`; a new one comes whole, with
//   `lastProbeTime: null`;
// - `$setElementOrder/conditions` (every type of the new list, in order) comes with any change
//   to a non-empty list;
// - nothing changed: std::nullopt, and no request is to be sent.
// nlohmann::json dumps keys sorted, as Go's encoder dumps these maps, so patch.dump() is
// upstream's bytes. Only the fields a v1.28 PodCondition has are compared: fields a newer server
// adds (observedGeneration) are neither diffed nor cleared, as the Go types would drop them.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "kube/api_client.hpp"

namespace schedhost::kube {

inline constexpr std::string_view kPodScheduled = "PodScheduled";
inline constexpr std::string_view kReasonUnschedulable = "Unschedulable";
inline constexpr std::string_view kReasonSchedulerError = "SchedulerError";
inline constexpr std::string_view kDisruptionTarget = "DisruptionTarget";
inline constexpr std::string_view kReasonPreemptionByScheduler = "PreemptionByScheduler";

struct PodCondition {
  std::string type;
  std::string status;  // "True", "False", "Unknown"
  std::string reason;
  std::string message;
};

// The patch that sets condition on pod (as the API server returned it) and, when nominated_node
// has a value, status.nominatedNodeName to it ("" clears it: upstream's ModeOverride; nullopt
// leaves it: ModeNoop).
std::optional<nlohmann::json> pod_condition_patch(const nlohmann::json& pod,
                                                  const PodCondition& condition,
                                                  const std::optional<std::string>& nominated_node,
                                                  std::chrono::system_clock::time_point now);

// A failed scheduling attempt: PodScheduled=False with reason kReasonUnschedulable or
// kReasonSchedulerError and the full error text.
std::optional<nlohmann::json> scheduling_failure_patch(
    const nlohmann::json& pod, std::string_view reason, std::string_view message,
    const std::optional<std::string>& nominated_node, std::chrono::system_clock::time_point now);

// Only status.nominatedNodeName, set to node or cleared with "" (upstream's
// ClearNominatedNodeName for lower-priority pods nominated to a preemption's node).
std::optional<nlohmann::json> nominated_node_patch(const nlohmann::json& pod,
                                                   std::string_view node);

// A preemption victim: DisruptionTarget=True, reason PreemptionByScheduler, message
// "<scheduler_name>: preempting to accommodate a higher priority pod" (scheduler_name is the
// preemptor's spec.schedulerName). Diffed against the victim's own status, as upstream intends
// (1.28.4 diffs the preemptor's, kubernetes#126643). nullopt when the victim already has it.
std::optional<nlohmann::json> disruption_target_patch(const nlohmann::json& victim,
                                                      std::string_view scheduler_name,
                                                      std::chrono::system_clock::time_point now);

// "/api/v1/namespaces/<ns>/pods/<name>/status".
std::string pod_status_path(const nlohmann::json& pod);

// Sends patch to the pod's status as upstream's PatchPodStatus does: strategic merge, up to 4
// attempts 10, 50 and 250 ms apart (+ up to 10 % jitter) while the answer is a 500, a 503 or a
// refused connection. Returns the patched pod; throws the last ApiError.
nlohmann::json send_pod_status_patch(ApiClient& client, const nlohmann::json& pod,
                                     const nlohmann::json& patch);

}  // namespace schedhost::kube
