// A kind of object the API serves, by group/version/resource, and where its objects live.
// Generic on purpose: nodes and pods now, PersistentVolumes, Services or a plugin's custom
// resources later, all through the same informer.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace schedhost::kube {

struct Resource {
  std::string group;     // "" for the core group
  std::string version;   // "v1"
  std::string resource;  // plural, lower case: "pods", "poddisruptionbudgets"
  bool namespaced = true;

  static Resource nodes() { return {"", "v1", "nodes", false}; }
  static Resource pods() { return {"", "v1", "pods", true}; }
  static Resource namespaces() { return {"", "v1", "namespaces", false}; }
  static Resource pod_disruption_budgets() {
    return {"policy", "v1", "poddisruptionbudgets", true};
  }

  // "/api/v1/pods", "/apis/policy/v1/poddisruptionbudgets": the collection across namespaces.
  std::string collection_path() const;
  // The path of one object: "/api/v1/namespaces/ns/pods/name", "/api/v1/nodes/name".
  std::string object_path(std::string_view namespace_name, std::string_view name) const;
  // "policy/v1/poddisruptionbudgets", for messages.
  std::string display() const;
};

// An object's store key, as client-go's MetaNamespaceKeyFunc: "namespace/name", or "name" for
// objects without a namespace.
std::string object_key(const nlohmann::json& object);

// metadata.resourceVersion, "" when absent.
std::string resource_version_of(const nlohmann::json& object);

}  // namespace schedhost::kube
