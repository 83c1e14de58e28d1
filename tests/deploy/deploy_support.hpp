// What the deploy tests share: deploy/ rendered by `kubectl kustomize` (the objects
// `kubectl apply -k deploy/` sends), as JSON, and kubectl run against the test control plane.
#pragma once

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cluster/yaml_to_json.hpp"
#include "serve/serve_support.hpp"

namespace schedhost::testing::deploy {

const std::string kDeployDir = std::string(SCHEDHOST_SOURCE_DIR) + "/deploy";
// The namespace and ServiceAccount the manifests install.
const std::string kNamespace = "schedhost-system";
const std::string kServiceAccount = "schedhost";

// The kubectl of the control plane the live tests use (v1.35, built by `make controlplane`), or
// nullopt with *why set.
inline std::optional<std::string> find_kubectl(std::string* why) {
  auto binaries = find_control_plane(why);
  if (!binaries) return std::nullopt;
  if (binaries->kubectl.empty()) {
    *why = "no kubectl beside the API server in " + binaries->source;
    return std::nullopt;
  }
  return binaries->kubectl;
}

// `kubectl kustomize deploy/`: every object, in kubectl's order. Throws when it does not render.
inline std::vector<json> render(const std::string& kubectl) {
  const auto [status, out] = run_command({kubectl, "kustomize", kDeployDir});
  if (status != 0) throw std::runtime_error("kubectl kustomize deploy/ failed: " + out);
  std::vector<json> objects;
  for (const YAML::Node& doc : YAML::LoadAll(out)) {
    if (doc.IsNull()) continue;
    objects.push_back(cluster::yaml_to_json(doc, "kubectl kustomize deploy/"));
  }
  return objects;
}

// "Kind namespace/name" (no namespace for a cluster-scoped object).
inline std::string object_key(const json& object) {
  const json& m = object["metadata"];
  const std::string ns = m.value("namespace", "");
  return object.value("kind", "") + " " + (ns.empty() ? "" : ns + "/") + m.value("name", "");
}

inline const json& object_named(const std::vector<json>& objects, const std::string& key) {
  for (const json& o : objects) {
    if (object_key(o) == key) return o;
  }
  throw std::runtime_error("deploy/ renders no " + key);
}

// The KubeSchedulerConfiguration of the ConfigMap the Deployment mounts, as its file's text.
inline std::string scheduler_config(const std::vector<json>& objects) {
  return object_named(objects,
                      "ConfigMap " + kNamespace + "/schedhost-config")["data"]["config.yaml"];
}

// `kubectl <args> --kubeconfig <the admin's>`: {exit status, stdout+stderr}.
inline std::pair<int, std::string> kubectl(const ControlPlane& plane,
                                           std::vector<std::string> args) {
  args.insert(args.begin(), plane.binaries().kubectl);
  args.insert(args.end(), {"--kubeconfig", plane.kubeconfig()});
  return run_command(args);
}

}  // namespace schedhost::testing::deploy
