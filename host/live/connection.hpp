// How `schedhost serve` reaches the API server: the client configuration, resolved as
// kube-scheduler resolves it, and the checks made before scheduling starts (the server answers,
// accepts the credentials, and lets this user do everything the scheduler writes and watches), so
// that a bad setup fails at once with one line saying what to fix instead of at the first bind.
#pragma once

#include <optional>
#include <string>

#include "config/scheduler_configuration.hpp"
#include "kube/api_client.hpp"
#include "kube/client_config.hpp"

namespace schedhost::live {

// The client configuration: clientConnection.kubeconfig when set, else the --kubeconfig flag,
// else the in-cluster configuration when KUBERNETES_SERVICE_HOST is set, else $KUBECONFIG or
// ~/.kube/config; clientConnection's qps and burst (0 or unset: 50 and 100) applied, contentType
// and acceptContentTypes checked. Throws InputError of one line (naming the config file's
// location for a bad clientConnection value).
kube::ClientConfig resolve_client_config(const config::SchedulerConfiguration& cfg,
                                         const std::string& kubeconfig_flag);

// The Lease leader election will hold (leaderElection.resourceNamespace / resourceName).
struct LeaseLock {
  std::string namespace_ = "kube-system";
  std::string name = "kube-scheduler";
};

struct ServerInfo {
  std::string version;  // the server's gitVersion, e.g. "v1.35.4"
  std::string user;     // who the server says we are; "" when it cannot say (before v1.28)
};

// Checks, in order, that the server answers GET /version, accepts the credentials, and allows
// every request the scheduler makes (one SelfSubjectAccessReview each): list and watch nodes,
// pods, namespaces and poddisruptionbudgets, create pods/binding, patch pods/status, delete pods,
// create and patch events.k8s.io events, and with lease set get, create and update that Lease.
// Throws InputError of one line saying what was tried, what came back and the fix; a denial lists
// every missing permission at once.
ServerInfo preflight(kube::ApiClient& client, const std::optional<LeaseLock>& lease = std::nullopt);

}  // namespace schedhost::live
