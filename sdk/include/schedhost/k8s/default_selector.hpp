// schedhost/k8s/default_selector.hpp - the label selector upstream deduces for a pod from the
// objects that select it (kube-scheduler's helper.DefaultSelector and helper.GetPodServices,
// pkg/scheduler/framework/plugins/helper/spread.go), over the snapshot's objects (ABI 1.8).
// PodTopologySpread uses it for its default constraints; any plugin may.
//
//   const k8s::LabelSelector s = k8s::default_selector(ctx, pod);  // PreFilter, PreScore, ...
//   if (s.matches_everything()) ...  // nothing selects the pod (upstream's selector.Empty())
//
// What goes into it, in upstream's order:
// - every Service of the pod's namespace whose spec.selector is set and matches the pod's labels
//   (a missing or null selector, Go's nil map, selects nothing; {} selects every pod and adds
//   nothing): their selectors are merged into one label set;
// - the pod's controller (the ownerReference with controller: true), by apiVersion and kind,
//   looked up by name in the pod's namespace (a missing object adds nothing):
//   v1 ReplicationController: its spec.selector map is merged into the label set;
//   apps/v1 ReplicaSet and apps/v1 StatefulSet: the requirements of their spec.selector
//   (metav1.LabelSelector: null adds nothing, {} adds nothing, one that does not parse adds
//   nothing) are ANDed to the set's.
// The result never matches nothing: with no label and no requirement it matches everything.
//
// Needs a Context with a snapshot (PreFilter, Filter, PreScore, Score, PostFilter, ...): the
// calls without one (queueing hints, SignPod) see no objects, so the selector would be empty.
//
// Header-only C++17; depends on the C++ wrapper, nlohmann/json and the standard library.
#pragma once

#include <schedhost/cluster_event.hpp>
#include <schedhost/context.hpp>
#include <schedhost/k8s/label_selector.hpp>
#include <schedhost/objects.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedhost::k8s {

// A parsed apiVersion (schema.GroupVersion).
struct GroupVersion {
  std::string group;
  std::string version;
  bool operator==(const GroupVersion& o) const { return group == o.group && version == o.version; }
};

// schema.ParseGroupVersion: "" and "/" are the empty GroupVersion, "v1" is the core group's
// version, "apps/v1" is group and version; more than one slash does not parse (nullopt).
inline std::optional<GroupVersion> parse_group_version(std::string_view gv) {
  if (gv.empty() || gv == "/") return GroupVersion{};
  const std::size_t slash = gv.find('/');
  if (slash == std::string_view::npos) return GroupVersion{"", std::string(gv)};
  if (gv.find('/', slash + 1) != std::string_view::npos) return std::nullopt;
  return GroupVersion{std::string(gv.substr(0, slash)), std::string(gv.substr(slash + 1))};
}

// A map[string]string field of an object as Go decodes it: nullopt for nil (absent, null, or a
// value that is not a map of strings, which would not have decoded), else the map (maybe empty).
inline std::optional<std::map<std::string, std::string>> string_map_field(
    const Object& object, std::string_view pointer) {
  const std::optional<std::string_view> text = object.json(pointer);
  if (!text) return std::nullopt;
  const nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  std::map<std::string, std::string> out;
  for (const auto& item : j.items()) {
    if (!item.value().is_string()) return std::nullopt;
    out.emplace(item.key(), item.value().get<std::string>());
  }
  return out;
}

// Whether every key of the set is a label of the pod with that value (labels.Set(...)
// .AsSelectorPreValidated().Matches: an empty set matches every pod).
inline bool set_matches_pod(const std::map<std::string, std::string>& set, const Pod& pod) {
  for (const auto& [key, value] : set) {
    const std::optional<std::string_view> label = pod.label(key);
    if (!label || *label != value) return false;
  }
  return true;
}

// upstream GetPodServices: the Services of the pod's namespace (in name order) whose selector is
// set and matches the pod's labels.
inline std::vector<Object> pod_services(const Context& ctx, const Pod& pod) {
  std::vector<Object> out;
  for (const Object service : ctx.objects(resource::kService, pod.namespace_name())) {
    const auto selector = string_map_field(service, "/spec/selector");
    if (selector && set_matches_pod(*selector, pod)) out.push_back(service);
  }
  return out;
}

// upstream DefaultSelector: the selector deduced from the Services, ReplicationControllers,
// ReplicaSets and StatefulSets selecting the pod (see the top of this file).
inline LabelSelector default_selector(const Context& ctx, const Pod& pod) {
  // Objects selecting one pod cannot disagree on a label's value; later ones win, as labels.Merge.
  std::map<std::string, std::string> set;
  for (const Object service : ctx.objects(resource::kService, pod.namespace_name())) {
    std::optional<std::map<std::string, std::string>> selector =
        string_map_field(service, "/spec/selector");
    if (!selector || !set_matches_pod(*selector, pod)) continue;
    for (auto& [key, value] : *selector)
      set[key] = std::move(value);
  }
  LabelSelector selector = LabelSelector::from_set(set);

  const std::optional<OwnerReference> owner = pod.controller();
  if (!owner) return selector;
  const std::optional<GroupVersion> gv = parse_group_version(owner->api_version);
  if (!gv) return selector;
  const std::string_view ns = pod.namespace_name();
  if (*gv == GroupVersion{"", "v1"} && owner->kind == "ReplicationController") {
    if (const auto rc = ctx.object(resource::kReplicationController, ns, owner->name)) {
      if (auto rc_selector = string_map_field(*rc, "/spec/selector")) {
        for (auto& [key, value] : *rc_selector)
          set[key] = std::move(value);
      }
      selector = LabelSelector::from_set(set);
    }
    return selector;
  }
  std::string_view workload;
  if (*gv == GroupVersion{"apps", "v1"} && owner->kind == "ReplicaSet") {
    workload = resource::kReplicaSet;
  } else if (*gv == GroupVersion{"apps", "v1"} && owner->kind == "StatefulSet") {
    workload = resource::kStatefulSet;
  } else {
    return selector;  // not a controller upstream knows
  }
  const auto object = ctx.object(workload, ns, owner->name);
  if (!object) return selector;
  const std::optional<std::string_view> text = object->json("/spec/selector");
  if (!text) return selector;  // nil: matches nothing, so it has no requirements to add
  const nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded()) return selector;
  std::vector<FieldError> errors;
  const LabelSelector other = LabelSelector::parse(j, FieldPath(), errors);
  if (!errors.empty() || other.matches_nothing()) return selector;
  for (const Requirement& r : other.requirements())
    selector.add(r);
  return selector;
}

}  // namespace schedhost::k8s
