#include "extender/extender_node_cache.hpp"

#include <stdexcept>
#include <string>

#include "kube/resource.hpp"
#include "live/filtered_handler.hpp"

namespace schedhost::extender {

NodeCache::NodeCache(kube::ApiClient& client, std::chrono::seconds sync_timeout) {
  auto add = [&](kube::Resource resource, kube::InformerOptions options,
                 kube::InformerHandler handler) {
    informers_.push_back(std::make_unique<kube::Informer>(client, resource, options));
    informers_.back()->set_handler(std::move(handler));
  };
  add(kube::Resource::nodes(), {}, cluster_.node_handler());
  add(kube::Resource::namespaces(), {}, cluster_.namespace_handler());
  add(kube::Resource::pod_disruption_budgets(), {}, cluster_.pod_disruption_budget_handler());
  // Only the pods bound to a node count against it; finished ones free their room (as serve).
  kube::InformerOptions pods;
  pods.field_selector = "status.phase!=Succeeded,status.phase!=Failed";
  add(kube::Resource::pods(), pods,
      live::filtered_handler(
          [](const nlohmann::json& p) {
            return !p.value("/spec/nodeName"_json_pointer, std::string()).empty();
          },
          cluster_.assigned_pod_handler()));
  for (auto& informer : informers_)
    informer->start();
  std::string late;
  for (auto& informer : informers_) {
    if (!informer->wait_for_sync(sync_timeout)) {
      late += (late.empty() ? "" : ", ") + informer->resource().display();
    }
  }
  if (!late.empty()) {
    throw std::runtime_error("extender: the informers for " + late +
                             " did not list their objects within " +
                             std::to_string(sync_timeout.count()) +
                             " s: check that the API server answers and that this user may "
                             "list and watch them");
  }
}

NodeCache::~NodeCache() {
  for (auto& informer : informers_)
    informer->stop();
}

cluster::Snapshot& NodeCache::refresh() {
  cluster_.apply_pending();
  return cluster_.snapshot();
}

}  // namespace schedhost::extender
