// Running an exec credential plugin (client.authentication.k8s.io/v1 or v1beta1) as client-go
// does: no stdin, KUBERNETES_EXEC_INFO in its environment, an ExecCredential on its stdout.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

#include "kube/client_config.hpp"

namespace schedhost::kube {

// What the plugin gave: a bearer token, or a client certificate and key (PEM), or both.
struct ExecCredential {
  std::string token;
  std::string client_cert_pem;
  std::string client_key_pem;
  std::optional<std::chrono::system_clock::time_point> expiry;  // none: until the server says 401
};

inline constexpr std::chrono::milliseconds kExecCredentialTimeout{30'000};
inline constexpr std::size_t kMaxExecCredentialOutput = std::size_t{1} << 20;

// Runs the plugin (a bare command is looked up in PATH), in its own process group with stdin
// /dev/null, the plugin's env added and KUBERNETES_EXEC_INFO set (with the cluster's server and
// CA when provide_cluster_info); kills it after `timeout`. Throws std::runtime_error of one line
// naming the command: it cannot be run (with the install hint), it timed out, it failed (exit
// code and the first line of its stderr), or its stdout is not an ExecCredential with a
// credential in it.
ExecCredential run_exec_credential(const ExecCredentialPlugin& plugin, const std::string& server,
                                   const std::string& ca_pem,
                                   std::chrono::milliseconds timeout = kExecCredentialTimeout);

}  // namespace schedhost::kube
