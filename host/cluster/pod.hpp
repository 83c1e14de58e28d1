// A Pod as the scheduler sees it: typed hot fields, precomputed requests, the original JSON.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/host_port.hpp"
#include "cluster/json_pointer_cache.hpp"
#include "cluster/kept_json.hpp"
#include "cluster/resource_list.hpp"
#include "cluster/string_map.hpp"

namespace schedhost::cluster {

struct Toleration {
  std::string key;
  std::string op = "Equal";  // "Equal" (also when unset) or "Exists"
  std::string value;
  std::string effect;  // empty matches every effect
  std::optional<int64_t> toleration_seconds;

  bool operator==(const Toleration&) const = default;
};

enum class ContainerKind { kRegular, kInit, kSidecar };  // sidecar: init with restartPolicy Always

struct Container {
  std::string name;
  std::string image;
  ContainerKind kind = ContainerKind::kRegular;

  bool operator==(const Container&) const = default;
};

// One of metadata.ownerReferences (what PodTopologySpread's default constraints follow).
struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;

  bool operator==(const OwnerReference&) const = default;
};

// Immutable once built, so one Pod is shared (shared_ptr<const Pod>) by the queue, every NodeInfo
// and every clone of them; a change (binding it to a node) makes a new Pod with a new generation.
class Pod {
 public:
  // Builds from the object exactly as `kubectl get -o yaml` prints it (as JSON). Throws
  // ObjectError naming the first field it cannot accept. default_namespace fills an unset
  // metadata.namespace ("default", like kubectl; upstream's unit tests use "").
  explicit Pod(nlohmann::json object, std::string_view default_namespace = "default");
  // The same from an object already shared (an informer's): it is kept, not copied.
  explicit Pod(std::shared_ptr<const nlohmann::json> object,
               std::string_view default_namespace = "default");
  // The same from `object`, keeping only its compact text (object.dump(), shared with serve's
  // informer store): json_at reads the text, json() parses it when first called.
  Pod(const nlohmann::json& object, std::shared_ptr<const std::string> compact_text,
      std::string_view default_namespace = "default");

  // A copy with spec.nodeName = node_name (in the JSON too) and a new generation.
  std::shared_ptr<const Pod> bound_to(std::string_view node_name) const;
  // A copy with status.nominatedNodeName = node_name (in the JSON too) and a new generation:
  // the pod after a preemption made room for it there.
  std::shared_ptr<const Pod> nominated_to(std::string_view node_name) const;

  const std::string& name() const { return name_; }
  const std::string& namespace_name() const { return namespace_; }
  // "<namespace>/<name>", for messages and uniqueness.
  std::string key() const { return namespace_ + "/" + name_; }
  // metadata.uid, or "uid-<namespace>-<name>" when unset (deterministic across runs).
  const std::string& uid() const { return uid_; }
  const std::string& node_name() const { return node_name_; }
  const std::string& scheduler_name() const { return scheduler_name_; }  // "default-scheduler"
  const std::string& priority_class_name() const { return priority_class_name_; }
  const std::string& nominated_node_name() const { return nominated_node_name_; }
  const std::string& preemption_policy() const {
    return preemption_policy_;
  }                                                    // PreemptLowerPriority
  const std::string& phase() const { return phase_; }  // status.phase, "" when unset
  int64_t priority() const { return priority_; }
  int64_t start_time_ms() const { return start_time_ms_; }        // 0 when unset
  int64_t creation_time_ms() const { return creation_time_ms_; }  // 0 when unset
  bool terminating() const { return terminating_; }               // deletionTimestamp set
  uint64_t generation() const { return generation_; }

  const StringMap& labels() const { return labels_; }
  const StringMap& annotations() const { return annotations_; }
  const StringMap& node_selector() const { return node_selector_; }

  // Upstream PodRequests (v1.35): max(sum of regular containers and sidecars, each init
  // container's peak including the sidecars started before it), where the pod's own
  // spec.resources.requests (cpu, memory, hugepages-*: pod-level resources) replace that total,
  // + spec.overhead. Limits stand in for missing requests, as the API server defaults them.
  const ResourceList& requests() const { return requests_; }
  // What scoring sees of the pod (NodeResourcesFit, v1.35): its containers' spec requests with
  // 100m cpu / 200Mi memory for every container (init and sidecar too) that does not request
  // them (explicit 0 stays 0), + overhead; pod-level requests and resize status left out, as
  // upstream's scorer leaves them out.
  const ResourceList& nonzero_requests() const { return nonzero_requests_; }
  // What the pod counts for in its node's non-zero sums (upstream CalculateResource): requests()
  // with those defaults per container, or, when the pod sets pod-level requests, only for cpu
  // or memory that nothing in the pod requests.
  const ResourceList& node_nonzero_requests() const { return node_nonzero_requests_; }

  const std::vector<Toleration>& tolerations() const { return tolerations_; }
  // Ports with hostPort > 0 of the sidecars (restartable init containers, first) and the regular
  // containers; other init containers hold none, as upstream.
  const std::vector<HostPort>& host_ports() const { return host_ports_; }
  // spec.containers in order, then spec.initContainers in order: container i of the list is
  // spec.containers[i] for regular containers.
  const std::vector<Container>& containers() const { return containers_; }
  // metadata.ownerReferences, in order.
  const std::vector<OwnerReference>& owner_references() const { return owner_references_; }
  // The claimName of each persistentVolumeClaim volume, in spec.volumes order (upstream's
  // NodeInfo.PVCRefCounts counts these per pod).
  const std::vector<std::string>& claim_names() const { return claim_names_; }

  // Any pod (anti-)affinity term, required or preferred.
  bool has_affinity() const { return has_affinity_; }
  // spec.resourceClaims is not empty: the pod needs dynamic resource allocation.
  bool has_resource_claims() const { return has_resource_claims_; }
  bool has_required_anti_affinity() const { return has_required_anti_affinity_; }

  // The object as given, with spec.nodeName or status.nominatedNodeName set by bound_to and
  // nominated_to (the tree is copied for that when first read; a Pod that keeps text parses it
  // then, and keeps the tree as long as it lives).
  const nlohmann::json& json() const { return json_.get(); }
  // The same tree, shared; parsed anew on each call (and not kept) when this Pod keeps text: for
  // readers that look once, such as serve comparing two versions of a pod.
  std::shared_ptr<const nlohmann::json> json_tree() const { return json_.tree(); }
  // Compact JSON of the value at an RFC 6901 pointer ("" = the whole object); nullopt when the
  // pointer is malformed or names nothing. Thread-safe; the view lives as long as this Pod.
  std::optional<std::string_view> json_at(std::string_view json_pointer) const {
    return json_.at(json_pointer, json_cache_);
  }

 private:
  void read(const nlohmann::json& object, std::string_view default_namespace);

  // A replay's tree, shared; in serve, the compact text shared with the informer's store.
  KeptJson json_;
  // First, together: what spreading and affinity read for every existing pod on every node.
  std::string namespace_;
  StringMap labels_;
  bool terminating_ = false;
  std::string name_;
  std::string uid_;
  std::string node_name_;
  std::string scheduler_name_;
  std::string priority_class_name_;
  std::string nominated_node_name_;
  std::string preemption_policy_;
  std::string phase_;
  int64_t priority_ = 0;
  int64_t start_time_ms_ = 0;
  int64_t creation_time_ms_ = 0;
  uint64_t generation_ = 0;
  StringMap annotations_;
  StringMap node_selector_;
  ResourceList requests_;
  ResourceList nonzero_requests_;
  ResourceList node_nonzero_requests_;
  std::vector<Toleration> tolerations_;
  std::vector<HostPort> host_ports_;
  std::vector<Container> containers_;
  std::vector<OwnerReference> owner_references_;
  std::vector<std::string> claim_names_;
  bool has_affinity_ = false;
  bool has_resource_claims_ = false;
  bool has_required_anti_affinity_ = false;
  JsonPointerCache json_cache_;
};

}  // namespace schedhost::cluster
