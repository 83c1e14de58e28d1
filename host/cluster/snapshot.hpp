// The cluster as one scheduling cycle sees it: a NodeInfo per node, in cluster-file order (then
// in the order add_node appended them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <span>

#include "cluster/api_object.hpp"
#include "cluster/image_state.hpp"
#include "cluster/namespace.hpp"
#include "cluster/node.hpp"
#include "cluster/node_info.hpp"
#include "cluster/pod.hpp"
#include "cluster/pod_disruption_budget.hpp"
#include "cluster/snapshot_journal.hpp"

namespace schedhost::cluster {

class Snapshot {
 public:
  Snapshot() = default;
  // Nodes keep their order; each pod goes to the node named by its spec.nodeName. Throws
  // std::invalid_argument for a duplicate node name, a pod without a known node, or a duplicate
  // pod uid (the cluster file loader reports those to the user first).
  Snapshot(const std::vector<std::shared_ptr<const Node>>& nodes,
           const std::vector<std::shared_ptr<const Pod>>& pods);

  size_t size() const { return node_infos_.size(); }
  const NodeInfo& at(size_t index) const { return node_infos_.at(index); }
  const std::vector<NodeInfo>& node_infos() const { return node_infos_; }
  // nullptr / nullopt when no node has that name.
  const NodeInfo* find(std::string_view node_name) const;
  std::optional<size_t> index_of(std::string_view node_name) const;
  // The NodeInfo holding the pod with that uid, or nullptr.
  const NodeInfo* node_of_pod(std::string_view pod_uid) const;

  // The Namespace objects of the cluster (shared, not copied, by copies of the snapshot). Throws
  // std::invalid_argument for a duplicate name.
  void set_namespaces(const std::vector<std::shared_ptr<const Namespace>>& namespaces);
  // In the order given to set_namespaces.
  const std::vector<std::shared_ptr<const Namespace>>& namespaces() const;
  // nullptr when no Namespace object has that name.
  const Namespace* find_namespace(std::string_view name) const;

  // The PodDisruptionBudgets of the cluster (shared like the namespaces). Throws
  // std::invalid_argument for a duplicate namespace/name.
  void set_pod_disruption_budgets(
      const std::vector<std::shared_ptr<const PodDisruptionBudget>>& budgets);
  // In the order given to set_pod_disruption_budgets.
  const std::vector<std::shared_ptr<const PodDisruptionBudget>>& pod_disruption_budgets() const;
  // nullptr when the cluster has no PodDisruptionBudget of that namespace and name.
  const PodDisruptionBudget* find_pod_disruption_budget(std::string_view namespace_name,
                                                        std::string_view name) const;

  // The objects of one of the other kinds (object_kinds.hpp: PersistentVolumes, Services...),
  // replacing every object of that kind; shared like the namespaces. Throws
  // std::invalid_argument when two objects have one key, or an object is of another kind.
  void set_objects(const ObjectKind& kind, std::vector<std::shared_ptr<const ApiObject>> objects);
  // The objects of `resource` (the ABI's name: "PersistentVolume", "apps/ReplicaSet") in
  // namespace ns, or in every namespace when ns is "", ordered by namespace then name. Empty for
  // a resource the snapshot has none of.
  std::span<const std::shared_ptr<const ApiObject>> objects(std::string_view resource,
                                                            std::string_view ns = {}) const;
  // nullptr when there is no such object (ns "" for a cluster-scoped kind).
  const ApiObject* find_object(std::string_view resource, std::string_view ns,
                               std::string_view name) const;
  // How many pods placed on the nodes mount PersistentVolumeClaim ns/claim (upstream's
  // usedPVCSet counts, kept as pods are placed and removed).
  size_t pvc_users(std::string_view ns, std::string_view claim) const;

  // Which pods of a node a nodes_with_pods() list is about.
  enum class NodePods { kAny = 0, kWithAffinity = 1, kWithRequiredAntiAffinity = 2 };
  // Positions of the nodes holding at least one such pod, ascending; kept as pods are placed and
  // removed (upstream's HavePodsWithAffinityList and HavePodsWithRequiredAntiAffinityList).
  const std::vector<size_t>& nodes_with_pods(NodePods which) const {
    return nodes_with_pods_[static_cast<size_t>(which)];
  }

  // The pods placed and removed since this snapshot was built or copied (a copy starts afresh),
  // or since its nodes last changed: add_node, update_node and remove_node restart it (new id,
  // revision 0), since plugins keep data by node position and node labels.
  const SnapshotJournal& journal() const { return journal_; }

  // Bumped by one by every change (the pod and node mutations below, set_namespaces,
  // set_pod_disruption_budgets), so a caller can tell whether anything changed; not by a call
  // that throws or returns false. 0 when built; a copy starts from its source's.
  uint64_t generation() const { return generation_; }
  // Bumped when nodes change position (remove_node): node positions kept from before are void.
  uint64_t layout() const { return layout_; }

  // The mutations run between scheduling cycles, never during one. Pod mutations leave every
  // NodeInfo where it is. Node mutations may move them (add_node may reallocate, remove_node
  // shifts the positions after it: earlier references and positions are void) and start a new
  // journal timeline.

  // Places a copy of pod, bound to node_name (new generation), on that node and returns it.
  // Throws std::invalid_argument when the node is unknown or the uid is already placed.
  std::shared_ptr<const Pod> assume(const Pod& pod, std::string_view node_name);
  // Removes the pod with that uid from its node; false when no node holds it.
  bool remove(std::string_view pod_uid);

  // A pod the API server reports bound (pod->node_name() set), placed as is on its node and
  // journaled. Throws std::invalid_argument when it is not bound, its node is unknown or its uid
  // is already placed (an assumed pod is confirmed with replace_pod instead).
  void add_pod(std::shared_ptr<const Pod> pod);
  // The pod with that uid replaced by this newer object (the informer's copy of an assumed pod,
  // new labels...), journaled as the old one removed then this one placed; it goes last among
  // the node's pods, as upstream's update (remove then add). False when the uid is not placed.
  // Throws std::invalid_argument when pod names another node (upstream: a corrupted cache).
  bool replace_pod(std::shared_ptr<const Pod> pod);

  // Appends a node (position size() - 1) with no pods. Its image states count the nodes listing
  // each name, this one included; the other nodes' counts are not refreshed (upstream's cache
  // leaves them stale too, until their own next update). Throws std::invalid_argument for a
  // duplicate name.
  void add_node(std::shared_ptr<const Node> node);
  // Replaces the Node object of the node with that name, keeping its pods (and so its requested
  // resources); its image states are recomputed as by add_node. Throws std::invalid_argument
  // when no node has that name.
  void update_node(std::shared_ptr<const Node> node);
  // Removes the node and the pods on it; the nodes after it move down one position. The pods are
  // not journaled: the journal restarts, and its revision 0 is the cluster without them. False
  // when no node has that name.
  bool remove_node(std::string_view name);

  // Between cycles, for a snapshot that lives as long as the process (serve): a new journal
  // timeline once the journal holds more changes than there are pods (and more than
  // kJournalSlack), so it does not keep every pod ever placed alive. Plugins recount once per
  // such restart, which the changes since the last one pay for. True when it restarted.
  bool trim_journal();
  static constexpr uint64_t kJournalSlack = 4096;

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  using Index = std::unordered_map<std::string, size_t, Hash, std::equal_to<>>;

  void place(std::shared_ptr<const Pod> pod, size_t node_index);
  // The pod with that uid on the node at node_index (the caller knows it is there).
  const std::shared_ptr<const Pod>& pod_at(size_t node_index, std::string_view uid) const;
  // Counts node in (delta +1) or out of (-1) image_nodes_, once per distinct image name.
  void count_images(const Node& node, int delta);
  // The node's image states from image_nodes_ (which must count it already).
  std::shared_ptr<const ImageStates> image_states_of(const Node& node) const;
  // After a change to the nodes: a new journal timeline, and a new generation.
  void nodes_changed();
  // Brings the nodes_with_pods lists up to date for a node whose pods changed.
  void update_nodes_with_pods(size_t node_index);
  // Counts the pod's claims in (+1) or out of (-1) pvc_users_.
  void count_claims(const Pod& pod, int delta);

  struct Namespaces {
    std::vector<std::shared_ptr<const Namespace>> list;
    Index index;  // name -> position in list
  };

  struct PodDisruptionBudgets {
    std::vector<std::shared_ptr<const PodDisruptionBudget>> list;
    Index index;  // namespace/name -> position in list
  };

  std::vector<NodeInfo> node_infos_;
  Index node_index_;                        // node name -> position
  Index pod_node_;                          // pod uid -> position of its node
  std::vector<size_t> nodes_with_pods_[3];  // by NodePods
  Index image_nodes_;                       // image name -> how many nodes list it
  SnapshotJournal journal_;
  uint64_t generation_ = 0;
  uint64_t layout_ = 0;
  std::shared_ptr<const Namespaces> namespaces_;      // immutable, shared by copies
  std::shared_ptr<const PodDisruptionBudgets> pdbs_;  // immutable, shared by copies
  // By resource name (the table's own strings): immutable lists sorted by key, shared by copies.
  using ObjectList = std::vector<std::shared_ptr<const ApiObject>>;
  std::unordered_map<std::string_view, std::shared_ptr<const ObjectList>> objects_;
  std::unordered_map<std::string, size_t, Hash, std::equal_to<>> pvc_users_;  // "ns/claim"
};

}  // namespace schedhost::cluster
