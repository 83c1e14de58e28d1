// NodeUnschedulable: upstream's default Filter (kube-scheduler 1.28). A node with
// spec.unschedulable set rejects every pod that does not tolerate the taint
// {key: node.kubernetes.io/unschedulable, effect: NoSchedule}:
//   UnschedulableAndUnresolvable "node(s) were unschedulable".
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
  // Upstream's EventsToRegister (v1.28): the events that may make a pod it rejected fit.
  void EventsToRegister(schedhost::EventRegistry& events) const {
    events.add(schedhost::resource::kNode,
               schedhost::action::kAdd | schedhost::action::kUpdateNodeTaint);
  }

  schedhost::Status Filter(schedhost::Context&, const schedhost::CycleState&,
                           const schedhost::Pod& pod, const schedhost::NodeInfo& node) const {
    if (!node.unschedulable()) return {};
    const schedhost::k8s::OwnedTaint taint{std::string(schedhost::k8s::kTaintNodeUnschedulable), "",
                                           std::string(schedhost::k8s::kEffectNoSchedule)};
    if (schedhost::k8s::tolerations_tolerate_taint(pod.tolerations(), taint)) return {};
    return schedhost::Status::UnschedulableAndUnresolvable(kErrReasonUnschedulable);
  }
};

}  // namespace

SCHEDHOST_LIBRARY("node-unschedulable", "1.0.0",
                  schedhost::plugin<NodeUnschedulable, schedhost::hook::Filter,
                                    schedhost::hook::EnqueueExtensions, schedhost::hook::SignPod>(
                      "NodeUnschedulable",
                      "Keeps pods off nodes marked unschedulable unless they tolerate it"))
