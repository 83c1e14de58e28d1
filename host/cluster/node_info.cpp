#include "cluster/node_info.hpp"

#include <algorithm>
#include <stdexcept>

#include "cluster/generation.hpp"

namespace schedhost::cluster {
namespace {

void erase_uid(std::vector<NodeInfo::PodPtr>& pods, std::string_view uid) {
  auto it = std::find_if(pods.begin(), pods.end(), [&](const auto& p) { return p->uid() == uid; });
  if (it != pods.end()) pods.erase(it);  // keeps the others in order, unlike upstream's swap
}

}  // namespace

NodeInfo::NodeInfo(std::shared_ptr<const Node> node,
                   std::shared_ptr<const ImageStates> image_states)
    : node_(std::move(node)),
      image_states_(std::move(image_states)),
      generation_(next_generation()) {
  if (!node_) throw std::invalid_argument("NodeInfo needs a node");
  allocatable_ = node_->allocatable();
  if (!image_states_) {
    image_states_ = make_image_states(*node_, [](std::string_view) { return 1; });
  }
}

const Pod* NodeInfo::find_pod(std::string_view uid) const {
  for (const PodPtr& pod : pods_) {
    if (pod->uid() == uid) return pod.get();
  }
  return nullptr;
}

bool NodeInfo::port_conflicts(const HostPort& wanted) const {
  return std::any_of(used_ports_.begin(), used_ports_.end(),
                     [&](const HostPort& used) { return host_ports_conflict(wanted, used); });
}

void NodeInfo::account(const Pod& pod, bool add) {
  bool exact = true;
  for (const ResourceList::Entry& e : pod.requests()) {
    if (e.name == "pods") continue;
    exact = requested_.add(e.name, add ? e.value : -e.value) && exact;
  }
  for (const char* name : {"cpu", "memory"}) {
    int64_t value = pod.node_nonzero_requests().get_or_zero(name);
    exact = nonzero_requested_.add(name, add ? value : -value) && exact;
  }
  requested_.erase_zeros();
  nonzero_requested_.erase_zeros();
  if (!exact) saturated_ = true;

  for (const HostPort& port : pod.host_ports()) {
    auto it = std::lower_bound(used_ports_.begin(), used_ports_.end(), port);
    auto index = static_cast<size_t>(it - used_ports_.begin());
    bool present = it != used_ports_.end() && *it == port;
    if (add && present) {
      ++used_port_holders_[index];
    } else if (add) {
      used_ports_.insert(it, port);
      used_port_holders_.insert(used_port_holders_.begin() + static_cast<ptrdiff_t>(index), 1);
    } else if (present && --used_port_holders_[index] == 0) {
      // Counted, not a set as upstream's: two pods holding one port (a conflict already in
      // the input) do not free it when only one of them leaves.
      used_ports_.erase(it);
      used_port_holders_.erase(used_port_holders_.begin() + static_cast<ptrdiff_t>(index));
    }
  }
}

void NodeInfo::recompute() {
  requested_ = {};
  nonzero_requested_ = {};
  used_ports_.clear();
  used_port_holders_.clear();
  saturated_ = false;
  for (const PodPtr& pod : pods_)
    account(*pod, true);
}

void NodeInfo::add_pod(PodPtr pod) {
  if (!pod) throw std::invalid_argument("NodeInfo::add_pod needs a pod");
  account(*pod, true);
  if (pod->has_affinity()) pods_with_affinity_.push_back(pod);
  if (pod->has_required_anti_affinity()) pods_with_required_anti_affinity_.push_back(pod);
  pods_.push_back(std::move(pod));
  generation_ = next_generation();
}

bool NodeInfo::remove_pod(std::string_view uid) {
  auto it =
      std::find_if(pods_.begin(), pods_.end(), [&](const PodPtr& p) { return p->uid() == uid; });
  if (it == pods_.end()) return false;
  PodPtr pod = std::move(*it);
  pods_.erase(it);
  if (pod->has_affinity()) erase_uid(pods_with_affinity_, uid);
  if (pod->has_required_anti_affinity()) erase_uid(pods_with_required_anti_affinity_, uid);
  if (saturated_) {
    recompute();  // a clamped sum cannot be undone by subtraction
  } else {
    account(*pod, false);
  }
  generation_ = next_generation();
  return true;
}

}  // namespace schedhost::cluster
