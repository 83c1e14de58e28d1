// NominatedPods: upstream's nominator. A pod nominated to a node (by a preemption, or arriving with
// status.nominatedNodeName) is counted on that node whenever a pod of equal or lower priority is
// filtered there (Framework::run_filter_with_nominated_pods), so the room its victims freed is not
// taken before it is bound. Written on the scheduling thread between Filter passes; read by the
// Filter threads.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/pod.hpp"

namespace schedhost::framework {

class NominatedPods {
 public:
  using PodPtr = std::shared_ptr<const cluster::Pod>;

  // Nominates pod to node, replacing its earlier nomination.
  void add(PodPtr pod, const std::string& node);
  // Ends its nomination (bound, deleted, failed with an Error, or cleared by preemption).
  void remove(const std::string& uid);
  bool empty() const { return node_of_.empty(); }
  std::optional<std::string> node_of(const std::string& uid) const;

  // The pods nominated to node that count when `pod` is filtered there: priority at least its
  // own, another uid; in nomination order.
  std::vector<PodPtr> counted_for(const cluster::Pod& pod, const std::string& node) const;
  // The pods nominated to node with a lower priority than `pod` (a preemption for pod clears
  // their nominations: they may no longer fit there); in nomination order.
  std::vector<PodPtr> lower_priority(const cluster::Pod& pod, const std::string& node) const;

 private:
  std::map<std::string, std::vector<PodPtr>> by_node_;  // node -> nominated pods
  std::map<std::string, std::string> node_of_;          // pod uid -> its node
};

}  // namespace schedhost::framework
