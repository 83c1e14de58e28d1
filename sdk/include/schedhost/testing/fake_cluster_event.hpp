// schedhost/testing/fake_cluster_event.hpp - cluster events for a plugin's queueing hint on the
// fake host (EnqueueExtensions, ABI 1.3), and what FakePlugin::events() and
// FakePlugin::queueing_hint() answer.
//
//   FakePlugin plugin = host.create("GpuFilter");
//   EXPECT_EQ(plugin.events(), (std::vector<EventRegistration>{
//                                  {"Node", SCHEDHOST_ACTION_ADD |
//                                  SCHEDHOST_ACTION_UPDATE_NODE_LABEL}}));
//   // node-a is a node of the host (the hint reads it with its pods); the old node is the event's.
//   const auto event = FakeClusterEvent::node_update(SCHEDHOST_ACTION_UPDATE_NODE_LABEL,
//                                                    FakeNode("node-a"), "node-a");
//   EXPECT_EQ(plugin.queueing_hint(FakePod("web-1"), event).answer, SCHEDHOST_QUEUE);
#pragma once

#include <schedhost/abi.h>
#include <schedhost/testing/fake_objects.hpp>

#include <cstdint>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace schedhost::testing {

// A node of a cluster event: one of the FakeHost's nodes by name (the hint reads it as the host
// hands it, with its pods), or a FakeNode of the event's own (the Node as it was before an update,
// or a node the FakeHost does not have).
class FakeEventNode {
 public:
  FakeEventNode(const char* host_node) : name_(host_node) {}             // NOLINT: implicit
  FakeEventNode(std::string host_node) : name_(std::move(host_node)) {}  // NOLINT: implicit
  FakeEventNode(FakeNode node) : node_(std::move(node)) {}               // NOLINT: implicit

  // The FakeNode given, or nullptr for a node of the host (then host_node() names it).
  const FakeNode* own_node() const { return node_ ? &*node_ : nullptr; }
  const std::string& host_node() const { return name_; }

 private:
  std::string name_;
  std::optional<FakeNode> node_;
};

// One cluster event as a queueing hint receives it (schedhost_cluster_event_t). Resource names,
// action bits and labels are upstream's (see abi.h); the factories fill them in as the host does.
struct FakeClusterEvent {
  std::string resource;                   // "Node", "Pod", ... or "*"
  std::uint32_t actions = 0;              // SCHEDHOST_ACTION_* bits: what changed
  std::string label;                      // "NodeAdd", "NodeLabelChange", "AssignedPodDelete", ...
  std::optional<FakePod> old_pod;         // pod update, delete
  std::optional<FakePod> new_pod;         // pod add, update
  std::optional<FakeEventNode> old_node;  // node update: the Node as it was
  std::optional<FakeEventNode> new_node;  // node add, update

  // Node add: "NodeAdd" (Node, Add).
  static FakeClusterEvent node_add(FakeEventNode node) {
    FakeClusterEvent e = of("Node", SCHEDHOST_ACTION_ADD, "NodeAdd");
    e.new_node = std::move(node);
    return e;
  }
  // Node update whose first change is `action`, one of SCHEDHOST_ACTION_UPDATE_NODE_*
  // ("NodeAllocatableChange", "NodeLabelChange", "NodeTaintChange", "NodeConditionChange",
  // "NodeAnnotationChange"); throws std::invalid_argument for other bits.
  static FakeClusterEvent node_update(std::uint32_t action, FakeEventNode old_node,
                                      FakeEventNode new_node) {
    const char* label = nullptr;
    switch (action) {
      case SCHEDHOST_ACTION_UPDATE_NODE_ALLOCATABLE:
        label = "NodeAllocatableChange";
        break;
      case SCHEDHOST_ACTION_UPDATE_NODE_LABEL:
        label = "NodeLabelChange";
        break;
      case SCHEDHOST_ACTION_UPDATE_NODE_TAINT:
        label = "NodeTaintChange";
        break;
      case SCHEDHOST_ACTION_UPDATE_NODE_CONDITION:
        label = "NodeConditionChange";
        break;
      case SCHEDHOST_ACTION_UPDATE_NODE_ANNOTATION:
        label = "NodeAnnotationChange";
        break;
      default:
        throw std::invalid_argument("node_update: action " + std::to_string(action) +
                                    " is not one SCHEDHOST_ACTION_UPDATE_NODE_* bit");
    }
    FakeClusterEvent e = of("Node", action, label);
    e.old_node = std::move(old_node);
    e.new_node = std::move(new_node);
    return e;
  }
  // An assigned pod (one with a node name) added: "AssignedPodAdd" (Pod, Add).
  static FakeClusterEvent assigned_pod_add(FakePod pod) {
    FakeClusterEvent e = of("Pod", SCHEDHOST_ACTION_ADD, "AssignedPodAdd");
    e.new_pod = std::move(pod);
    return e;
  }
  // "AssignedPodUpdate" (Pod, Update: a pod update carries all of Update's bits).
  static FakeClusterEvent assigned_pod_update(FakePod old_pod, FakePod new_pod) {
    FakeClusterEvent e = of("Pod", SCHEDHOST_ACTION_UPDATE, "AssignedPodUpdate");
    e.old_pod = std::move(old_pod);
    e.new_pod = std::move(new_pod);
    return e;
  }
  // "AssignedPodDelete" (Pod, Delete).
  static FakeClusterEvent assigned_pod_delete(FakePod pod) {
    FakeClusterEvent e = of("Pod", SCHEDHOST_ACTION_DELETE, "AssignedPodDelete");
    e.old_pod = std::move(pod);
    return e;
  }

 private:
  static FakeClusterEvent of(const char* resource, std::uint32_t actions, const char* label) {
    FakeClusterEvent e;
    e.resource = resource;
    e.actions = actions;
    e.label = label;
    return e;
  }
};

// One registration of events_to_register (register_event's arguments).
struct EventRegistration {
  std::string resource;
  std::uint32_t actions = 0;
  bool operator==(const EventRegistration& o) const {
    return resource == o.resource && actions == o.actions;
  }
  bool operator!=(const EventRegistration& o) const { return !(*this == o); }
};

inline std::ostream& operator<<(std::ostream& os, const EventRegistration& r) {
  return os << r.resource << "/" << r.actions;
}

// What a queueing hint answered: the raw value (SCHEDHOST_QUEUE_SKIP, SCHEDHOST_QUEUE, or anything
// else a plugin returns, which the host counts as QUEUE and logs once), and the reasons it added
// (a C++ hint that throws answers QUEUE with the exception's what() as its reason).
struct HintResult {
  std::int32_t answer = SCHEDHOST_QUEUE;
  std::vector<std::string> reasons;

  // Whether the host would try the pod again: anything but SKIP.
  bool queue() const { return answer != SCHEDHOST_QUEUE_SKIP; }
  std::string message() const {
    std::string out;
    for (const std::string& r : reasons)
      out += (out.empty() ? "" : ", ") + r;
    return out;
  }
};

inline std::ostream& operator<<(std::ostream& os, const HintResult& r) {
  os << (r.answer == SCHEDHOST_QUEUE_SKIP ? "Skip"
         : r.answer == SCHEDHOST_QUEUE    ? "Queue"
                                          : "answer " + std::to_string(r.answer));
  if (!r.reasons.empty()) os << " [" << r.message() << "]";
  return os;
}

}  // namespace schedhost::testing
