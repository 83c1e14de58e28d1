// VolumeRestrictions: upstream's PreFilter (+ AddPod/RemovePod) + Filter (kube-scheduler v1.35).
//
// Disk conflicts: a pod's gcePersistentDisk, awsElasticBlockStore, iscsi and rbd volumes against
// the volumes of the pods already on a node. Same GCE PD pdName, unless both mounts are
// read-only; same AWS EBS volumeID (read-only or not); same ISCSI iqn, unless both are read-only;
// RBD volumes sharing a monitor, with the same pool ("rbd" when unset, as the API server
// defaults it) and image, unless both are read-only:
//   Filter: Unschedulable "node(s) had no available disk".
// ReadWriteOncePod (GA in v1.35): PreFilter looks up every persistentVolumeClaim volume's claim
//   in the pod's namespace (UnschedulableAndUnresolvable `persistentvolumeclaim "<claim>" not
//   found` when one is missing), keeps the names of the claims whose spec.accessModes hold
//   ReadWriteOncePod, and counts those some pod on the snapshot's nodes already mounts
//   (ctx.pvc_users, upstream's usedPVCSet). AddPod/RemovePod add or take away the pod's volumes
//   naming one of those claims (by name only, as upstream). Filter, when the count is above 0:
//   Unschedulable "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access
//   mode already in-use by another pod".
// PreFilter is Skip when the pod has none of the four disk kinds and the count is 0. The state
// is "PreFilterVolumeRestrictions"; Filter (after the disk check), AddPod and RemovePod without
// it are an Error: cannot read "PreFilterVolumeRestrictions" from cycleState.
// EnqueueExtensions (queueing hints on): Pod delete (queues when the deleted pod, of the same
//   namespace, had a conflicting disk or a claim of the same name), Node add (no hint),
//   PersistentVolumeClaim add (queues for a claim of the pod, in its namespace).
// SignPod: the pod's volume sources other than configMap and secret (upstream's VolumesSigner).
// No args.
#include <schedhost/k8s/signers.hpp>
#include <schedhost/k8s/validation.hpp>
#include <schedhost/plugin.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

using schedhost::Status;
using schedhost::k8s::go_quote;

constexpr std::string_view kPreFilterStateKey = "PreFilterVolumeRestrictions";
constexpr const char* kErrReasonDiskConflict = "node(s) had no available disk";
constexpr const char* kErrReasonReadWriteOncePodConflict =
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already "
    "in-use by another pod";

template <class View>
nlohmann::json field(const View& v, std::string_view pointer) {
  const auto text = v.json(pointer);
  if (!text) return nullptr;
  return nlohmann::json::parse(*text, nullptr, false);
}

// The member `name` of an object when it is present and not null; nullptr otherwise.
const nlohmann::json* member(const nlohmann::json& object, const char* name) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(name);
  return it != object.end() && !it->is_null() ? &*it : nullptr;
}

std::string string_field(const nlohmann::json* object, const char* name) {
  const nlohmann::json* v = object == nullptr ? nullptr : member(*object, name);
  return v != nullptr && v->is_string() ? v->get<std::string>() : std::string();
}

bool read_only(const nlohmann::json* source) {
  const nlohmann::json* v = source == nullptr ? nullptr : member(*source, "readOnly");
  return v != nullptr && v->is_boolean() && v->get<bool>();
}

nlohmann::json pod_volumes(const schedhost::Pod& pod) {
  nlohmann::json volumes = field(pod, "/spec/volumes");
  return volumes.is_array() ? volumes : nlohmann::json::array();
}

// The claim name of a persistentVolumeClaim volume; nullptr for other volumes.
const nlohmann::json* claim_of(const nlohmann::json& volume) {
  return member(volume, "persistentVolumeClaim");
}

// upstream needsRestrictionsCheck: the volume kinds that can conflict on a node.
bool needs_restrictions_check(const nlohmann::json& volume) {
  return member(volume, "gcePersistentDisk") != nullptr ||
         member(volume, "awsElasticBlockStore") != nullptr || member(volume, "rbd") != nullptr ||
         member(volume, "iscsi") != nullptr;
}

std::vector<std::string> strings(const nlohmann::json* source, const char* name) {
  std::vector<std::string> out;
  const nlohmann::json* v = source == nullptr ? nullptr : member(*source, name);
  if (v == nullptr || !v->is_array()) return out;
  for (const nlohmann::json& s : *v) {
    if (s.is_string()) out.push_back(s.get<std::string>());
  }
  return out;
}

bool have_overlap(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  return std::any_of(a.begin(), a.end(), [&b](const std::string& s) {
    return std::find(b.begin(), b.end(), s) != b.end();
  });
}

// An RBD volume's pool, defaulted as the API server does.
std::string rbd_pool(const nlohmann::json* rbd) {
  std::string pool = string_field(rbd, "pool");
  return pool.empty() ? "rbd" : pool;
}

// upstream isVolumeConflict: whether `volume` conflicts with one of `existing` (a pod's volumes).
bool is_volume_conflict(const nlohmann::json& volume, const nlohmann::json& existing) {
  const nlohmann::json* gce = member(volume, "gcePersistentDisk");
  const nlohmann::json* ebs = member(volume, "awsElasticBlockStore");
  const nlohmann::json* iscsi = member(volume, "iscsi");
  const nlohmann::json* rbd = member(volume, "rbd");
  for (const nlohmann::json& other : existing) {
    if (const nlohmann::json* o = member(other, "gcePersistentDisk"); gce && o) {
      if (string_field(gce, "pdName") == string_field(o, "pdName") &&
          !(read_only(gce) && read_only(o))) {
        return true;
      }
    }
    if (const nlohmann::json* o = member(other, "awsElasticBlockStore"); ebs && o) {
      if (string_field(ebs, "volumeID") == string_field(o, "volumeID")) return true;
    }
    if (const nlohmann::json* o = member(other, "iscsi"); iscsi && o) {
      if (string_field(iscsi, "iqn") == string_field(o, "iqn") &&
          !(read_only(iscsi) && read_only(o))) {
        return true;
      }
    }
    if (const nlohmann::json* o = member(other, "rbd"); rbd && o) {
      if (have_overlap(strings(rbd, "monitors"), strings(o, "monitors")) &&
          rbd_pool(rbd) == rbd_pool(o) && string_field(rbd, "image") == string_field(o, "image") &&
          !(read_only(rbd) && read_only(o))) {
        return true;
      }
    }
  }
  return false;
}

// The pod's volumes of the four disk kinds.
nlohmann::json checked_volumes(const nlohmann::json& volumes) {
  nlohmann::json out = nlohmann::json::array();
  for (const nlohmann::json& v : volumes) {
    if (needs_restrictions_check(v)) out.push_back(v);
  }
  return out;
}

// upstream satisfyVolumeConflicts, over the pods' volumes (each pod's as one array).
template <class PodVolumes>
bool satisfies_volume_conflicts(const nlohmann::json& checked, PodVolumes&& each_pod) {
  if (checked.empty()) return true;
  return each_pod([&checked](const nlohmann::json& existing) {
    return std::none_of(checked.begin(), checked.end(), [&existing](const nlohmann::json& v) {
      return is_volume_conflict(v, existing);
    });
  });
}

struct PreFilterState {
  std::vector<std::string> read_write_once_pod_claims;  // sorted, unique
  std::int64_t conflicting_pvc_ref_count = 0;
  nlohmann::json checked_volumes;  // the pod's volumes of the four disk kinds

  // How many of `pod`'s volumes name one of the ReadWriteOncePod claims.
  std::int64_t conflicts_of(const schedhost::Pod& pod) const {
    std::int64_t n = 0;
    for (const nlohmann::json& v : pod_volumes(pod)) {
      const nlohmann::json* claim = claim_of(v);
      if (claim == nullptr) continue;
      if (std::binary_search(read_write_once_pod_claims.begin(), read_write_once_pod_claims.end(),
                             string_field(claim, "claimName"))) {
        ++n;
      }
    }
    return n;
  }
};

Status missing_state() {
  return Status::Error("cannot read " + go_quote(kPreFilterStateKey) + " from cycleState");
}

class VolumeRestrictions {
 public:
  schedhost::Status SignPod(schedhost::Context&, const schedhost::Pod& pod,
                            schedhost::PodSignature& signature) const {
    schedhost::k8s::sign_volumes(pod, signature);
    return {};
  }

  // Upstream's EventsToRegister (v1.35, queueing hints on: a node add only).
  void EventsToRegister(schedhost::EventRegistry& events) const {
    events.add(schedhost::resource::kPod, schedhost::action::kDelete);
    events.add(schedhost::resource::kNode, schedhost::action::kAdd);
    events.add(schedhost::resource::kPersistentVolumeClaim, schedhost::action::kAdd);
  }

  schedhost::QueueingHint IsSchedulableAfter(const schedhost::Pod& pod,
                                             const schedhost::ClusterEvent& event) const {
    using schedhost::QueueingHint;
    if (event.resource == schedhost::resource::kPod) {
      if (!event.old_pod) return QueueingHint::kQueue;
      return after_pod_deleted(pod, *event.old_pod);
    }
    if (event.resource == schedhost::resource::kPersistentVolumeClaim) {
      // upstream isSchedulableAfterPersistentVolumeClaimAdded
      if (!event.new_object) return QueueingHint::kQueue;
      if (event.new_object->namespace_name() != pod.namespace_name()) return QueueingHint::kSkip;
      for (const nlohmann::json& v : pod_volumes(pod)) {
        const nlohmann::json* claim = claim_of(v);
        if (claim != nullptr && string_field(claim, "claimName") == event.new_object->name()) {
          return QueueingHint::kQueue;
        }
      }
      return QueueingHint::kSkip;
    }
    return QueueingHint::kQueue;  // Node add: no hint
  }

  schedhost::Status PreFilter(schedhost::Context& ctx, schedhost::CycleState& state,
                              const schedhost::Pod& pod, schedhost::PreFilterResult&) const {
    const nlohmann::json volumes = pod_volumes(pod);
    PreFilterState s;
    s.checked_volumes = checked_volumes(volumes);
    for (const nlohmann::json& v : volumes) {
      const nlohmann::json* claim_ref = claim_of(v);
      if (claim_ref == nullptr) continue;
      const std::string name = string_field(claim_ref, "claimName");
      const auto claim =
          ctx.object(schedhost::resource::kPersistentVolumeClaim, pod.namespace_name(), name);
      if (!claim) {
        return Status::UnschedulableAndUnresolvable("persistentvolumeclaim " + go_quote(name) +
                                                    " not found");
      }
      const nlohmann::json modes = field(*claim, "/spec/accessModes");
      if (!modes.is_array() ||
          std::find(modes.begin(), modes.end(), "ReadWriteOncePod") == modes.end()) {
        continue;
      }
      s.read_write_once_pod_claims.emplace_back(claim->name());
    }
    auto& claims = s.read_write_once_pod_claims;
    std::sort(claims.begin(), claims.end());
    claims.erase(std::unique(claims.begin(), claims.end()), claims.end());
    for (const std::string& claim : claims) {
      // At most one pod may hold a ReadWriteOncePod claim: each claim in use counts once.
      if (ctx.pvc_users(pod.namespace_name(), claim) > 0) ++s.conflicting_pvc_ref_count;
    }
    if (s.checked_volumes.empty() && s.conflicting_pvc_ref_count == 0) return Status::Skip();
    state.emplace<PreFilterState>(kPreFilterStateKey, std::move(s));
    return {};
  }

  schedhost::Status AddPod(schedhost::Context&, schedhost::CycleState& state, const schedhost::Pod&,
                           const schedhost::Pod& to_add, const schedhost::NodeInfo&) const {
    return update(state, to_add, 1);
  }
  schedhost::Status RemovePod(schedhost::Context&, schedhost::CycleState& state,
                              const schedhost::Pod&, const schedhost::Pod& to_remove,
                              const schedhost::NodeInfo&) const {
    return update(state, to_remove, -1);
  }

  schedhost::Status Filter(schedhost::Context&, const schedhost::CycleState& state,
                           const schedhost::Pod& pod, const schedhost::NodeInfo& node) const {
    const PreFilterState* s = state.read<PreFilterState>(kPreFilterStateKey);
    nlohmann::json computed;
    const nlohmann::json* checked = s != nullptr ? &s->checked_volumes : nullptr;
    if (checked == nullptr) {  // PreFilter did not run: the disk check still comes first
      computed = checked_volumes(pod_volumes(pod));
      checked = &computed;
    }
    const bool fits = satisfies_volume_conflicts(*checked, [&node](const auto& no_conflict_with) {
      for (const schedhost::Pod& existing : node.pods()) {
        if (!no_conflict_with(pod_volumes(existing))) return false;
      }
      return true;
    });
    if (!fits) return Status::Unschedulable(kErrReasonDiskConflict);
    if (s == nullptr) return missing_state();
    if (s->conflicting_pvc_ref_count > 0) {
      return Status::Unschedulable(kErrReasonReadWriteOncePodConflict);
    }
    return {};
  }

 private:
  static Status update(schedhost::CycleState& state, const schedhost::Pod& pod,
                       std::int64_t multiplier) {
    PreFilterState* s = state.read<PreFilterState>(kPreFilterStateKey);
    if (s == nullptr) return missing_state();
    s->conflicting_pvc_ref_count += multiplier * s->conflicts_of(pod);
    return {};
  }

  // upstream isSchedulableAfterPodDeleted.
  static schedhost::QueueingHint after_pod_deleted(const schedhost::Pod& pod,
                                                   const schedhost::Pod& deleted) {
    using schedhost::QueueingHint;
    if (deleted.namespace_name() != pod.namespace_name()) return QueueingHint::kSkip;
    const nlohmann::json volumes = pod_volumes(pod);
    const nlohmann::json deleted_volumes = pod_volumes(deleted);
    const bool fits = satisfies_volume_conflicts(checked_volumes(volumes),
                                                 [&deleted_volumes](const auto& no_conflict_with) {
                                                   return no_conflict_with(deleted_volumes);
                                                 });
    if (!fits) return QueueingHint::kQueue;
    // A deleted pod with a claim of the same name may have held it ReadWriteOncePod (upstream
    // does not look the claim up here either).
    std::vector<std::string> claims;
    for (const nlohmann::json& v : volumes) {
      if (const nlohmann::json* claim = claim_of(v)) {
        claims.push_back(string_field(claim, "claimName"));
      }
    }
    for (const nlohmann::json& v : deleted_volumes) {
      const nlohmann::json* claim = claim_of(v);
      if (claim != nullptr && std::find(claims.begin(), claims.end(),
                                        string_field(claim, "claimName")) != claims.end()) {
        return QueueingHint::kQueue;
      }
    }
    return QueueingHint::kSkip;
  }
};

}  // namespace

SCHEDHOST_LIBRARY("volume-restrictions", "1.0.0",
                  schedhost::plugin<VolumeRestrictions, schedhost::hook::PreFilter,
                                    schedhost::hook::PreFilterExtensions, schedhost::hook::Filter,
                                    schedhost::hook::EnqueueExtensions, schedhost::hook::SignPod>(
                      "VolumeRestrictions",
                      "Keeps pods off nodes where their disks are mounted by other pods, and "
                      "ReadWriteOncePod claims to one pod"))
