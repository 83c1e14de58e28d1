// NodeUnschedulable: upstream's default Filter (kube-scheduler v1.35). A node with
// spec.unschedulable set rejects every pod that does not tolerate the taint
// {key: node.kubernetes.io/unschedulable, effect: NoSchedule}:
//   UnschedulableAndUnresolvable "node(s) were unschedulable".
// EnqueueExtensions: node add and taint update (queue when the node is added schedulable or
// turns schedulable), and the pending pod's new tolerations (queue when they tolerate the
// unschedulable taint).
// No args.
#include <schedhost/k8s/signers.hpp>
#include <schedhost/k8s/toleration.hpp>
#include <schedhost/plugin.hpp>

namespace {

constexpr const char* kErrReasonUnschedulable = "node(s) were unschedulable";

class NodeUnschedulable {
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
    return after_node_change(event);
  }

  schedhost::Status Filter(schedhost::Context&, const schedhost::CycleState&,
                           const schedhost::Pod& pod, const schedhost::NodeInfo& node) const {
    if (!node.unschedulable()) return {};
    if (tolerates_unschedulable(pod)) return {};
    return schedhost::Status::UnschedulableAndUnresolvable(kErrReasonUnschedulable);
  }

 private:
  static bool tolerates_unschedulable(const schedhost::Pod& pod) {
    const schedhost::k8s::OwnedTaint taint{std::string(schedhost::k8s::kTaintNodeUnschedulable), "",
                                           std::string(schedhost::k8s::kEffectNoSchedule)};
    return schedhost::k8s::tolerations_tolerate_taint(pod.tolerations(), taint);
  }

  // upstream isSchedulableAfterPodTolerationChange: only the pending pod's own update matters,
  // and only when it now tolerates the taint (a toleration is never removed, so it had none).
  static schedhost::QueueingHint after_pod_toleration_change(const schedhost::Pod& pod,
                                                             const schedhost::ClusterEvent& event) {
    if (!event.new_pod) return schedhost::QueueingHint::kQueue;
    if (event.new_pod->uid() == pod.uid() && tolerates_unschedulable(*event.new_pod)) {
      return schedhost::QueueingHint::kQueue;
    }
    return schedhost::QueueingHint::kSkip;
  }

  // upstream isSchedulableAfterNodeChange: a node added schedulable, or one that stopped being
  // unschedulable.
  static schedhost::QueueingHint after_node_change(const schedhost::ClusterEvent& event) {
    if (!event.new_node) return schedhost::QueueingHint::kQueue;
    const bool now_schedulable = !event.new_node->unschedulable();
    const bool was_unschedulable = !event.old_node || event.old_node->unschedulable();
    return now_schedulable && was_unschedulable ? schedhost::QueueingHint::kQueue
                                                : schedhost::QueueingHint::kSkip;
  }
};

}  // namespace

SCHEDHOST_LIBRARY("node-unschedulable", "1.0.0",
                  schedhost::plugin<NodeUnschedulable, schedhost::hook::Filter,
                                    schedhost::hook::EnqueueExtensions, schedhost::hook::SignPod>(
                      "NodeUnschedulable",
                      "Keeps pods off nodes marked unschedulable unless they tolerate it"))
