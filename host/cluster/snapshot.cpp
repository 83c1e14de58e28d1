#include "cluster/snapshot.hpp"

#include <algorithm>
#include <stdexcept>
#include <tuple>

#include "cluster/object_kinds.hpp"

namespace schedhost::cluster {

Snapshot::Snapshot(const std::vector<std::shared_ptr<const Node>>& nodes,
                   const std::vector<std::shared_ptr<const Pod>>& pods) {
  // Upstream's createImageExistenceMap: for each image name, the set of nodes listing it.
  for (const auto& node : nodes) {
    if (!node) throw std::invalid_argument("Snapshot: null node");
    if (!node_index_.emplace(node->name(), node_index_.size()).second) {
      throw std::invalid_argument("Snapshot: duplicate node \"" + node->name() + "\"");
    }
    count_images(*node, +1);
  }
  node_infos_.reserve(nodes.size());
  for (const auto& node : nodes)
    node_infos_.emplace_back(node, image_states_of(*node));

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
  ++generation_;
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
  ++generation_;
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

void Snapshot::set_objects(const ObjectKind& kind,
                           std::vector<std::shared_ptr<const ApiObject>> objects) {
  std::sort(objects.begin(), objects.end(), [](const auto& a, const auto& b) {
    return std::tie(a->namespace_name(), a->name()) < std::tie(b->namespace_name(), b->name());
  });
  for (size_t i = 0; i < objects.size(); ++i) {
    if (&objects[i]->kind() != &kind) {
      throw std::invalid_argument("Snapshot: " + objects[i]->key() + " is a " +
                                  std::string(objects[i]->kind().kind) + ", not a " +
                                  std::string(kind.kind));
    }
    if (i > 0 && objects[i]->key() == objects[i - 1]->key()) {
      throw std::invalid_argument("Snapshot: duplicate " + std::string(kind.kind) + " \"" +
                                  objects[i]->key() + "\"");
    }
  }
  objects_[kind.resource] = std::make_shared<const ObjectList>(std::move(objects));
  ++generation_;
}

std::span<const std::shared_ptr<const ApiObject>> Snapshot::objects(std::string_view resource,
                                                                    std::string_view ns) const {
  const auto found = objects_.find(resource);
  if (found == objects_.end()) return {};
  const ObjectList& list = *found->second;
  if (ns.empty()) return list;
  const auto by_namespace = [](const std::shared_ptr<const ApiObject>& o, std::string_view n) {
    return std::string_view(o->namespace_name()) < n;
  };
  const auto first = std::lower_bound(list.begin(), list.end(), ns, by_namespace);
  auto last = first;
  while (last != list.end() && (*last)->namespace_name() == ns)
    ++last;
  return {first, last};
}

const ApiObject* Snapshot::find_object(std::string_view resource, std::string_view ns,
                                       std::string_view name) const {
  const auto in = objects(resource, ns);
  const auto it =
      std::lower_bound(in.begin(), in.end(), name,
                       [ns](const std::shared_ptr<const ApiObject>& o, std::string_view n) {
                         return std::tie(o->namespace_name(), o->name()) < std::tie(ns, n);
                       });
  if (it == in.end() || (*it)->name() != name || (*it)->namespace_name() != ns) return nullptr;
  return it->get();
}

size_t Snapshot::pvc_users(std::string_view ns, std::string_view claim) const {
  if (pvc_users_.empty()) return 0;
  std::string key;
  key.reserve(ns.size() + 1 + claim.size());
  key.append(ns).append("/").append(claim);
  const auto it = pvc_users_.find(key);
  return it == pvc_users_.end() ? 0 : it->second;
}

void Snapshot::count_claims(const Pod& pod, int delta) {
  for (const std::string& claim : pod.claim_names()) {
    const std::string key = pod.namespace_name() + "/" + claim;
    if (delta > 0) {
      ++pvc_users_[key];
    } else if (auto it = pvc_users_.find(key); it != pvc_users_.end() && --it->second == 0) {
      pvc_users_.erase(it);
    }
  }
}

void Snapshot::place(std::shared_ptr<const Pod> pod, size_t node_index) {
  if (!pod_node_.emplace(pod->uid(), node_index).second) {
    throw std::invalid_argument("Snapshot: pod uid \"" + pod->uid() + "\" is already placed");
  }
  count_claims(*pod, +1);
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
  ++generation_;
  return bound;
}

bool Snapshot::remove(std::string_view pod_uid) {
  auto it = pod_node_.find(pod_uid);
  if (it == pod_node_.end()) return false;
  size_t index = it->second;
  std::string uid = it->first;  // the key dies with the erase below
  pod_node_.erase(it);
  count_claims(*pod_at(index, uid), -1);
  journal_.record(pod_at(index, uid), index, -1);
  const bool removed = node_infos_[index].remove_pod(uid);
  update_nodes_with_pods(index);
  ++generation_;
  return removed;
}

void Snapshot::add_pod(std::shared_ptr<const Pod> pod) {
  if (!pod) throw std::invalid_argument("Snapshot: null pod");
  if (pod->node_name().empty()) {
    throw std::invalid_argument("Snapshot: pod \"" + pod->key() + "\" is not bound to a node");
  }
  auto index = index_of(pod->node_name());
  if (!index) {
    throw std::invalid_argument("Snapshot: pod \"" + pod->key() + "\" is bound to unknown node \"" +
                                pod->node_name() + "\"");
  }
  place(pod, *index);  // throws before changing anything when the uid is placed
  journal_.record(std::move(pod), *index, +1);
  ++generation_;
}

bool Snapshot::replace_pod(std::shared_ptr<const Pod> pod) {
  if (!pod) throw std::invalid_argument("Snapshot: null pod");
  auto it = pod_node_.find(pod->uid());
  if (it == pod_node_.end()) return false;
  const size_t index = it->second;
  NodeInfo& node = node_infos_[index];
  if (pod->node_name() != node.name()) {
    throw std::invalid_argument("Snapshot: pod \"" + pod->key() + "\" is on node \"" + node.name() +
                                "\", its update names node \"" + pod->node_name() + "\"");
  }
  // -1 then +1, so a plugin replaying the journal counts the old labels out and the new in.
  journal_.record(pod_at(index, pod->uid()), index, -1);
  count_claims(*pod_at(index, pod->uid()), -1);
  count_claims(*pod, +1);
  node.remove_pod(pod->uid());
  node.add_pod(pod);
  update_nodes_with_pods(index);  // the new object may add or drop (anti-)affinity
  journal_.record(std::move(pod), index, +1);
  ++generation_;
  return true;
}

bool Snapshot::trim_journal() {
  if (journal_.revision() <= std::max<uint64_t>(kJournalSlack, pod_node_.size())) return false;
  journal_.restart();
  return true;
}

void Snapshot::add_node(std::shared_ptr<const Node> node) {
  if (!node) throw std::invalid_argument("Snapshot: null node");
  if (node_index_.find(node->name()) != node_index_.end()) {
    throw std::invalid_argument("Snapshot: duplicate node \"" + node->name() + "\"");
  }
  // Upstream's addNodeImageStates: only the new node's summaries see it counted.
  count_images(*node, +1);
  node_infos_.emplace_back(node, image_states_of(*node));
  node_index_.emplace(node->name(), node_infos_.size() - 1);
  nodes_changed();
}

void Snapshot::update_node(std::shared_ptr<const Node> node) {
  if (!node) throw std::invalid_argument("Snapshot: null node");
  auto index = index_of(node->name());
  if (!index) {
    throw std::invalid_argument("Snapshot: cannot update unknown node \"" + node->name() + "\"");
  }
  NodeInfo& old = node_infos_[*index];
  // Upstream's UpdateNode: removeNodeImageStates(old), then addNodeImageStates(new).
  count_images(old.node(), -1);
  count_images(*node, +1);
  // A new NodeInfo (so a new NodeInfo generation) holding the same pods in the same order:
  // requested resources, ports and the affinity lists come out as they were.
  NodeInfo updated(node, image_states_of(*node));
  for (const auto& pod : old.pods())
    updated.add_pod(pod);
  old = std::move(updated);
  nodes_changed();
}

bool Snapshot::remove_node(std::string_view name) {
  auto found = node_index_.find(name);
  if (found == node_index_.end()) return false;
  const size_t index = found->second;
  node_index_.erase(found);
  count_images(node_infos_[index].node(), -1);
  for (const auto& pod : node_infos_[index].pods())
    count_claims(*pod, -1);
  node_infos_.erase(node_infos_.begin() + static_cast<std::ptrdiff_t>(index));
  // Every position after index moves down one: O(nodes + pods), fine for a rare event.
  for (auto& [node_name, position] : node_index_) {
    if (position > index) --position;
  }
  for (auto it = pod_node_.begin(); it != pod_node_.end();) {
    if (it->second == index) {
      it = pod_node_.erase(it);
      continue;
    }
    if (it->second > index) --it->second;
    ++it;
  }
  for (std::vector<size_t>& list : nodes_with_pods_) {
    auto it = std::lower_bound(list.begin(), list.end(), index);
    if (it != list.end() && *it == index) it = list.erase(it);
    for (; it != list.end(); ++it)
      --*it;  // stays sorted
  }
  ++layout_;
  nodes_changed();
  return true;
}

const std::shared_ptr<const Pod>& Snapshot::pod_at(size_t node_index, std::string_view uid) const {
  for (const auto& pod : node_infos_[node_index].pods()) {
    if (pod->uid() == uid) return pod;
  }
  throw std::logic_error("Snapshot: pod uid \"" + std::string(uid) + "\" missing from its node");
}

void Snapshot::count_images(const Node& node, int delta) {
  std::vector<std::string_view> names;  // distinct: a node counts once per name
  for (const NodeImage& image : node.images()) {
    for (const std::string& name : image.names)
      names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  for (std::string_view name : names) {
    auto it = image_nodes_.find(name);
    if (delta > 0) {
      if (it == image_nodes_.end()) {
        image_nodes_.emplace(std::string(name), 1);
      } else {
        ++it->second;
      }
    } else if (it != image_nodes_.end() && --it->second == 0) {
      image_nodes_.erase(it);  // upstream drops an image no node lists any more
    }
  }
}

std::shared_ptr<const ImageStates> Snapshot::image_states_of(const Node& node) const {
  return make_image_states(node, [this](std::string_view name) {
    auto it = image_nodes_.find(name);
    return it == image_nodes_.end() ? 0 : static_cast<int32_t>(it->second);
  });
}

void Snapshot::nodes_changed() {
  journal_.restart();
  ++generation_;
}

}  // namespace schedhost::cluster
