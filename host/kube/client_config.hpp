// Where the API server is and who we are to it: what a kubeconfig context or the in-cluster
// service account resolves to, before any connection is made. The kube client knows nothing of
// the framework; this struct is all it needs to reach a server.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace schedhost::kube {

// An exec credential plugin (client.authentication.k8s.io/v1): run command, read an
// ExecCredential from its stdout, use its token or client certificate until its expiry.
struct ExecCredentialPlugin {
  std::string command;  // resolved as kubectl does: a path with '/' is relative to the kubeconfig
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;  // added to the process environment
  std::string api_version;   // client.authentication.k8s.io/v1 (v1beta1 accepted too)
  std::string install_hint;  // printed when the command cannot be run
  bool provide_cluster_info = false;
};

struct ClientConfig {
  std::string server;           // https://host:port, no trailing slash
  std::string tls_server_name;  // overrides the name checked in the server's certificate
  bool insecure_skip_tls_verify = false;
  std::string ca_pem;  // PEM bundle; empty: the system's trust store

  // Client certificate authentication (PEM).
  std::string client_cert_pem;
  std::string client_key_pem;

  // Bearer token: token as given, or token_file re-read when it changes (bound service-account
  // tokens rotate), or exec's credential.
  std::string token;
  std::string token_file;
  std::optional<ExecCredentialPlugin> exec;

  std::string username;  // basic authentication, when the kubeconfig has it
  std::string password;

  std::string namespace_;  // the context's namespace, or the service account's (in-cluster)
  std::string source;      // where this came from, for messages: "kubeconfig /path (context c)"

  // clientConnection: requests per second and burst of the client's token bucket.
  double qps = 50;
  int burst = 100;
  std::string content_type = "application/json";
  std::chrono::milliseconds timeout{0};  // 0: no overall timeout for non-watch requests
};

}  // namespace schedhost::kube
