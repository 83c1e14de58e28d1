#include "framework/nominated_pods.hpp"

#include <algorithm>
#include <utility>

namespace schedhost::framework {

void NominatedPods::add(PodPtr pod, const std::string& node) {
  remove(pod->uid());
  node_of_[pod->uid()] = node;
  by_node_[node].push_back(std::move(pod));
}

void NominatedPods::remove(const std::string& uid) {
  auto it = node_of_.find(uid);
  if (it == node_of_.end()) return;
  auto list = by_node_.find(it->second);
  if (list != by_node_.end()) {
    auto& pods = list->second;
    pods.erase(
        std::remove_if(pods.begin(), pods.end(), [&](const PodPtr& p) { return p->uid() == uid; }),
        pods.end());
    if (pods.empty()) by_node_.erase(list);
  }
  node_of_.erase(it);
}

std::optional<std::string> NominatedPods::node_of(const std::string& uid) const {
  auto it = node_of_.find(uid);
  if (it == node_of_.end()) return std::nullopt;
  return it->second;
}

std::vector<NominatedPods::PodPtr> NominatedPods::counted_for(const cluster::Pod& pod,
                                                              const std::string& node) const {
  std::vector<PodPtr> out;
  auto it = by_node_.find(node);
  if (it == by_node_.end()) return out;
  for (const PodPtr& p : it->second) {
    if (p->priority() >= pod.priority() && p->uid() != pod.uid()) out.push_back(p);
  }
  return out;
}

std::vector<NominatedPods::PodPtr> NominatedPods::lower_priority(const cluster::Pod& pod,
                                                                 const std::string& node) const {
  std::vector<PodPtr> out;
  auto it = by_node_.find(node);
  if (it == by_node_.end()) return out;
  for (const PodPtr& p : it->second) {
    if (p->priority() < pod.priority()) out.push_back(p);
  }
  return out;
}

}  // namespace schedhost::framework
