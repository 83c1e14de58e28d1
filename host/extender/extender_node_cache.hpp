// The extender's view of the cluster when it has an API server: nodes, the pods bound to them,
// namespaces and PodDisruptionBudgets, kept by the informers `serve` uses (live/LiveCluster), so
// that a NodeNames request (nodeCacheCapable: true) can be answered and plugins see the pods
// already on each node (InterPodAffinity, PodTopologySpread, NodeResourcesFit...).
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "cluster/snapshot.hpp"
#include "extender/cluster_source.hpp"
#include "kube/api_client.hpp"
#include "kube/informer.hpp"
#include "live/live_cluster.hpp"

namespace schedhost::extender {

class NodeCache final : public ClusterSource {
 public:
  // Starts the informers on client (which must outlive the cache) and waits until each has
  // listed its objects; throws std::runtime_error naming those that did not within sync_timeout.
  NodeCache(kube::ApiClient& client, std::chrono::seconds sync_timeout);
  ~NodeCache() override;  // stops the informers
  NodeCache(const NodeCache&) = delete;
  NodeCache& operator=(const NodeCache&) = delete;

  // Applies what the informers queued since the last call (they only queue, on their own
  // threads) and returns the cluster. One caller at a time, as ClusterSource says.
  cluster::Snapshot& refresh() override;

 private:
  live::LiveCluster cluster_;
  std::vector<std::unique_ptr<kube::Informer>> informers_;
};

}  // namespace schedhost::extender
