// The informers behind a live cluster cache, started and waited for before anything is
// answered: serve's scheduler and the extender's node cache both keep one.
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "kube/api_client.hpp"
#include "kube/informer.hpp"
#include "live/live_cluster.hpp"

namespace schedhost::live {

// Nodes, namespaces and PodDisruptionBudgets feeding cluster, the other kinds plugins read (the
// host's and the declared ones), and the pods that have not finished (status.phase neither
// Succeeded nor Failed, so a completed pod frees its room) feeding pods, which decides which of
// them go where. Not started. client and cluster must outlive them. Throws std::runtime_error,
// naming the plugin, when the API server does not serve a declared resource.
std::vector<std::unique_ptr<kube::Informer>> cluster_informers(kube::ApiClient& client,
                                                               LiveCluster& cluster,
                                                               kube::InformerHandler pods);

// Starts every informer, then waits until each has listed its objects. Throws
// std::runtime_error "the informers for <resources> did not list their objects within <n> s".
void start_and_sync(const std::vector<std::unique_ptr<kube::Informer>>& informers,
                    std::chrono::seconds timeout);

// Stops every informer, all at once: each is asked first, then joined (about one second in all,
// however many there are).
void stop_all(const std::vector<std::unique_ptr<kube::Informer>>& informers);

}  // namespace schedhost::live
