// DynamicResources: the part of upstream's plugin (kube-scheduler v1.35, DynamicResourceAllocation
// GA and on) that a cluster without devices sees. Upstream's default profile has it just before
// DefaultPreemption, and its PostFilter speaks in every unschedulable pod's message:
//   "0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, preemption: ..."
// schedhost allocates no devices yet, so a pod with spec.resourceClaims is rejected in PreFilter
// (UnschedulableAndUnresolvable: bound without its devices it would be stuck on its node) with
// a message that says so, instead of upstream's claim allocation.
// EnqueueExtensions: upstream v1.35's registrations (node add, label and allocatable updates;
// ResourceClaim, DeviceClass and ResourceSlice adds and updates; the pending pod's generated
// claims). Every event queues but the pod update, which queues only for the pending pod itself
// once each of its claims has a name (upstream's isSchedulableAfterPodChange; the claim objects
// themselves are not modelled, so a named claim counts as found).
// No args.
#include <schedhost/plugin.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>

namespace {

using schedhost::Status;

// What PreFilter learnt about the pod, for PostFilter (upstream's stateData).
struct PreFilterState {
  bool claims = false;
};
constexpr std::string_view kStateKey = "PreFilterDynamicResources";

// upstream resourceclaim.Name for every spec.resourceClaims entry: each names its claim
// (resourceClaimName) or has one generated from its template, whose name is then in
// status.resourceClaimStatuses (an entry there with no name is a claim not needed).
bool claim_names_known(const schedhost::Pod& pod) {
  const auto text = pod.json("/spec/resourceClaims");
  if (!text) return true;
  const nlohmann::json claims = nlohmann::json::parse(*text);
  const auto statuses_text = pod.json("/status/resourceClaimStatuses");
  const nlohmann::json statuses =
      statuses_text ? nlohmann::json::parse(*statuses_text) : nlohmann::json::array();
  const auto has_status = [&](const nlohmann::json& name) {
    if (!statuses.is_array()) return false;
    return std::any_of(statuses.begin(), statuses.end(), [&](const nlohmann::json& s) {
      return s.is_object() && s.value("name", nlohmann::json()) == name;
    });
  };
  for (const nlohmann::json& claim : claims.is_array() ? claims : nlohmann::json::array()) {
    if (!claim.is_object()) return false;
    if (claim.contains("resourceClaimName") && !claim["resourceClaimName"].is_null()) continue;
    const bool templated = claim.contains("resourceClaimTemplateName") &&
                           !claim["resourceClaimTemplateName"].is_null();
    if (!templated || !has_status(claim.value("name", nlohmann::json()))) return false;
  }
  return true;
}

bool has_resource_claims(const schedhost::Pod& pod) {
  const auto claims = pod.json("/spec/resourceClaims");
  return claims && *claims != "[]" && *claims != "null";
}

class DynamicResources {
 public:
  schedhost::Status SignPod(schedhost::Context&, const schedhost::Pod& pod,
                            schedhost::PodSignature&) const {
    if (has_resource_claims(pod)) {
      return schedhost::Status::Unschedulable("pods with dra resource claims are not signable");
    }
    return {};
  }
  // Upstream's EventsToRegister (v1.35: DynamicResourceAllocation GA, queueing hints on).
  void EventsToRegister(schedhost::EventRegistry& events) const {
    namespace action = schedhost::action;
    namespace resource = schedhost::resource;
    events.add(resource::kNode,
               action::kAdd | action::kUpdateNodeLabel | action::kUpdateNodeAllocatable);
    events.add(resource::kResourceClaim, action::kAdd | action::kUpdate);
    events.add(resource::kPod, action::kUpdatePodGeneratedResourceClaim);
    events.add(resource::kDeviceClass, action::kAdd | action::kUpdate);
    events.add(resource::kResourceSlice, action::kAdd | action::kUpdate);
  }

  // Upstream's hints: none for nodes, device classes and slices; isSchedulableAfterClaimChange
  // needs the claim, which the event does not carry, so a claim event queues (as upstream when
  // in doubt); isSchedulableAfterPodChange below.
  schedhost::QueueingHint IsSchedulableAfter(const schedhost::Pod& pod,
                                             const schedhost::ClusterEvent& event) const {
    if (event.resource != schedhost::resource::kPod || !event.new_pod) {
      return schedhost::QueueingHint::kQueue;
    }
    if (event.new_pod->uid() != pod.uid()) return schedhost::QueueingHint::kSkip;
    return claim_names_known(*event.new_pod) ? schedhost::QueueingHint::kQueue
                                             : schedhost::QueueingHint::kSkip;
  }

  Status PreFilter(schedhost::Context&, schedhost::CycleState& state, const schedhost::Pod& pod,
                   schedhost::PreFilterResult&) const {
    const bool claims = has_resource_claims(pod);
    state.emplace<PreFilterState>(kStateKey, PreFilterState{claims});
    if (!claims) return Status::Skip();
    return Status::UnschedulableAndUnresolvable(
        "pod uses spec.resourceClaims (dynamic resource allocation), which needs the "
        "DynamicResources plugin to allocate its devices: schedhost's does not allocate devices "
        "yet");
  }

  // Upstream deallocates a claim that keeps the pod off every node; with no claims allocated
  // there is nothing to free, and its words are these. When an earlier PreFilter plugin
  // rejected the pod outright, this one's PreFilter never ran and upstream fails on the missing
  // state, with "not found" as the whole message (DefaultPreemption then does not run).
  Status PostFilter(schedhost::Context&, schedhost::CycleState& state, const schedhost::Pod&,
                    const schedhost::NodeStatusList&, schedhost::PostFilterResult&) const {
    const auto* s = state.read<PreFilterState>(kStateKey);
    if (s == nullptr) return Status::Error("not found");
    return Status::Unschedulable(s->claims ? "still not schedulable"
                                           : "no new claims to deallocate");
  }
};

}  // namespace

SCHEDHOST_LIBRARY(
    "dynamic-resources", "1.0.0",
    schedhost::plugin<DynamicResources, schedhost::hook::PreFilter, schedhost::hook::PostFilter,
                      schedhost::hook::EnqueueExtensions, schedhost::hook::SignPod>(
        "DynamicResources",
        "Pods with resource claims (not allocated yet: rejected with a message)"))
