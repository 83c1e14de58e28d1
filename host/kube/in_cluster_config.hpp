// The in-cluster configuration, as client-go's rest.InClusterConfig builds it: the API server from
// KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT, the pod's service account token (re-read by
// the client, it rotates), its CA and its namespace.
#pragma once

#include <string>

#include "kube/client_config.hpp"

namespace schedhost::kube {

inline constexpr const char* kServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount";

// server https://host:port (an IPv6 host bracketed), token_file dir/token (it must exist),
// ca_pem from dir/ca.crt, namespace_ from $POD_NAMESPACE or dir/namespace (trimmed), else
// "default". Throws InputError of one line when the variables are unset or a file is missing.
ClientConfig load_in_cluster_config(const std::string& service_account_dir = kServiceAccountDir);

}  // namespace schedhost::kube
