#include "cluster/snapshot.hpp"

#include <algorithm>
#include <stdexcept>

#include "cluster/image_state.hpp"

namespace schedhost::cluster {

Snapshot::Snapshot(const std::vector<std::shared_ptr<const Node>>& nodes,
                   const std::vector<std::shared_ptr<const Pod>>& pods) {
  // Upstream's createImageExistenceMap: for each image name, the set of nodes listing it.
  Index num_nodes;
  for (const auto& node : nodes) {
    if (!node) throw std::invalid_argument("Snapshot: null node");
    if (!node_index_.emplace(node->name(), node_index_.size()).second) {
      throw std::invalid_argument("Snapshot: duplicate node \"" + node->name() + "\"");
    }
    std::unordered_map<std::string_view, bool> seen;  // count a node once per name
    for (const NodeImage& image : node->images()) {
      for (const std::string& name : image.names) {
        if (seen.emplace(name, true).second) ++num_nodes[name];
      }
    }
  }
  auto count = [&num_nodes](std::string_view name) {
    auto it = num_nodes.find(name);
    return it == num_nodes.end() ? 0 : static_cast<int32_t>(it->second);
  };
  node_infos_.reserve(nodes.size());
  for (const auto& node : nodes)
    node_infos_.emplace_back(node, make_image_states(*node, count));

  for (const auto& pod : pods) {
    if (!pod) throw std::invalid_argument("Snapshot: null pod");
    auto index = index_of(pod->node_name());
    if (!index) {
      throw std::invalid_argument("Snapshot: pod \"" + pod->key() +
                                  "\" is bound to unknown node \"" + pod->node_name() + "\"");
    }
    place(pod, *index);
  }
}

void Snapshot::set_namespaces(const std::vector<std::shared_ptr<const Namespace>>& namespaces) {
  auto ns = std::make_shared<Namespaces>();
  ns->list.reserve(namespaces.size());
  for (const auto& n : namespaces) {
    if (!n) throw std::invalid_argument("Snapshot: null namespace");
    if (!ns->index.emplace(n->name(), ns->list.size()).second) {
      throw std::invalid_argument("Snapshot: duplicate namespace \"" + n->name() + "\"");
    }
    ns->list.push_back(n);
  }
  namespaces_ = std::move(ns);
}

const std::vector<std::shared_ptr<const Namespace>>& Snapshot::namespaces() const {
  static const std::vector<std::shared_ptr<const Namespace>> kNone;
  return namespaces_ ? namespaces_->list : kNone;
}

const Namespace* Snapshot::find_namespace(std::string_view name) const {
  if (!namespaces_) return nullptr;
  auto it = namespaces_->index.find(name);
  return it == namespaces_->index.end() ? nullptr : namespaces_->list[it->second].get();
}

void Snapshot::set_pod_disruption_budgets(
    const std::vector<std::shared_ptr<const PodDisruptionBudget>>& budgets) {
  auto pdbs = std::make_shared<PodDisruptionBudgets>();
  pdbs->list.reserve(budgets.size());
  for (const auto& pdb : budgets) {
    if (!pdb) throw std::invalid_argument("Snapshot: null PodDisruptionBudget");
    if (!pdbs->index.emplace(pdb->key(), pdbs->list.size()).second) {
      throw std::invalid_argument("Snapshot: duplicate PodDisruptionBudget \"" + pdb->key() + "\"");
    }
    pdbs->list.push_back(pdb);
  }
  pdbs_ = std::move(pdbs);
}

const std::vector<std::shared_ptr<const PodDisruptionBudget>>& Snapshot::pod_disruption_budgets()
    const {
  static const std::vector<std::shared_ptr<const PodDisruptionBudget>> kNone;
  return pdbs_ ? pdbs_->list : kNone;
}

const PodDisruptionBudget* Snapshot::find_pod_disruption_budget(std::string_view namespace_name,
                                                                std::string_view name) const {
  if (!pdbs_) return nullptr;
  std::string key;
  key.reserve(namespace_name.size() + 1 + name.size());
  key.append(namespace_name).append("/").append(name);
  auto it = pdbs_->index.find(key);
  return it == pdbs_->index.end() ? nullptr : pdbs_->list[it->second].get();
}

const NodeInfo* Snapshot::find(std::string_view node_name) const {
  auto index = index_of(node_name);
  return index ? &node_infos_[*index] : nullptr;
}

std::optional<size_t> Snapshot::index_of(std::string_view node_name) const {
  auto it = node_index_.find(node_name);
  if (it == node_index_.end()) return std::nullopt;
  return it->second;
}

const NodeInfo* Snapshot::node_of_pod(std::string_view pod_uid) const {
  auto it = pod_node_.find(pod_uid);
  return it == pod_node_.end() ? nullptr : &node_infos_[it->second];
}

void Snapshot::place(std::shared_ptr<const Pod> pod, size_t node_index) {
  if (!pod_node_.emplace(pod->uid(), node_index).second) {
    throw std::invalid_argument("Snapshot: pod uid \"" + pod->uid() + "\" is already placed");
  }
  node_infos_[node_index].add_pod(std::move(pod));
  update_nodes_with_pods(node_index);
}

void Snapshot::update_nodes_with_pods(size_t node_index) {
  const NodeInfo& node = node_infos_[node_index];
  const bool has[3] = {!node.pods().empty(), !node.pods_with_affinity().empty(),
                       !node.pods_with_required_anti_affinity().empty()};
  for (size_t k = 0; k < 3; ++k) {
    std::vector<size_t>& list = nodes_with_pods_[k];
    auto it = std::lower_bound(list.begin(), list.end(), node_index);
    const bool listed = it != list.end() && *it == node_index;
    if (has[k] && !listed) list.insert(it, node_index);
    if (!has[k] && listed) list.erase(it);
  }
}

std::shared_ptr<const Pod> Snapshot::assume(const Pod& pod, std::string_view node_name) {
  auto index = index_of(node_name);
  if (!index) {
    throw std::invalid_argument("Snapshot: cannot assume pod \"" + pod.key() +
                                "\" on unknown node \"" + std::string(node_name) + "\"");
  }
  std::shared_ptr<const Pod> bound = pod.bound_to(node_name);
  place(bound, *index);
  journal_.record(bound, *index, +1);  // the cluster file's pods are the start, not changes
  return bound;
}

bool Snapshot::remove(std::string_view pod_uid) {
  auto it = pod_node_.find(pod_uid);
  if (it == pod_node_.end()) return false;
  size_t index = it->second;
  std::string uid = it->first;  // the key dies with the erase below
  pod_node_.erase(it);
  for (const auto& pod : node_infos_[index].pods()) {
    if (pod->uid() == uid) {
      journal_.record(pod, index, -1);
      break;
    }
  }
  const bool removed = node_infos_[index].remove_pod(uid);
  update_nodes_with_pods(index);
  return removed;
}

}  // namespace schedhost::cluster
