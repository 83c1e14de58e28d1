#include "serving/secure_server.hpp"

#include <chrono>

#include <httplib.h>
#include <spdlog/spdlog.h>

#include "common/input_error.hpp"

namespace schedhost::serving {
namespace {

std::vector<std::string> excludes(const httplib::Request& req) {
  std::vector<std::string> out;
  const std::size_t n = req.get_param_value_count("exclude");
  for (std::size_t i = 0; i < n; ++i)
    out.push_back(req.get_param_value("exclude", i));
  return out;
}

void reply(httplib::Response& res, int code, const std::string& body, const char* type) {
  res.status = code;
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_content(body, type);
}

}  // namespace

SecureServer::SecureServer(const SecureServingOptions& options, TlsIdentity identity,
                           DelegatedAuth& auth, SecureEndpoints endpoints)
    : identity_(std::move(identity)), auth_(auth), endpoints_(std::move(endpoints)) {
  server_ = std::make_unique<httplib::SSLServer>(identity_.certificate.get(), identity_.key.get());
  if (!server_->is_valid()) {
    throw InputError("secure port: the TLS certificate and key cannot be used together");
  }
  // Every request: authorized first (401/403 as the API server says), then served.
  server_->set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    const AuthDecision d = auth_.check(req.path, req.get_header_value("Authorization"));
    if (d.code == 200) return httplib::Server::HandlerResponse::Unhandled;
    reply(res, d.code, d.body, "application/json");
    return httplib::Server::HandlerResponse::Handled;
  });
  for (const char* endpoint : {"healthz", "livez", "readyz"}) {
    const std::string name = endpoint;
    auto handler = [this, name](const httplib::Request& req, httplib::Response& res) {
      const std::string check = req.matches.size() > 1 ? req.matches[1].str() : std::string();
      const HealthAnswer a = answer_health(name, endpoints_.checks(name), req.has_param("verbose"),
                                           excludes(req), check);
      reply(res, a.code, a.body, "text/plain; charset=utf-8");
    };
    server_->Get("/" + name, handler);
    server_->Get("/" + name + "/([A-Za-z0-9_-]+)", handler);
  }
  server_->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    reply(res, 200, endpoints_.metrics->scrape(), "text/plain; version=0.0.4; charset=utf-8");
  });
  server_->Get("/configz", [this](const httplib::Request&, httplib::Response& res) {
    reply(res, 200, endpoints_.configz, "application/json");
  });
  const std::string where = options.bind_address + ":" + std::to_string(options.port);
  if (!server_->bind_to_port(options.bind_address, options.port)) {
    throw InputError("--bind-address " + options.bind_address + " --secure-port " +
                     std::to_string(options.port) + ": cannot listen on " + where +
                     ": the port is taken or the address is not this machine's; choose another "
                     "(--secure-port 0 turns the secure port off)");
  }
  listener_ = std::thread([this] {
    server_->listen_after_bind();
    listener_returned_ = true;
  });
  spdlog::info("serve: secure port on https://{} ({} certificate)", where,
               identity_.self_signed ? "self-signed" : "given");
}

SecureServer::~SecureServer() {
  // httplib's stop() does nothing until the listener has entered its accept loop: a serve that
  // ends right after it started (a bad plugin resource at start) waits for that, or the join
  // below would wait for a connection forever.
  while (!listener_returned_ && !server_->is_running())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  server_->stop();
  if (listener_.joinable()) listener_.join();
}

}  // namespace schedhost::serving
