// NodePorts: upstream's default PreFilter + Filter (kube-scheduler v1.35).
//
// PreFilter stores the pod's host ports (regular containers; hostIP "" is 0.0.0.0, protocol ""
// is TCP) in the CycleState under "PreFilterNodePorts". Filter rejects a node where a wanted
// port (hostPort > 0) is taken: same protocol and port, and the wanted IP is 0.0.0.0, or the used
// IP is 0.0.0.0 or the same IP:
//   Unschedulable "node(s) didn't have free ports for the requested pod ports".
// Filter without the PreFilter state is an Error:
//   reading "PreFilterNodePorts" from cycleState: not found
// EnqueueExtensions: a node add (always queues) and a pod delete (queues when the deleted pod was
// scheduled or nominated and held a host port the pending pod wants).
// No args.
#include <schedhost/k8s/signers.hpp>
#include <schedhost/plugin.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr std::string_view kPreFilterStateKey = "PreFilterNodePorts";
constexpr const char* kErrReason = "node(s) didn't have free ports for the requested pod ports";
constexpr std::string_view kBindAllHostIP = "0.0.0.0";

struct WantedPort {
  std::string host_ip;
  std::string protocol;
  std::int32_t port;
};

// The ports the pod asks for, written by PreFilter. Not affected by adding or removing pods.
struct PreFilterState {
  std::vector<WantedPort> ports;
};

// A host port as upstream's HostPortInfo keeps it: hostIP "" is 0.0.0.0, protocol "" is TCP.
WantedPort sanitized(const schedhost::HostPort& p) {
  return {std::string(p.host_ip.empty() ? kBindAllHostIP : p.host_ip),
          std::string(p.protocol.empty() ? std::string_view("TCP") : p.protocol), p.port};
}

// upstream HostPortInfo.CheckConflict over the node's used ports.
template <class UsedPorts>
bool conflicts(const WantedPort& wanted, const UsedPorts& used) {
  if (wanted.port <= 0) return false;
  const bool any_ip = wanted.host_ip == kBindAllHostIP;
  for (const auto& u : used) {
    if (u.port != wanted.port || u.protocol != wanted.protocol) continue;
    if (any_ip || u.host_ip == kBindAllHostIP || u.host_ip == wanted.host_ip) return true;
  }
  return false;
}

class NodePorts {
 public:
  schedhost::Status SignPod(schedhost::Context&, const schedhost::Pod& pod,
                            schedhost::PodSignature& signature) const {
    schedhost::k8s::sign_host_ports(pod, signature);
    return {};
  }
  // Upstream's EventsToRegister (v1.35, queueing hints on): ports are immutable, so no pod
  // update; a node add has no hint (always queues).
  void EventsToRegister(schedhost::EventRegistry& events) const {
    events.add(schedhost::resource::kPod, schedhost::action::kDelete);
    events.add(schedhost::resource::kNode, schedhost::action::kAdd);
  }

  schedhost::QueueingHint IsSchedulableAfter(const schedhost::Pod& pod,
                                             const schedhost::ClusterEvent& event) const {
    if (event.is(schedhost::resource::kPod, schedhost::action::kDelete) && event.old_pod) {
      return after_pod_deleted(pod, *event.old_pod);
    }
    return schedhost::QueueingHint::kQueue;
  }

  schedhost::Status PreFilter(schedhost::Context&, schedhost::CycleState& state,
                              const schedhost::Pod& pod, schedhost::PreFilterResult&) const {
    PreFilterState s;
    for (const schedhost::HostPort& p : pod.host_ports())
      s.ports.push_back(sanitized(p));
    state.emplace<PreFilterState>(kPreFilterStateKey, std::move(s));
    return {};
  }

  schedhost::Status Filter(schedhost::Context&, const schedhost::CycleState& state,
                           const schedhost::Pod&, const schedhost::NodeInfo& node) const {
    const PreFilterState* s = state.read<PreFilterState>(kPreFilterStateKey);
    if (s == nullptr) {
      return schedhost::Status::Error("reading \"" + std::string(kPreFilterStateKey) +
                                      "\" from cycleState: not found");
    }
    if (s->ports.empty()) return {};
    const auto used = node.used_ports();
    if (used.empty()) return {};
    for (const WantedPort& wanted : s->ports) {
      if (conflicts(wanted, used)) return schedhost::Status::Unschedulable(kErrReason);
    }
    return {};
  }

 private:
  // upstream isSchedulableAfterPodDeleted: an unscheduled pod freed nothing; otherwise queue
  // when one of the pending pod's ports conflicted with one the deleted pod held.
  static schedhost::QueueingHint after_pod_deleted(const schedhost::Pod& pod,
                                                   const schedhost::Pod& deleted) {
    if (deleted.node_name().empty() && deleted.nominated_node_name().empty()) {
      return schedhost::QueueingHint::kSkip;
    }
    std::vector<WantedPort> freed;
    for (const schedhost::HostPort& p : deleted.host_ports()) {
      if (p.port > 0) freed.push_back(sanitized(p));
    }
    for (const schedhost::HostPort& wanted : pod.host_ports()) {
      if (conflicts(sanitized(wanted), freed)) return schedhost::QueueingHint::kQueue;
    }
    return schedhost::QueueingHint::kSkip;
  }
};

}  // namespace

SCHEDHOST_LIBRARY("node-ports", "1.0.0",
                  schedhost::plugin<NodePorts, schedhost::hook::PreFilter, schedhost::hook::Filter,
                                    schedhost::hook::EnqueueExtensions, schedhost::hook::SignPod>(
                      "NodePorts",
                      "Keeps pods off nodes where the host ports they ask for are taken"))
