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
#include <schedhost/detail/action_names.hpp>
#include <schedhost/testing/fake_objects.hpp>

#include <nlohmann/json.hpp>

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
  std::string label;                      // "NodeAdd", "NodeUpdateNodeLabel", "AssignedPodDelete"
  std::optional<FakePod> old_pod;         // pod update, delete
  std::optional<FakePod> new_pod;         // pod add, update
  std::optional<FakeEventNode> old_node;  // node update: the Node as it was; node delete
  std::optional<FakeEventNode> new_node;  // node add, update
  std::optional<nlohmann::json> old_object;  // other resources (1.8): update, delete
  std::optional<nlohmann::json> new_object;  // other resources (1.8): add, update

  // An event on another resource (ABI 1.8): a PersistentVolume added, a StorageClass updated...
  // resource as abi.h names it, action ADD, DELETE or SCHEDHOST_ACTION_ANY_UPDATE
  // (upstream sends other resources' updates as Update), objects as kubectl prints them (null
  // where the action has none).
  static FakeClusterEvent object_event(std::string resource, std::uint32_t action,
                                       nlohmann::json old_object, nlohmann::json new_object) {
    if (action != SCHEDHOST_ACTION_ADD && action != SCHEDHOST_ACTION_DELETE &&
        action != SCHEDHOST_ACTION_ANY_UPDATE) {
      throw std::invalid_argument("object event: action " + std::to_string(action) +
                                  " is not ADD, DELETE or ANY_UPDATE");
    }
    // Labelled as upstream's ClusterEvent.Label(): "storage.k8s.io/StorageClassAdd".
    FakeClusterEvent e = of(resource.c_str(), action, resource.c_str());
    if (!old_object.is_null()) e.old_object = std::move(old_object);
    if (!new_object.is_null()) e.new_object = std::move(new_object);
    return e;
  }

  // Node add: "NodeAdd" (Node, Add).
  static FakeClusterEvent node_add(FakeEventNode node) {
    FakeClusterEvent e = of("Node", SCHEDHOST_ACTION_ADD, "Node");
    e.new_node = std::move(node);
    return e;
  }
  // Node update that changed one property, `action`: one SCHEDHOST_ACTION_UPDATE_NODE_* bit
  // ("NodeUpdateNodeLabel", ...; the host sends one such event per changed property); throws
  // std::invalid_argument for other bits.
  static FakeClusterEvent node_update(std::uint32_t action, FakeEventNode old_node,
                                      FakeEventNode new_node) {
    if (!is_one_of(action, SCHEDHOST_ACTION_UPDATE_NODE_ALLOCATABLE,
                   SCHEDHOST_ACTION_UPDATE_NODE_DECLARED_FEATURE)) {
      throw std::invalid_argument("node_update: action " + std::to_string(action) +
                                  " is not one SCHEDHOST_ACTION_UPDATE_NODE_* bit");
    }
    FakeClusterEvent e = of("Node", action, "Node");
    e.old_node = std::move(old_node);
    e.new_node = std::move(new_node);
    return e;
  }
  // Node deleted: "NodeDelete" (Node, Delete); the node is the old one.
  static FakeClusterEvent node_delete(FakeEventNode node) {
    FakeClusterEvent e = of("Node", SCHEDHOST_ACTION_DELETE, "Node");
    e.old_node = std::move(node);
    return e;
  }
  // An assigned pod (one with a node name) added: "AssignedPodAdd" (Pod, Add).
  static FakeClusterEvent assigned_pod_add(FakePod pod) {
    FakeClusterEvent e = of("Pod", SCHEDHOST_ACTION_ADD, "AssignedPod");
    e.new_pod = std::move(pod);
    return e;
  }
  // An assigned pod updated: `action` is the one SCHEDHOST_ACTION_UPDATE_POD_* bit that
  // changed ("AssignedPodUpdatePodLabel", ...; the host sends one event per changed property), or
  // SCHEDHOST_ACTION_ANY_UPDATE when none of them did ("AssignedPodUpdate").
  static FakeClusterEvent assigned_pod_update(FakePod old_pod, FakePod new_pod,
                                              std::uint32_t action = SCHEDHOST_ACTION_ANY_UPDATE) {
    return pod_update("AssignedPod", action, std::move(old_pod), std::move(new_pod));
  }
  // The pending pod the hint is asked about, updated ("UnschedulablePodUpdatePodToleration",
  // ...): new_pod is the pod as updated. `action` as for assigned_pod_update.
  static FakeClusterEvent unscheduled_pod_update(FakePod old_pod, FakePod new_pod,
                                                 std::uint32_t action) {
    return pod_update("UnschedulablePod", action, std::move(old_pod), std::move(new_pod));
  }
  // "AssignedPodDelete" (Pod, Delete).
  static FakeClusterEvent assigned_pod_delete(FakePod pod) {
    FakeClusterEvent e = of("Pod", SCHEDHOST_ACTION_DELETE, "AssignedPod");
    e.old_pod = std::move(pod);
    return e;
  }

 private:
  // `label_resource` is the resource as upstream's labels name it ("AssignedPod").
  static FakeClusterEvent of(const char* resource, std::uint32_t actions,
                             const char* label_resource) {
    FakeClusterEvent e;
    e.resource = resource;
    e.actions = actions;
    e.label = schedhost::detail::event_label(label_resource, actions);
    return e;
  }
  static bool is_one_of(std::uint32_t action, std::uint32_t lowest, std::uint32_t highest) {
    return action >= lowest && action <= highest && (action & (action - 1)) == 0;
  }
  static FakeClusterEvent pod_update(const char* label_resource, std::uint32_t action,
                                     FakePod old_pod, FakePod new_pod) {
    if (action != SCHEDHOST_ACTION_ANY_UPDATE &&
        !is_one_of(action, SCHEDHOST_ACTION_UPDATE_POD_LABEL,
                   SCHEDHOST_ACTION_UPDATE_POD_GENERATED_RESOURCE_CLAIM)) {
      throw std::invalid_argument("pod update: action " + std::to_string(action) +
                                  " is neither one SCHEDHOST_ACTION_UPDATE_POD_* bit nor "
                                  "SCHEDHOST_ACTION_ANY_UPDATE");
    }
    FakeClusterEvent e = of("Pod", action, label_resource);
    e.old_pod = std::move(old_pod);
    e.new_pod = std::move(new_pod);
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
