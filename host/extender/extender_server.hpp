// The extender's HTTP(S) listener: POST /filter and POST /prioritize (kube-scheduler's
// filterVerb and prioritizeVerb under urlPrefix http(s)://<address>:<port>), /healthz, /livez,
// /readyz and /metrics. cpp-httplib parses HTTP; handlers run on its worker threads and call the
// service, which is thread-safe.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "extender/extender_metrics.hpp"
#include "extender/extender_service.hpp"
#include "serving/scheduler_metrics.hpp"
#include "serving/tls_identity.hpp"

namespace httplib {
class Server;
}

namespace schedhost::extender {

struct ExtenderServerOptions {
  std::string bind_address = "0.0.0.0";
  int port = 8888;  // 0: any free port (see ExtenderServer::port)
  // HTTPS with this identity (kube-scheduler's enableHTTPS: true); none: plain HTTP.
  std::unique_ptr<serving::TlsIdentity> tls;
};

// The body of an answer and its status, as the HTTP handlers send it (also what the benchmark
// times without a socket).
struct Answer {
  int code = 200;
  std::string body;
  const char* content_type = "application/json";
};

// Answers one request for verb ("filter" or "prioritize") with its body: 200 and the protocol's
// JSON, 400 for a request the protocol refuses, 500 when a plugin fails where the answer has no
// Error field. Never throws. Thread-safe.
Answer answer(ExtenderService& service, const std::string& verb, const std::string& body);

class ExtenderServer {
 public:
  // Binds the port (throws InputError naming the address when it cannot) and starts serving.
  // service, metrics and framework_metrics (which may be null) must outlive the server.
  ExtenderServer(ExtenderServerOptions options, ExtenderService& service, ExtenderMetrics& metrics,
                 serving::SchedulerMetrics* framework_metrics);
  ~ExtenderServer();  // stops serving; requests in progress finish first
  ExtenderServer(const ExtenderServer&) = delete;
  ExtenderServer& operator=(const ExtenderServer&) = delete;

  int port() const { return port_; }  // the port bound
  bool https() const { return tls_ != nullptr; }

 private:
  void route();

  std::unique_ptr<serving::TlsIdentity> tls_;  // outlives server_, which refers to it
  ExtenderService& service_;
  ExtenderMetrics& metrics_;
  serving::SchedulerMetrics* framework_metrics_;
  std::unique_ptr<httplib::Server> server_;
  int port_ = 0;
  std::thread listener_;
  std::atomic<bool> listener_returned_{false};  // listen_after_bind() came back
};

}  // namespace schedhost::extender
