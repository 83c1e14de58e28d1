// DynamicResources: the part of upstream's plugin (kube-scheduler v1.35, DynamicResourceAllocation
// GA and on) that a cluster without devices sees. Upstream's default profile has it just before
// DefaultPreemption, and its PostFilter speaks in every unschedulable pod's message:
//   "0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, preemption: ..."
// schedhost allocates no devices yet, so a pod with spec.resourceClaims is rejected in PreFilter
// (UnschedulableAndUnresolvable: bound without its devices it would be stuck on its node) with
// a message that says so, instead of upstream's claim allocation.
// No args.
#include <schedhost/plugin.hpp>

namespace {

using schedhost::Status;

// What PreFilter learnt about the pod, for PostFilter (upstream's stateData).
struct PreFilterState {
  bool claims = false;
};
constexpr std::string_view kStateKey = "PreFilterDynamicResources";

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
  // Only a pod's claims matter here, and they cannot change once the pod exists.
  void EventsToRegister(schedhost::EventRegistry&) const {}

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
