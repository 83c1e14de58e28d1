// serve's secure port (kube-scheduler's, 10259): HTTPS with the TLS identity given or made, the
// health endpoints (/healthz, /livez, /readyz, and /<endpoint>/<check>), /metrics and /configz,
// each request authenticated and authorized by the API server unless its path is always allowed.
// One listener thread; handlers run on cpp-httplib's worker threads.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "serving/delegated_auth.hpp"
#include "serving/health_checks.hpp"
#include "serving/scheduler_metrics.hpp"
#include "serving/tls_identity.hpp"

namespace httplib {
class SSLServer;
}

namespace schedhost::serving {

struct SecureServingOptions {
  std::string bind_address = "0.0.0.0";
  int port = 10259;  // 0: no secure port
  std::string cert_file;
  std::string key_file;
  std::set<std::string> always_allow = {"/healthz", "/readyz", "/livez"};
};

struct SecureEndpoints {
  // The checks of an endpoint ("healthz", "livez", "readyz"), evaluated per request.
  std::function<std::vector<HealthCheck>(const std::string& endpoint)> checks;
  SchedulerMetrics* metrics = nullptr;
  std::string configz;  // the effective configuration as JSON
};

class SecureServer {
 public:
  // Binds the port (throws InputError with the address when it cannot) and starts serving.
  SecureServer(const SecureServingOptions& options, TlsIdentity identity, DelegatedAuth& auth,
               SecureEndpoints endpoints);
  ~SecureServer();  // stops serving
  SecureServer(const SecureServer&) = delete;
  SecureServer& operator=(const SecureServer&) = delete;

 private:
  TlsIdentity identity_;  // outlives the server, which refers to it
  DelegatedAuth& auth_;
  SecureEndpoints endpoints_;
  std::unique_ptr<httplib::SSLServer> server_;
  std::thread listener_;
  std::atomic<bool> listener_returned_{false};  // listen_after_bind() came back
};

}  // namespace schedhost::serving
