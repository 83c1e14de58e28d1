// VolumeZone: upstream's PreFilter + Filter (kube-scheduler v1.35).
//
// A pod's bound PersistentVolumes (reached through its persistentVolumeClaim volumes and their
// claims' spec.volumeName) may carry zone and region labels: failure-domain.beta.kubernetes.io/
// zone, failure-domain.beta.kubernetes.io/region, topology.kubernetes.io/zone and
// topology.kubernetes.io/region. A label's value is a set of zones joined by "__" (each one
// trimmed of spaces); a value with an empty element is ignored.
//
// PreFilter collects (PV, label key, value set) for every such label of every bound PV, in that
// label order, into the CycleState ("PreFilterVolumeZone"); Skip when there is none. Claims are
// looked up in the pod's namespace. UnschedulableAndUnresolvable, as upstream words them:
//   PersistentVolumeClaim had no name                     (claimName "")
//   persistentvolumeclaim "<claim>" not found
//   PersistentVolumeClaim had no pv name and storageClass name   (unbound, no class)
//   storageclass.storage.k8s.io "<class>" not found
//   VolumeBindingMode not set for StorageClass "<class>"
//   PersistentVolume had no name                          (unbound, class not WaitForFirstConsumer)
//   persistentvolume "<pv>" not found
// An unbound claim of a WaitForFirstConsumer class is left to VolumeBinding. The class is the
// annotation volume.beta.kubernetes.io/storage-class when present, else spec.storageClassName.
// Filter: a pod without volumes, or a node with none of the four labels, passes. Otherwise every
//   collected key must be on the node (a beta key may be met by the node's GA key, not the other
//   way round) with a value in its set, else UnschedulableAndUnresolvable
//   "node(s) had no available volume zone". Without the PreFilter state Filter collects itself.
// EnqueueExtensions (queueing hints on): StorageClass add (queues for a WaitForFirstConsumer
//   class), Node add and label update (no hint), PersistentVolumeClaim add/update (queues for a
//   claim of the pod, in its namespace), PersistentVolume add/update (queues for an add, or an
//   update that changed the PV's zone labels as parsed).
// SignPod: the pod's volume sources other than configMap and secret (upstream's VolumesSigner).
// No args.
#include <schedhost/k8s/signers.hpp>
#include <schedhost/k8s/validation.hpp>
#include <schedhost/plugin.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace {

using schedhost::Status;
using schedhost::k8s::go_quote;

constexpr std::string_view kPreFilterStateKey = "PreFilterVolumeZone";
constexpr const char* kErrReasonConflict = "node(s) had no available volume zone";
constexpr std::string_view kBetaZone = "failure-domain.beta.kubernetes.io/zone";
constexpr std::string_view kBetaRegion = "failure-domain.beta.kubernetes.io/region";
constexpr std::string_view kZone = "topology.kubernetes.io/zone";
constexpr std::string_view kRegion = "topology.kubernetes.io/region";
constexpr std::array<std::string_view, 4> kTopologyLabels = {kBetaZone, kBetaRegion, kZone,
                                                             kRegion};
constexpr std::string_view kBetaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class";

// One zone label of one PV: its key and the zones of its value (sorted, unique).
struct PvTopology {
  std::string pv_name;
  std::string key;
  std::vector<std::string> values;
  bool operator==(const PvTopology&) const = default;
};

struct PreFilterState {
  std::vector<PvTopology> topologies;
};

// A field of an object or pod as JSON; null when absent or unparsable.
template <class View>
nlohmann::json field(const View& v, std::string_view pointer) {
  const auto text = v.json(pointer);
  if (!text) return nullptr;
  return nlohmann::json::parse(*text, nullptr, false);
}

std::string string_field(const nlohmann::json& object, const char* name) {
  if (!object.is_object()) return {};
  const auto it = object.find(name);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool has_member(const nlohmann::json& object, const char* name) {
  if (!object.is_object()) return false;
  const auto it = object.find(name);
  return it != object.end() && !it->is_null();
}

// The pod's spec.volumes (an empty array when it has none).
nlohmann::json pod_volumes(const schedhost::Pod& pod) {
  nlohmann::json volumes = field(pod, "/spec/volumes");
  return volumes.is_array() ? volumes : nlohmann::json::array();
}

// The claim names of the pod's persistentVolumeClaim volumes, in order ("" for one without).
std::vector<std::string> claim_names(const schedhost::Pod& pod) {
  std::vector<std::string> names;
  for (const nlohmann::json& v : pod_volumes(pod)) {
    if (!has_member(v, "persistentVolumeClaim")) continue;
    names.push_back(string_field(v.at("persistentVolumeClaim"), "claimName"));
  }
  return names;
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// upstream LabelZonesToSet: the "__"-separated zones, trimmed; nullopt when one is empty.
std::optional<std::vector<std::string>> label_zones(std::string_view value) {
  std::vector<std::string> zones;
  while (true) {
    const std::size_t at = value.find("__");
    std::string_view zone = value.substr(0, at);
    while (!zone.empty() && is_space(zone.front()))
      zone.remove_prefix(1);
    while (!zone.empty() && is_space(zone.back()))
      zone.remove_suffix(1);
    if (zone.empty()) return std::nullopt;
    zones.emplace_back(zone);
    if (at == std::string_view::npos) break;
    value.remove_prefix(at + 2);
  }
  std::sort(zones.begin(), zones.end());
  zones.erase(std::unique(zones.begin(), zones.end()), zones.end());
  return zones;
}

// upstream getPVTopologies: the PV's zone labels in kTopologyLabels order.
std::vector<PvTopology> pv_topologies(const schedhost::Object& pv) {
  std::vector<PvTopology> out;
  for (const std::string_view key : kTopologyLabels) {
    const auto value = pv.label(key);
    if (!value) continue;
    auto zones = label_zones(*value);
    if (!zones) continue;  // upstream logs the parse error and ignores the label
    out.push_back({std::string(pv.name()), std::string(key), std::move(*zones)});
  }
  return out;
}

// The beta keys' GA names (other keys unchanged).
std::string_view ga_label(std::string_view key) {
  if (key == kBetaRegion) return kRegion;
  if (key == kBetaZone) return kZone;
  return key;
}

// upstream GetPersistentVolumeClaimClass: the beta annotation first, then spec.storageClassName.
std::string claim_class(const schedhost::Object& claim) {
  if (const auto annotation = claim.annotation(kBetaStorageClassAnnotation)) {
    return std::string(*annotation);
  }
  const nlohmann::json name = field(claim, "/spec/storageClassName");
  return name.is_string() ? name.get<std::string>() : std::string();
}

// upstream getPVbyPod: the topologies of the pod's bound PVs, or the status that stops it.
std::variant<std::vector<PvTopology>, Status> pod_topologies(const schedhost::Context& ctx,
                                                             const schedhost::Pod& pod) {
  std::vector<PvTopology> out;
  for (const std::string& claim_name : claim_names(pod)) {
    if (claim_name.empty()) {
      return Status::UnschedulableAndUnresolvable("PersistentVolumeClaim had no name");
    }
    const auto claim =
        ctx.object(schedhost::resource::kPersistentVolumeClaim, pod.namespace_name(), claim_name);
    if (!claim) {
      return Status::UnschedulableAndUnresolvable("persistentvolumeclaim " + go_quote(claim_name) +
                                                  " not found");
    }
    const nlohmann::json volume_name = field(*claim, "/spec/volumeName");
    const std::string pv_name = volume_name.is_string() ? volume_name.get<std::string>() : "";
    if (pv_name.empty()) {
      const std::string class_name = claim_class(*claim);
      if (class_name.empty()) {
        return Status::UnschedulableAndUnresolvable(
            "PersistentVolumeClaim had no pv name and storageClass name");
      }
      const auto storage_class = ctx.object(schedhost::resource::kStorageClass, "", class_name);
      if (!storage_class) {
        return Status::UnschedulableAndUnresolvable("storageclass.storage.k8s.io " +
                                                    go_quote(class_name) + " not found");
      }
      const nlohmann::json mode = field(*storage_class, "/volumeBindingMode");
      if (!mode.is_string()) {
        return Status::UnschedulableAndUnresolvable("VolumeBindingMode not set for StorageClass " +
                                                    go_quote(class_name));
      }
      if (mode.get<std::string>() == "WaitForFirstConsumer") continue;  // VolumeBinding's
      return Status::UnschedulableAndUnresolvable("PersistentVolume had no name");
    }
    const auto pv = ctx.object(schedhost::resource::kPersistentVolume, "", pv_name);
    if (!pv) {
      return Status::UnschedulableAndUnresolvable("persistentvolume " + go_quote(pv_name) +
                                                  " not found");
    }
    for (PvTopology& t : pv_topologies(*pv))
      out.push_back(std::move(t));
  }
  return out;
}

class VolumeZone {
 public:
  schedhost::Status SignPod(schedhost::Context&, const schedhost::Pod& pod,
                            schedhost::PodSignature& signature) const {
    schedhost::k8s::sign_volumes(pod, signature);
    return {};
  }

  // Upstream's EventsToRegister (v1.35, queueing hints on: no node taint update).
  void EventsToRegister(schedhost::EventRegistry& events) const {
    events.add(schedhost::resource::kStorageClass, schedhost::action::kAdd);
    events.add(schedhost::resource::kNode,
               schedhost::action::kAdd | schedhost::action::kUpdateNodeLabel);
    events.add(schedhost::resource::kPersistentVolumeClaim,
               schedhost::action::kAdd | schedhost::action::kUpdate);
    events.add(schedhost::resource::kPersistentVolume,
               schedhost::action::kAdd | schedhost::action::kUpdate);
  }

  schedhost::QueueingHint IsSchedulableAfter(const schedhost::Pod& pod,
                                             const schedhost::ClusterEvent& event) const {
    using schedhost::QueueingHint;
    namespace resource = schedhost::resource;
    if (event.resource == resource::kStorageClass) {
      // upstream isSchedulableAfterStorageClassAdded
      if (!event.new_object) return QueueingHint::kQueue;
      const nlohmann::json mode = field(*event.new_object, "/volumeBindingMode");
      return mode.is_string() && mode.get<std::string>() == "WaitForFirstConsumer"
                 ? QueueingHint::kQueue
                 : QueueingHint::kSkip;
    }
    if (event.resource == resource::kPersistentVolumeClaim) {
      // upstream isSchedulableAfterPersistentVolumeClaimChange
      if (!event.new_object || event.new_object->namespace_name() != pod.namespace_name()) {
        return QueueingHint::kSkip;
      }
      for (const std::string& name : claim_names(pod)) {
        if (name == event.new_object->name()) return QueueingHint::kQueue;
      }
      return QueueingHint::kSkip;
    }
    if (event.resource == resource::kPersistentVolume) {
      // upstream isSchedulableAfterPersistentVolumeChange
      if (!event.old_object || !event.new_object) return QueueingHint::kQueue;
      return pv_topologies(*event.old_object) == pv_topologies(*event.new_object)
                 ? QueueingHint::kSkip
                 : QueueingHint::kQueue;
    }
    return QueueingHint::kQueue;  // Node add and label update: no hint
  }

  schedhost::Status PreFilter(schedhost::Context& ctx, schedhost::CycleState& state,
                              const schedhost::Pod& pod, schedhost::PreFilterResult&) const {
    auto found = pod_topologies(ctx, pod);
    if (Status* s = std::get_if<Status>(&found)) return std::move(*s);
    auto& topologies = std::get<std::vector<PvTopology>>(found);
    if (topologies.empty()) return Status::Skip();
    state.emplace<PreFilterState>(kPreFilterStateKey, PreFilterState{std::move(topologies)});
    return {};
  }

  schedhost::Status Filter(schedhost::Context& ctx, const schedhost::CycleState& state,
                           const schedhost::Pod& pod, const schedhost::NodeInfo& node) const {
    const auto volumes = pod.json("/spec/volumes");
    if (!volumes || *volumes == "[]" || *volumes == "null") return {};
    std::vector<PvTopology> computed;
    const std::vector<PvTopology>* topologies = nullptr;
    if (const PreFilterState* s = state.read<PreFilterState>(kPreFilterStateKey)) {
      topologies = &s->topologies;
    } else {  // PreFilter did not run: collect here, per node, as upstream falls back
      auto found = pod_topologies(ctx, pod);
      if (Status* st = std::get_if<Status>(&found)) return std::move(*st);
      computed = std::move(std::get<std::vector<PvTopology>>(found));
      topologies = &computed;
    }
    const bool zoned = std::any_of(kTopologyLabels.begin(), kTopologyLabels.end(),
                                   [&node](std::string_view key) { return node.label(key); });
    if (!zoned) return {};  // a node without zone labels takes any volume
    for (const PvTopology& t : *topologies) {
      auto value = node.label(t.key);
      if (!value) value = node.label(ga_label(t.key));
      if (!value || !std::binary_search(t.values.begin(), t.values.end(), *value)) {
        return Status::UnschedulableAndUnresolvable(kErrReasonConflict);
      }
    }
    return {};
  }
};

}  // namespace

SCHEDHOST_LIBRARY("volume-zone", "1.0.0",
                  schedhost::plugin<VolumeZone, schedhost::hook::PreFilter, schedhost::hook::Filter,
                                    schedhost::hook::EnqueueExtensions, schedhost::hook::SignPod>(
                      "VolumeZone",
                      "Keeps pods on nodes in the zones and regions of their bound "
                      "PersistentVolumes"))
