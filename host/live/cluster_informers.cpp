#include "live/cluster_informers.hpp"

#include <stdexcept>
#include <string>

#include "cluster/object_kinds.hpp"
#include "kube/api_error.hpp"
#include "kube/resource.hpp"

namespace schedhost::live {
namespace {

kube::Resource resource_of(const cluster::ObjectKind& kind) {
  return {std::string(kind.group), std::string(kind.preferred_version()), std::string(kind.plural),
          kind.namespaced};
}

// A resource a plugin declared must be served before it is watched: otherwise its informer would
// retry forever and serve would never be ready, with nothing said. Upstream's discovery answers
// which resources a group version serves.
void check_served(kube::ApiClient& client, const cluster::ObjectKind& kind) {
  const kube::Resource resource = resource_of(kind);
  const std::string group_version =
      resource.group.empty() ? resource.version : resource.group + "/" + resource.version;
  const std::string path =
      resource.group.empty() ? "/api/" + resource.version : "/apis/" + group_version;
  bool served = false;
  try {
    const nlohmann::json discovery = client.get(path);
    const nlohmann::json* list =
        discovery.contains("resources") ? &discovery["resources"] : nullptr;
    if (list != nullptr && list->is_array()) {
      for (const nlohmann::json& r : *list) {
        if (r.is_object() && r.value("name", "") == resource.resource) served = true;
      }
    }
  } catch (const kube::ApiError& e) {
    if (!e.not_found()) throw;
  }
  if (!served) {
    throw std::runtime_error(
        "plugin " + cluster::declared_by(kind) + " reads " + std::string(kind.resource) +
        ", which the API server does not serve (no " + resource.resource + " in " + group_version +
        "): install its CustomResourceDefinition, or disable the plugin");
  }
}

}  // namespace

std::vector<std::unique_ptr<kube::Informer>> cluster_informers(kube::ApiClient& client,
                                                               LiveCluster& cluster,
                                                               kube::InformerHandler pods) {
  for (const cluster::ObjectKind* kind : cluster::all_object_kinds()) {
    if (kind->declared) check_served(client, *kind);
  }
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
  // And the resources plugins declared (ABI 1.9), one informer each however many declared it.
  for (const cluster::ObjectKind* kind : cluster::all_object_kinds()) {
    add(resource_of(*kind), {}, cluster.object_handler(*kind));
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
