// NodeInfo: a node, the pods on it, and the aggregates Filter and Score read.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/host_port.hpp"
#include "cluster/image_state.hpp"
#include "cluster/node.hpp"
#include "cluster/pod.hpp"
#include "cluster/resource_list.hpp"

namespace schedhost::cluster {

// Upstream's framework.NodeInfo. Copying is cheap (shared pods, node and image states; small
// vectors), so preemption can clone one and remove victims from the clone.
class NodeInfo {
 public:
  using PodPtr = std::shared_ptr<const Pod>;

  // image_states: as computed by the snapshot (num_nodes across all nodes); when null they are
  // computed from this node alone (num_nodes 1).
  explicit NodeInfo(std::shared_ptr<const Node> node,
                    std::shared_ptr<const ImageStates> image_states = nullptr);

  const Node& node() const { return *node_; }
  const std::shared_ptr<const Node>& node_ptr() const { return node_; }
  const std::string& name() const { return node_->name(); }
  // A copy of the node's, kept inside the NodeInfo next to requested(): Filter and Score read
  // both for every node, and one object is fewer cache misses than two.
  const ResourceList& allocatable() const { return allocatable_; }

  // In the order they were added.
  const std::vector<PodPtr>& pods() const { return pods_; }
  const std::vector<PodPtr>& pods_with_affinity() const { return pods_with_affinity_; }
  const std::vector<PodPtr>& pods_with_required_anti_affinity() const {
    return pods_with_required_anti_affinity_;
  }
  const Pod* find_pod(std::string_view uid) const;

  // Sum of the pods' requests(), without "pods": upstream counts pods separately
  // (pods().size() against allocatable "pods"). Entries that sum to 0 are dropped.
  const ResourceList& requested() const { return requested_; }
  // Sum of the pods' node_nonzero_requests() for "cpu" and "memory" only, as upstream keeps them.
  const ResourceList& nonzero_requested() const { return nonzero_requested_; }
  // Distinct host ports held by the pods, sorted (by IP, protocol, port).
  const std::vector<HostPort>& used_ports() const { return used_ports_; }
  // Whether `wanted` conflicts with a used port (host_ports_conflict semantics).
  bool port_conflicts(const HostPort& wanted) const;

  const ImageStates& image_states() const { return *image_states_; }
  const ImageState* find_image(std::string_view name) const {
    return cluster::find_image(*image_states_, name);
  }

  // Changes (to a never-used value) whenever a pod is added or removed; a copy keeps it.
  uint64_t generation() const { return generation_; }

  // The caller keeps uids unique on a node (Snapshot does).
  void add_pod(PodPtr pod);
  // Removes the pod with that uid; false when none is here.
  bool remove_pod(std::string_view uid);

 private:
  void account(const Pod& pod, bool add);
  void recompute();

  std::shared_ptr<const Node> node_;
  ResourceList allocatable_;
  std::shared_ptr<const ImageStates> image_states_;
  std::vector<PodPtr> pods_;
  std::vector<PodPtr> pods_with_affinity_;
  std::vector<PodPtr> pods_with_required_anti_affinity_;
  ResourceList requested_;
  ResourceList nonzero_requested_;
  std::vector<HostPort> used_ports_;
  std::vector<uint32_t> used_port_holders_;  // how many pod ports hold used_ports_[i]
  bool saturated_ = false;  // a sum was clamped: subtracting would no longer be exact
  uint64_t generation_ = 0;
};

}  // namespace schedhost::cluster
