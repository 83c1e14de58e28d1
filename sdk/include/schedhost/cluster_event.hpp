// schedhost/cluster_event.hpp - EnqueueExtensions for C++ plugins (ABI 1.3): the cluster events
// that may make a pod the plugin rejected schedulable, and an optional queueing hint.
//
//   class GpuFilter {
//    public:
//     void EventsToRegister(schedhost::EventRegistry& events) {
//       events.add(schedhost::resource::kNode,
//                  schedhost::action::kAdd | schedhost::action::kUpdateNodeLabel);
//     }
//     // Optional: asked for each registered event while a pod GpuFilter rejected waits.
//     schedhost::QueueingHint IsSchedulableAfter(const schedhost::Pod& pod,
//                                                const schedhost::ClusterEvent& event) {
//       if (event.new_node && event.new_node->label("gpu")) return schedhost::QueueingHint::kQueue;
//       return schedhost::QueueingHint::kSkip;
//     }
//     ...
//   };
//   schedhost::plugin<GpuFilter, schedhost::hook::Filter, schedhost::hook::EnqueueExtensions>(...)
//
// A plugin without EventsToRegister has its rejected pods moved by every event (the safe
// default); one that registers nothing has them retried only by the periodic flushes.
#pragma once

#include <schedhost/abi.h>
#include <schedhost/detail/host_table.hpp>
#include <schedhost/objects.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace schedhost {

// What happened to an object: SCHEDHOST_ACTION_* bits, combined with |.
namespace action {
inline constexpr std::uint32_t kAdd = SCHEDHOST_ACTION_ADD;
inline constexpr std::uint32_t kDelete = SCHEDHOST_ACTION_DELETE;
inline constexpr std::uint32_t kUpdateNodeAllocatable = SCHEDHOST_ACTION_UPDATE_NODE_ALLOCATABLE;
inline constexpr std::uint32_t kUpdateNodeLabel = SCHEDHOST_ACTION_UPDATE_NODE_LABEL;
inline constexpr std::uint32_t kUpdateNodeTaint = SCHEDHOST_ACTION_UPDATE_NODE_TAINT;
inline constexpr std::uint32_t kUpdateNodeCondition = SCHEDHOST_ACTION_UPDATE_NODE_CONDITION;
inline constexpr std::uint32_t kUpdateNodeAnnotation = SCHEDHOST_ACTION_UPDATE_NODE_ANNOTATION;
inline constexpr std::uint32_t kUpdateNodeDeclaredFeature =
    SCHEDHOST_ACTION_UPDATE_NODE_DECLARED_FEATURE;
inline constexpr std::uint32_t kUpdatePodLabel = SCHEDHOST_ACTION_UPDATE_POD_LABEL;
inline constexpr std::uint32_t kUpdatePodScaleDown = SCHEDHOST_ACTION_UPDATE_POD_SCALE_DOWN;
inline constexpr std::uint32_t kUpdatePodToleration = SCHEDHOST_ACTION_UPDATE_POD_TOLERATION;
inline constexpr std::uint32_t kUpdatePodSchedulingGatesEliminated =
    SCHEDHOST_ACTION_UPDATE_POD_SCHEDULING_GATES_ELIMINATED;
inline constexpr std::uint32_t kUpdatePodGeneratedResourceClaim =
    SCHEDHOST_ACTION_UPDATE_POD_GENERATED_RESOURCE_CLAIM;
// Upstream v1.35's Update and All: every update bit, every bit. (SCHEDHOST_ACTION_UPDATE and
// SCHEDHOST_ACTION_ALL are 1.3's narrower values, kept for C plugins built before 1.7.)
inline constexpr std::uint32_t kUpdate = SCHEDHOST_ACTION_ANY_UPDATE;
inline constexpr std::uint32_t kAll = SCHEDHOST_ACTION_ANY;
}  // namespace action

// Upstream's names of the resources events are about ("<plural>.<version>.<group>" for others),
// which are also the names object lookups take (Context::objects, ABI 1.8).
namespace resource {
inline constexpr std::string_view kPod = "Pod";
inline constexpr std::string_view kNode = "Node";
inline constexpr std::string_view kPersistentVolume = "PersistentVolume";
inline constexpr std::string_view kPersistentVolumeClaim = "PersistentVolumeClaim";
inline constexpr std::string_view kStorageClass = "storage.k8s.io/StorageClass";
inline constexpr std::string_view kCSINode = "storage.k8s.io/CSINode";
inline constexpr std::string_view kCSIDriver = "storage.k8s.io/CSIDriver";
inline constexpr std::string_view kCSIStorageCapacity = "storage.k8s.io/CSIStorageCapacity";
// Kinds the snapshot holds for lookups (Context::objects) but that upstream sends no event for.
inline constexpr std::string_view kService = "Service";
inline constexpr std::string_view kReplicationController = "ReplicationController";
inline constexpr std::string_view kReplicaSet = "apps/ReplicaSet";
inline constexpr std::string_view kStatefulSet = "apps/StatefulSet";
inline constexpr std::string_view kResourceClaim = "resource.k8s.io/ResourceClaim";
inline constexpr std::string_view kResourceSlice = "resource.k8s.io/ResourceSlice";
inline constexpr std::string_view kDeviceClass = "resource.k8s.io/DeviceClass";
inline constexpr std::string_view kAny = "*";
}  // namespace resource

enum class QueueingHint : std::int32_t { kSkip = SCHEDHOST_QUEUE_SKIP, kQueue = SCHEDHOST_QUEUE };

// Where EventsToRegister puts its registrations.
class EventRegistry {
 public:
  EventRegistry(const schedhost_host_api_t* api, schedhost_call_t* call) : api_(api), call_(call) {}
  // Pods this plugin rejected may fit after `actions` (action:: bits) on `resource`.
  void add(std::string_view resource_name, std::uint32_t actions) {
    if (auto fn = detail::host_fn(api_, &schedhost_host_api_t::register_event)) {
      fn(call_, to_str(resource_name), actions);
    }
  }

 private:
  const schedhost_host_api_t* api_;
  schedhost_call_t* call_;
};

// One cluster event, as a queueing hint sees it. Views are valid until the hint returns.
struct ClusterEvent {
  std::string_view resource;
  std::uint32_t actions = 0;
  std::string_view label;      // upstream's: "NodeAdd", "NodeUpdateNodeLabel", "AssignedPodDelete"
  std::optional<Pod> old_pod;  // pod update, delete
  std::optional<Pod> new_pod;  // pod add, update
  std::optional<NodeInfo> old_node;  // node update: the Node as it was, without its pods
  std::optional<NodeInfo> new_node;  // node add, update: with its pods
  std::optional<Object> old_object;  // other resources' update, delete (ABI 1.8)
  std::optional<Object> new_object;  // other resources' add, update (ABI 1.8)

  // Whether this is one of `any_of` (action:: bits) on `resource_name`.
  bool is(std::string_view resource_name, std::uint32_t any_of) const {
    return resource == resource_name && (actions & any_of) != 0;
  }
};

namespace detail {

inline ClusterEvent to_event(const schedhost_host_api_t* api, const schedhost_cluster_event_t& e) {
  ClusterEvent out;
  out.resource = to_view(e.resource);
  out.actions = e.actions;
  out.label = to_view(e.label);
  if (e.old_pod != nullptr) out.old_pod.emplace(api, e.old_pod);
  if (e.new_pod != nullptr) out.new_pod.emplace(api, e.new_pod);
  if (e.old_node != nullptr) out.old_node.emplace(api, e.old_node);
  if (e.new_node != nullptr) out.new_node.emplace(api, e.new_node);
  // Fields a host older than 1.8 did not fill in lie past its struct_size.
  const auto has = [&e](std::size_t end) { return end <= e.struct_size; };
  if (has(offsetof(schedhost_cluster_event_t, old_object) + sizeof(void*)) &&
      e.old_object != nullptr) {
    out.old_object.emplace(api, e.old_object);
  }
  if (has(offsetof(schedhost_cluster_event_t, new_object) + sizeof(void*)) &&
      e.new_object != nullptr) {
    out.new_object.emplace(api, e.new_object);
  }
  return out;
}

}  // namespace detail
}  // namespace schedhost
