// SchedulingGates: upstream's default PreEnqueue (kube-scheduler v1.35). A pod with a non-empty
// spec.schedulingGates stays out of the queue:
//   UnschedulableAndUnresolvable "waiting for scheduling gates: [g1 g2]".
// EnqueueExtensions: the last gate of the pending pod itself going (queue for that pod only).
// No args.
#include <schedhost/plugin.hpp>

#include <nlohmann/json.hpp>

#include <string>

namespace {

class SchedulingGates {
 public:
  // Upstream's EventsToRegister (v1.35, queueing hints on).
  void EventsToRegister(schedhost::EventRegistry& events) const {
    events.add(schedhost::resource::kPod, schedhost::action::kUpdatePodSchedulingGatesEliminated);
  }

  // upstream isSchedulableAfterUpdatePodSchedulingGatesEliminated: another pod's gates going
  // never frees this one.
  schedhost::QueueingHint IsSchedulableAfter(const schedhost::Pod& pod,
                                             const schedhost::ClusterEvent& event) const {
    if (!event.new_pod) return schedhost::QueueingHint::kQueue;
    return event.new_pod->uid() == pod.uid() ? schedhost::QueueingHint::kQueue
                                             : schedhost::QueueingHint::kSkip;
  }

  schedhost::Status PreEnqueue(schedhost::Context&, const schedhost::Pod& pod) const {
    const auto text = pod.json("/spec/schedulingGates");
    if (!text) return {};
    const nlohmann::json gates = nlohmann::json::parse(*text);
    if (!gates.is_array() || gates.empty()) return {};
    std::string names;  // Go's %v of a []string: [a b c]
    bool first = true;
    for (const nlohmann::json& gate : gates) {
      if (!first) names += ' ';
      first = false;
      if (gate.is_object()) {
        const auto name = gate.find("name");
        if (name != gate.end() && name->is_string()) names += name->get<std::string>();
      }
    }
    return schedhost::Status::UnschedulableAndUnresolvable("waiting for scheduling gates: [" +
                                                           names + "]");
  }
};

}  // namespace

SCHEDHOST_LIBRARY("scheduling-gates", "1.0.0",
                  schedhost::plugin<SchedulingGates, schedhost::hook::PreEnqueue,
                                    schedhost::hook::EnqueueExtensions>(
                      "SchedulingGates", "Holds pods back while spec.schedulingGates is not empty"))
