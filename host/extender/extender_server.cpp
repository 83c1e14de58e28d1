#include "extender/extender_server.hpp"

#include <httplib.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <exception>

#include "common/input_error.hpp"
#include "serving/health_checks.hpp"

namespace schedhost::extender {
namespace {

constexpr const char* kVerbs = "this extender serves POST /filter and POST /prioritize";

Answer text(int code, std::string line) {
  return {code, std::move(line) + "\n", "text/plain; charset=utf-8"};
}

void send(httplib::Response& res, const Answer& a) {
  res.status = a.code;
  res.set_content(a.body, a.content_type);
}

}  // namespace

Answer answer(ExtenderService& service, const std::string& verb, const std::string& body) {
  try {
    ExtenderArgs args = parse_extender_args(body);
    if (verb == "filter") return {200, to_json(service.filter(std::move(args)))};
    if (verb == "prioritize") return {200, to_json(service.prioritize(std::move(args)))};
    return text(404, "unknown verb \"" + verb + "\": " + kVerbs);
  } catch (const ProtocolError& e) {
    return text(400, std::string("bad ") + verb + " request: " + e.what());
  } catch (const PluginError& e) {
    return text(500, verb + " failed: " + e.what());
  } catch (const std::exception& e) {
    return text(500, verb + " failed: " + e.what());
  }
}

ExtenderServer::ExtenderServer(ExtenderServerOptions options, ExtenderService& service,
                               ExtenderMetrics& metrics,
                               serving::SchedulerMetrics* framework_metrics)
    : tls_(std::move(options.tls)),
      service_(service),
      metrics_(metrics),
      framework_metrics_(framework_metrics) {
  if (tls_) {
    auto ssl = std::make_unique<httplib::SSLServer>(tls_->certificate.get(), tls_->key.get());
    if (!ssl->is_valid()) {
      throw InputError(
          "extender: the TLS certificate and key cannot be used together: give the "
          "key of --tls-cert-file in --tls-private-key-file");
    }
    server_ = std::move(ssl);
  } else {
    server_ = std::make_unique<httplib::Server>();
  }
  // kube-scheduler keeps its connection to an extender open between requests.
  server_->set_keep_alive_max_count(1000);
  server_->set_tcp_nodelay(true);
  route();
  const std::string where = options.bind_address + ":" + std::to_string(options.port);
  port_ = options.port == 0
              ? server_->bind_to_any_port(options.bind_address)
              : (server_->bind_to_port(options.bind_address, options.port) ? options.port : -1);
  if (port_ <= 0) {
    throw InputError("--bind-address " + options.bind_address + " --port " +
                     std::to_string(options.port) + ": cannot listen on " + where +
                     ": the port is taken or the address is not this machine's; choose another");
  }
  listener_ = std::thread([this] {
    server_->listen_after_bind();
    listener_returned_ = true;
  });
  spdlog::info("extender: serving profile \"{}\" on {}://{}:{} (POST /filter, POST /prioritize){}",
               service_.profile_name(), https() ? "https" : "http", options.bind_address, port_,
               service_.has_node_cache() ? ", node cache from the API server"
                                         : ", no node cache (Nodes requests only)");
}

ExtenderServer::~ExtenderServer() {
  // httplib's stop() does nothing before the listener has entered its accept loop (see
  // serving/secure_server.cpp).
  while (!listener_returned_ && !server_->is_running())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  server_->stop();
  if (listener_.joinable()) listener_.join();
}

// A verb's path: /filter or /prioritize, after any prefix of whole segments.
constexpr const char* kVerbPath = R"((?:/[^/]+)*/(filter|prioritize))";

void ExtenderServer::route() {
  // Under any path prefix, so a urlPrefix such as http://host:8888/scheduler works as well.
  server_->Post(kVerbPath, [this](const httplib::Request& req, httplib::Response& res) {
    const auto start = std::chrono::steady_clock::now();
    const std::string verb = req.matches[1].str();
    const Answer a = answer(service_, verb, req.body);
    send(res, a);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    metrics_.request(verb, a.code, seconds);
    if (a.code != 200) {
      spdlog::warn("extender: {} answered {}: {}", verb, a.code,
                   std::string_view(a.body).substr(0, a.body.find('\n')));
    }
  });
  server_->Post("/(.*)", [this](const httplib::Request& req, httplib::Response& res) {
    send(res, text(404, "unknown verb \"" + req.matches[1].str() + "\": " + kVerbs));
    metrics_.request("unknown", 404, 0);
  });
  auto wrong_method = [this](const httplib::Request& req, httplib::Response& res) {
    res.set_header("Allow", "POST");
    send(res, text(405, req.method + " " + req.path + ": the extender verbs take POST"));
    metrics_.request(req.matches[1].str(), 405, 0);
  };
  server_->Get(kVerbPath, wrong_method);
  server_->Put(kVerbPath, wrong_method);
  server_->Patch(kVerbPath, wrong_method);
  server_->Delete(kVerbPath, wrong_method);
  for (const char* endpoint : {"healthz", "livez", "readyz"}) {
    const std::string name = endpoint;
    server_->Get("/" + name, [name](const httplib::Request& req, httplib::Response& res) {
      const std::vector<serving::HealthCheck> checks = {
          {"ping", [] { return std::optional<std::string>(); }}};
      const serving::HealthAnswer a =
          serving::answer_health(name, checks, req.has_param("verbose"), {});
      send(res, {a.code, a.body, "text/plain; charset=utf-8"});
    });
  }
  server_->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    std::string body = framework_metrics_ != nullptr ? framework_metrics_->scrape() : "";
    body += metrics_.scrape();
    send(res, {200, std::move(body), "text/plain; version=0.0.4; charset=utf-8"});
  });
  // Anything else (a GET of an unknown path): one line, not cpp-httplib's empty 404.
  server_->set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    if (res.status == 404) {
      send(res, text(404, req.method + " " + req.path + ": not found: " + kVerbs +
                              ", GET /healthz, /livez, /readyz and /metrics"));
    }
  });
}

}  // namespace schedhost::extender
