// The kinds of object the snapshot holds besides pods, nodes, namespaces and
// PodDisruptionBudgets: what upstream's default profile reads through listers (the volume
// plugins' PersistentVolumes, claims, classes and CSI objects; the Services and workload
// controllers behind PodTopologySpread's default constraints). One table, shared by the cluster
// file, the live informers and the host API, so a kind is added in one place.
#pragma once

#include <schedhost/detail/library_rules.hpp>

#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace schedhost::cluster {

class JsonField;

struct ObjectKind {
  std::string_view kind;      // "StorageClass"
  std::string_view resource;  // the ABI's name: "storage.k8s.io/StorageClass"
  std::string_view group;     // "storage.k8s.io", "" for the core group
  std::string_view plural;    // the API path's resource: "storageclasses"
  // The accepted apiVersions, the first one served and suggested ("" past the last).
  std::array<std::string_view, 2> versions;
  bool namespaced;
  // Whether upstream v1.35 turns its changes into cluster events for the queue: the storage
  // kinds the volume plugins register for; not Services or the workload controllers, which only
  // PodTopologySpread's default selector reads.
  bool sends_events;
  // Throws ObjectError naming the first field plugins read that has the wrong shape.
  void (*check)(const JsonField& object);
  // Fills in what the API server defaults when a client leaves it out (a StorageClass's
  // volumeBindingMode: Immediate...), so a hand-written file reads as the server would keep it.
  // Runs after check, on a valid object. Null: nothing to default.
  void (*defaults)(nlohmann::json& object) = nullptr;
  // A plugin declared it (ABI 1.9's resources): a custom resource, kept as read.
  bool declared = false;

  std::string_view preferred_version() const;  // "v1" of "storage.k8s.io/v1"
};

// The host's own kinds, in a fixed order (the volume kinds first).
std::span<const ObjectKind> object_kinds();
// The host's kinds, then the declared ones in the order they were first declared.
std::vector<const ObjectKind*> all_object_kinds();
// By kind ("PersistentVolume") or nullptr; a declared kind also by its apiVersion's group when
// two groups declare one kind name (api_version "" takes the first).
const ObjectKind* find_object_kind(std::string_view kind, std::string_view api_version = {});
// By the ABI's resource name ("storage.k8s.io/StorageClass",
// "podgroups.v1alpha1.scheduling.x-k8s.io") or nullptr.
const ObjectKind* find_object_resource(std::string_view resource);

// Makes a plugin's declared resource a kind the snapshot, the cluster file and serve's informers
// keep, once per process (before any is read); a second declaration of the same resource shares
// the first's kind. Throws std::invalid_argument when it disagrees with an earlier declaration
// (another kind name or scope), naming both plugins. The kind lives as long as the process.
const ObjectKind& declare_object_kind(const library_rules::ResourceDecl& resource,
                                      std::string_view plugin);
// The plugins that declared a kind, joined "\"A\", \"B\"" (for messages about it).
std::string declared_by(const ObjectKind& kind);

}  // namespace schedhost::cluster
