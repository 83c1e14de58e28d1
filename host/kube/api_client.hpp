// A Kubernetes API client over libcurl: TLS, keep-alive connections reused across requests,
// the client-side token bucket, client-go's retries on 429 / Retry-After, and streaming GETs for
// watches. JSON only (Accept: application/json). Thread-safe: each request borrows a connection
// from a pool. It knows nothing of scheduling.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/api_error.hpp"
#include "kube/client_config.hpp"
#include "kube/credentials.hpp"
#include "kube/rate_limiter.hpp"

namespace schedhost::kube {

enum class PatchType { Merge, StrategicMerge, Json };

struct Response {
  long code = 0;  // HTTP status; 0 when no answer came
  std::string body;
  long retry_after_s = -1;  // the Retry-After header, when the answer had one
  // When no answer came (RequestLoop; ApiClient throws ApiError instead): libcurl's CURLcode
  // and message, or the reason the request was not sent.
  int transport = 0;
  std::string error;
};

class ApiClient {
 public:
  // user_agent_suffix is appended to "schedhost/<version> (linux/amd64)", e.g. "/scheduler".
  // client-go's retries of a 429, or a 5xx with Retry-After, before the answer is returned.
  static constexpr int kMaxRetries = 10;
  // How long to wait before sending again a request answered so after `retries` retries (the
  // Retry-After, 1..10 s), or nullopt when the answer is final. Shared by request() and
  // RequestLoop.
  static std::optional<std::chrono::seconds> retry_delay(const Response& response, int retries);

  explicit ApiClient(ClientConfig config, std::string user_agent_suffix = "");
  ~ApiClient();
  ApiClient(const ApiClient&) = delete;
  ApiClient& operator=(const ApiClient&) = delete;

  const ClientConfig& config() const { return config_; }

  // Each of these throws ApiError on a non-2xx answer or when no answer came, after the
  // retries client-go makes (429, or a 5xx with Retry-After: up to 10 times).
  nlohmann::json get(const std::string& path);
  nlohmann::json create(const std::string& path, const nlohmann::json& body);   // POST
  nlohmann::json replace(const std::string& path, const nlohmann::json& body);  // PUT
  nlohmann::json patch(const std::string& path, const nlohmann::json& body, PatchType type);
  nlohmann::json remove(const std::string& path, const nlohmann::json& options = {});  // DELETE
  // The same writes for callers that never read the answer (a binding, an Event): errors are
  // thrown alike, but a successful answer's body (the whole created Event) is not parsed.
  void create_unread(const std::string& path, const nlohmann::json& body);
  void patch_unread(const std::string& path, const nlohmann::json& body, PatchType type);

  // One request, no throw on an HTTP error code (ApiError only when no answer came).
  Response request(const std::string& method, const std::string& path, std::string_view body = {},
                   std::string_view content_type = {});

  // A streaming GET (a watch): on_data gets each chunk as it arrives and returns false to stop.
  // Returns the HTTP code and, for an error answer, its body. Ends when the server closes the
  // stream, on_data says stop, or *stop becomes true (checked about once a second).
  Response stream(const std::string& path, const std::function<bool(std::string_view)>& on_data,
                  const std::atomic<bool>* stop);

  // The ApiError a non-2xx response describes (or one that got no answer: code 0).
  static ApiError error_of(const std::string& method, const std::string& path,
                           const Response& response);
  // Throws error_of(...).
  [[noreturn]] static void raise(const std::string& method, const std::string& path,
                                 const Response& response);

 private:
  friend class RequestLoop;  // shares prepare() and conclude()
  struct Connection;
  struct Exchange;
  // Sets up curl for the request x describes; throws ApiError when no credentials could be had.
  void prepare(void* curl, Exchange& x, std::string_view content_type,
               const std::function<bool(std::string_view)>* on_data, const std::atomic<bool>* stop);
  // The answer once curl is done with x (rc its result); never throws.
  Response conclude(void* curl, Exchange& x, int rc);
  std::unique_ptr<Connection> borrow();
  void give_back(std::unique_ptr<Connection> connection);
  Response perform(Connection& c, const std::string& method, const std::string& path,
                   std::string_view body, std::string_view content_type,
                   const std::function<bool(std::string_view)>* on_data,
                   const std::atomic<bool>* stop);
  nlohmann::json call(const std::string& method, const std::string& path, std::string_view body,
                      std::string_view content_type);
  // call() without parsing a 2xx answer.
  void call_unread(const std::string& method, const std::string& path, std::string_view body,
                   std::string_view content_type);

  ClientConfig config_;
  std::string user_agent_;
  std::string url_base_;    // server URL, with the host replaced by tls_server_name when set
  std::string connect_to_;  // CURLOPT_CONNECT_TO entry when tls_server_name is set
  Credentials credentials_;
  RateLimiter limiter_;
  std::mutex pool_mutex_;
  std::vector<std::unique_ptr<Connection>> pool_;
};

// "/api/v1/namespaces/ns/pods/name": percent-encodes one path segment or query value.
std::string url_escape(std::string_view text);

}  // namespace schedhost::kube
