#include "live/cluster_informers.hpp"

#include <stdexcept>
#include <string>

#include "cluster/object_kinds.hpp"
#include "kube/resource.hpp"

namespace schedhost::live {

std::vector<std::unique_ptr<kube::Informer>> cluster_informers(kube::ApiClient& client,
                                                               LiveCluster& cluster,
                                                               kube::InformerHandler pods) {
  std::vector<std::unique_ptr<kube::Informer>> out;
  auto add = [&](const kube::Resource& resource, const kube::InformerOptions& options,
                 kube::InformerHandler handler) {
    out.push_back(std::make_unique<kube::Informer>(client, resource, options));
    out.back()->set_handler(std::move(handler));
  };
  add(kube::Resource::nodes(), {}, cluster.node_handler());
  add(kube::Resource::namespaces(), {}, cluster.namespace_handler());
  add(kube::Resource::pod_disruption_budgets(), {}, cluster.pod_disruption_budget_handler());
  // What the default profile's volume plugins and PodTopologySpread's default constraints read,
  // as upstream's informer factory opens them for the default profile.
  for (const cluster::ObjectKind& kind : cluster::object_kinds()) {
    const kube::Resource resource{std::string(kind.group), std::string(kind.preferred_version()),
                                  std::string(kind.plural), kind.namespaced};
    add(resource, {}, cluster.object_handler(kind));
  }
  kube::InformerOptions unfinished;
  unfinished.field_selector = "status.phase!=Succeeded,status.phase!=Failed";
  add(kube::Resource::pods(), unfinished, std::move(pods));
  return out;
}

void start_and_sync(const std::vector<std::unique_ptr<kube::Informer>>& informers,
                    std::chrono::seconds timeout) {
  for (const auto& informer : informers)
    informer->start();
  std::string late;
  for (const auto& informer : informers) {
    if (!informer->wait_for_sync(timeout)) {
      late += (late.empty() ? "" : ", ") + informer->resource().display();
    }
  }
  if (!late.empty()) {
    throw std::runtime_error("the informers for " + late + " did not list their objects within " +
                             std::to_string(timeout.count()) + " s");
  }
}

void stop_all(const std::vector<std::unique_ptr<kube::Informer>>& informers) {
  for (const auto& informer : informers)
    informer->request_stop();
  for (const auto& informer : informers)
    informer->stop();
}

}  // namespace schedhost::live
