// The cluster as one scheduling cycle sees it: a NodeInfo per node, in cluster-file order.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

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

  // Which pods of a node a nodes_with_pods() list is about.
  enum class NodePods { kAny = 0, kWithAffinity = 1, kWithRequiredAntiAffinity = 2 };
  // Positions of the nodes holding at least one such pod, ascending; kept as pods are placed and
  // removed (upstream's HavePodsWithAffinityList and HavePodsWithRequiredAntiAffinityList).
  const std::vector<size_t>& nodes_with_pods(NodePods which) const {
    return nodes_with_pods_[static_cast<size_t>(which)];
  }

  // The pods placed and removed since this snapshot was built or copied (a copy starts afresh).
  const SnapshotJournal& journal() const { return journal_; }

  // Places a copy of pod, bound to node_name (new generation), on that node and returns it.
  // Throws std::invalid_argument when the node is unknown or the uid is already placed.
  std::shared_ptr<const Pod> assume(const Pod& pod, std::string_view node_name);
  // Removes the pod with that uid from its node; false when no node holds it.
  bool remove(std::string_view pod_uid);

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  using Index = std::unordered_map<std::string, size_t, Hash, std::equal_to<>>;

  void place(std::shared_ptr<const Pod> pod, size_t node_index);
  // Brings the nodes_with_pods lists up to date for a node whose pods changed.
  void update_nodes_with_pods(size_t node_index);

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
  SnapshotJournal journal_;
  std::shared_ptr<const Namespaces> namespaces_;      // immutable, shared by copies
  std::shared_ptr<const PodDisruptionBudgets> pdbs_;  // immutable, shared by copies
};

}  // namespace schedhost::cluster
