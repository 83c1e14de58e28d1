// schedhost/k8s/signers.hpp - upstream v1.35's shared pod-signature fragments (its
// framework/signers.go), for SignPod: plugins that read the same part of a pod sign it under the
// same key with the same value, so the signature has it once.
#pragma once

#include <schedhost/objects.hpp>
#include <schedhost/pod_signature.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace schedhost::k8s {

// Sorts a JSON array whose order does not matter, by its elements' text, and drops duplicates.
inline nlohmann::json sorted_set(nlohmann::json array) {
  std::sort(array.begin(), array.end(),
            [](const nlohmann::json& a, const nlohmann::json& b) { return a.dump() < b.dump(); });
  array.erase(std::unique(array.begin(), array.end()), array.end());
  return array;
}

// Any part of the pod by JSON pointer, parsed (objects come out with sorted keys); null when
// absent.
inline nlohmann::json pod_json(const Pod& pod, std::string_view pointer) {
  const auto text = pod.json(pointer);
  if (!text) return nullptr;
  return nlohmann::json::parse(*text, nullptr, false);
}

// The requests as NodeResourcesFit and NodeResourcesBalancedAllocation read them: the pod's
// effective requests (pod-level resources, init containers and overhead included) and what
// scoring counts for cpu and memory when a container sets none.
inline void sign_requests(const Pod& pod, PodSignature& signature) {
  nlohmann::json requests = nlohmann::json::object();
  for (const ResourceAmount r : pod.requests())
    requests[std::string(r.name)] = r.value;
  signature.add(
      "v1.Pod.Spec.ContainerRequestsAndOverheads()",
      {{"requests", std::move(requests)},
       {"nonzero",
        {{"cpu", pod.nonzero_request("cpu")}, {"memory", pod.nonzero_request("memory")}}}});
}

// The tolerations, as TaintToleration and NodeUnschedulable read them.
inline void sign_tolerations(const Pod& pod, PodSignature& signature) {
  nlohmann::json all = nlohmann::json::array();
  for (const Toleration t : pod.tolerations()) {
    all.push_back({t.key, t.op, t.value, t.effect,
                   t.toleration_seconds ? nlohmann::json(*t.toleration_seconds) : nullptr});
  }
  signature.add("v1.Pod.Spec.Tolerations", sorted_set(std::move(all)));
}

// The host ports of every container, as NodePorts reads them.
inline void sign_host_ports(const Pod& pod, PodSignature& signature) {
  nlohmann::json all = nlohmann::json::array();
  for (const HostPort p : pod.host_ports())
    all.push_back({p.host_ip, p.protocol, p.port});
  signature.add("v1.Pod.Spec.Containers.Ports.HostPorts", sorted_set(std::move(all)));
}

// Required and preferred node affinity and the nodeSelector, as NodeAffinity reads them.
inline void sign_node_affinity(const Pod& pod, PodSignature& signature) {
  signature.add("v1.Pod.Spec.Affinity.NodeAffinity", pod_json(pod, "/spec/affinity/nodeAffinity"));
  nlohmann::json selector = nlohmann::json::object();
  for (const KeyValue kv : pod.node_selector())
    selector[std::string(kv.key)] = kv.value;
  signature.add("v1.Pod.Spec.Affinity.NodeSelector", std::move(selector));
}

// The pod's volumes as the volume plugins (VolumeBinding, VolumeRestrictions, VolumeZone,
// NodeVolumeLimits) read them: each volume's source without its name, but configMap and secret
// ones, as sorted JSON texts (upstream's VolumesSigner).
inline void sign_volumes(const Pod& pod, PodSignature& signature) {
  std::vector<std::string> sources;
  nlohmann::json volumes = pod_json(pod, "/spec/volumes");
  if (volumes.is_array()) {
    for (nlohmann::json& v : volumes) {
      if (!v.is_object()) continue;
      auto is_set = [&v](const char* key) {
        const auto it = v.find(key);
        return it != v.end() && !it->is_null();
      };
      if (is_set("configMap") || is_set("secret")) continue;
      v.erase("name");
      sources.push_back(v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    }
  }
  std::sort(sources.begin(), sources.end());
  signature.add("v1.Pod.Spec.Volumes.NonSyntheticSources()", nlohmann::json(std::move(sources)));
}

}  // namespace schedhost::k8s
