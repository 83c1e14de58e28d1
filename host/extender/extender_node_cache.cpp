#include "extender/extender_node_cache.hpp"

#include <stdexcept>
#include <string>

#include "cluster/json_field.hpp"
#include "live/cluster_informers.hpp"
#include "live/filtered_handler.hpp"

namespace schedhost::extender {

NodeCache::NodeCache(kube::ApiClient& client, std::chrono::seconds sync_timeout) {
  // Only the pods bound to a node count against it.
  informers_ =
      live::cluster_informers(client, cluster_,
                              live::filtered_handler(
                                  [](const nlohmann::json& p) {
                                    return !cluster::string_at(p, {"spec", "nodeName"}).empty();
                                  },
                                  cluster_.assigned_pod_handler()));
  try {
    live::start_and_sync(informers_, sync_timeout);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string("extender: ") + e.what() +
                             ": check that the API server answers and that this user may list "
                             "and watch them");
  }
}

NodeCache::~NodeCache() {
  live::stop_all(informers_);
}

cluster::Snapshot& NodeCache::refresh() {
  cluster_.apply_pending();
  return cluster_.snapshot();
}

}  // namespace schedhost::extender
