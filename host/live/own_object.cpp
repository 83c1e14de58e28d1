#include "live/own_object.hpp"

#include <cstdlib>
#include <string>

namespace schedhost::live {
namespace {

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

nlohmann::json read_or_name(kube::ApiClient& client, const std::string& path,
                            const std::string& api_version, const std::string& kind,
                            const std::string& ns, const std::string& name) {
  try {
    return client.get(path);
  } catch (const std::exception&) {
    return {{"apiVersion", api_version},
            {"kind", kind},
            {"metadata", {{"namespace", ns}, {"name", name}}}};
  }
}

}  // namespace

nlohmann::json own_object(kube::ApiClient& client, const std::optional<LeaseLock>& lease) {
  const std::string pod = env("POD_NAME");
  const std::string ns = env("POD_NAMESPACE");
  if (!pod.empty() && !ns.empty()) {
    return read_or_name(
        client, "/api/v1/namespaces/" + kube::url_escape(ns) + "/pods/" + kube::url_escape(pod),
        "v1", "Pod", ns, pod);
  }
  if (lease) {
    return read_or_name(client,
                        "/apis/coordination.k8s.io/v1/namespaces/" +
                            kube::url_escape(lease->namespace_) + "/leases/" +
                            kube::url_escape(lease->name),
                        "coordination.k8s.io/v1", "Lease", lease->namespace_, lease->name);
  }
  return nullptr;
}

}  // namespace schedhost::live
