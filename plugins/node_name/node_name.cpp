// NodeName: upstream's default Filter (kube-scheduler v1.35). A pod that names a node in
// spec.nodeName fits only that node:
//   UnschedulableAndUnresolvable "node(s) didn't match the requested node name".
// EnqueueExtensions: a node add (no hint: every one queues, as upstream's nil hint).
// No args.
#include <schedhost/plugin.hpp>

namespace {

constexpr const char* kErrReason = "node(s) didn't match the requested node name";

class NodeName {
 public:
  schedhost::Status SignPod(schedhost::Context&, const schedhost::Pod& pod,
                            schedhost::PodSignature& signature) const {
    signature.add("v1.Pod.Spec.NodeName", pod.node_name());
    return {};
  }
  // Upstream's EventsToRegister (v1.35, queueing hints on): only a new node can be the one the
  // pod names; no hint, so every node add queues.
  void EventsToRegister(schedhost::EventRegistry& events) const {
    events.add(schedhost::resource::kNode, schedhost::action::kAdd);
  }

  schedhost::Status Filter(schedhost::Context&, const schedhost::CycleState&,
                           const schedhost::Pod& pod, const schedhost::NodeInfo& node) const {
    const std::string_view wanted = pod.node_name();
    if (wanted.empty() || wanted == node.name()) return {};
    return schedhost::Status::UnschedulableAndUnresolvable(kErrReason);
  }
};

}  // namespace

SCHEDHOST_LIBRARY("node-name", "1.0.0",
                  schedhost::plugin<NodeName, schedhost::hook::Filter,
                                    schedhost::hook::EnqueueExtensions, schedhost::hook::SignPod>(
                      "NodeName", "Keeps a pod that names a node on that node"))
