// TaintToleration: upstream's default Filter + Score (kube-scheduler v1.35).
//
// Filter: the first node taint (in node order) with effect NoSchedule or NoExecute that no pod
//   toleration tolerates rejects the node:
//   UnschedulableAndUnresolvable "node(s) had untolerated taint(s)".
// PreScore keeps the pod's tolerations with effect "" or PreferNoSchedule (CycleState key
//   "PreScoreTaintToleration"); Score counts the node's PreferNoSchedule taints none of them
//   tolerates; NormalizeScore is upstream's DefaultNormalizeScore reversed (fewest intolerable
//   taints = 100). Score without the PreScore state is an Error:
//   failed to read "PreScoreTaintToleration" from cycleState: not found
// EnqueueExtensions: node add and taint update (queue when a taint the pod did not tolerate is
// gone or tolerated now), and the pending pod's new tolerations (queue for that pod only).
// No args.
#include <schedhost/k8s/normalize_score.hpp>
#include <schedhost/k8s/signers.hpp>
#include <schedhost/k8s/toleration.hpp>
#include <schedhost/plugin.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace k8s = schedhost::k8s;

constexpr std::string_view kPreScoreStateKey = "PreScoreTaintToleration";

struct PreScoreState {
  std::vector<k8s::OwnedToleration> tolerations_prefer_no_schedule;
};

class TaintToleration {
 public:
  schedhost::Status SignPod(schedhost::Context&, const schedhost::Pod& pod,
                            schedhost::PodSignature& signature) const {
    schedhost::k8s::sign_tolerations(pod, signature);
    return {};
  }
  // Upstream's EventsToRegister (v1.35, queueing hints on).
  void EventsToRegister(schedhost::EventRegistry& events) const {
    events.add(schedhost::resource::kNode,
               schedhost::action::kAdd | schedhost::action::kUpdateNodeTaint);
    events.add(schedhost::resource::kPod, schedhost::action::kUpdatePodToleration);
  }

  schedhost::QueueingHint IsSchedulableAfter(const schedhost::Pod& pod,
                                             const schedhost::ClusterEvent& event) const {
    if (event.resource == schedhost::resource::kPod) return after_pod_toleration_change(pod, event);
    return after_node_change(pod, event);
  }

  schedhost::Status Filter(schedhost::Context&, const schedhost::CycleState&,
                           const schedhost::Pod& pod, const schedhost::NodeInfo& node) const {
    const auto taints = node.taints();
    if (taints.empty()) return {};
    const auto taint = k8s::find_untolerated_taint(taints, pod.tolerations());
    if (!taint) return {};
    // v1.35 no longer names the taint (v1.28: "node(s) had untolerated taint {key: value}").
    return schedhost::Status::UnschedulableAndUnresolvable("node(s) had untolerated taint(s)");
  }

  schedhost::Status PreScore(schedhost::Context&, schedhost::CycleState& state,
                             const schedhost::Pod& pod, const schedhost::NodeList& nodes) const {
    if (nodes.empty()) return {};
    PreScoreState s;
    for (const schedhost::Toleration& t : pod.tolerations()) {
      if (t.effect.empty() || t.effect == k8s::kEffectPreferNoSchedule) {
        s.tolerations_prefer_no_schedule.push_back(k8s::OwnedToleration::of(t));
      }
    }
    state.emplace<PreScoreState>(kPreScoreStateKey, std::move(s));
    return {};
  }

  schedhost::Status Score(schedhost::Context&, const schedhost::CycleState& state,
                          const schedhost::Pod&, const schedhost::NodeInfo& node,
                          std::int64_t& score) const {
    const PreScoreState* s = state.read<PreScoreState>(kPreScoreStateKey);
    if (s == nullptr) {
      return schedhost::Status::Error("failed to read \"" + std::string(kPreScoreStateKey) +
                                      "\" from cycleState: not found");
    }
    std::int64_t intolerable = 0;
    for (const schedhost::Taint& taint : node.taints()) {
      if (taint.effect != k8s::kEffectPreferNoSchedule) continue;
      if (!k8s::tolerations_tolerate_taint(s->tolerations_prefer_no_schedule, taint)) {
        ++intolerable;
      }
    }
    score = intolerable;
    return {};
  }

  schedhost::Status NormalizeScore(schedhost::Context&, const schedhost::CycleState&,
                                   const schedhost::Pod&, schedhost::NodeScoreList& scores) const {
    k8s::default_normalize_score(scores, /*reverse=*/true);
    return {};
  }

 private:
  static bool untolerated(const schedhost::NodeInfo& node, const schedhost::Pod& pod) {
    return k8s::find_untolerated_taint(node.taints(), pod.tolerations()).has_value();
  }

  // upstream isSchedulableAfterNodeChange: queue when the node had (or, added, is taken to
  // have had) an untolerated NoSchedule/NoExecute taint and now has none.
  static schedhost::QueueingHint after_node_change(const schedhost::Pod& pod,
                                                   const schedhost::ClusterEvent& event) {
    if (!event.new_node) return schedhost::QueueingHint::kQueue;
    const bool was_untolerated = !event.old_node || untolerated(*event.old_node, pod);
    if (was_untolerated && !untolerated(*event.new_node, pod)) {
      return schedhost::QueueingHint::kQueue;
    }
    return schedhost::QueueingHint::kSkip;
  }

  // upstream isSchedulableAfterPodTolerationChange: the pending pod's own new toleration may
  // be the one it lacked; another pod's never matters.
  static schedhost::QueueingHint after_pod_toleration_change(const schedhost::Pod& pod,
                                                             const schedhost::ClusterEvent& event) {
    if (!event.new_pod) return schedhost::QueueingHint::kQueue;
    return event.new_pod->uid() == pod.uid() ? schedhost::QueueingHint::kQueue
                                             : schedhost::QueueingHint::kSkip;
  }
};

}  // namespace

SCHEDHOST_LIBRARY(
    "taint-toleration", "1.0.0",
    schedhost::plugin<TaintToleration, schedhost::hook::Filter, schedhost::hook::PreScore,
                      schedhost::hook::Score, schedhost::hook::NormalizeScore,
                      schedhost::hook::EnqueueExtensions, schedhost::hook::SignPod>(
        "TaintToleration",
        "Keeps pods off nodes with taints they do not tolerate; prefers nodes with "
        "fewer untolerated PreferNoSchedule taints"))
