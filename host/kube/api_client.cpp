#include "kube/api_client.hpp"

#include <curl/curl.h>

#include "kube/curl_exchange.hpp"
#include "kube/json_parse.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <thread>

namespace schedhost::kube {
namespace {

constexpr long kDefaultTimeoutMs = 60'000;  // a non-watch request that hangs longer fails

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::string_view content_type_of(PatchType type) {
  switch (type) {
    case PatchType::Merge:
      return "application/merge-patch+json";
    case PatchType::StrategicMerge:
      return "application/strategic-merge-patch+json";
    case PatchType::Json:
      return "application/json-patch+json";
  }
  return "application/merge-patch+json";
}

size_t on_write(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  if (t->on_data != nullptr) {
    if (!(*t->on_data)(std::string_view(data, n))) {
      t->stopped = true;
      return 0;  // aborts the transfer
    }
    return n;
  }
  t->body.append(data, n);
  return n;
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  std::string_view line(data, n);
  constexpr std::string_view kRetryAfter = "retry-after:";
  if (line.size() > kRetryAfter.size()) {
    std::string head(line.substr(0, kRetryAfter.size()));
    std::transform(head.begin(), head.end(), head.begin(), ::tolower);
    if (head == kRetryAfter) {
      try {
        t->retry_after_s = std::stol(std::string(line.substr(kRetryAfter.size())));
      } catch (const std::exception&) {
        t->retry_after_s = 1;
      }
    }
  }
  return n;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  if (t->stop != nullptr && t->stop->load(std::memory_order_relaxed)) {
    t->stopped = true;
    return 1;  // aborts the transfer
  }
  return 0;
}

void set_blob(CURL* curl, CURLoption option, const std::string& pem) {
  curl_blob blob{const_cast<char*>(pem.data()), pem.size(), CURL_BLOB_COPY};
  curl_easy_setopt(curl, option, &blob);
}

// scheme://host[:port] split into the parts CURLOPT_CONNECT_TO needs.
struct ServerUrl {
  std::string scheme, host, port;
};

ServerUrl split_server(const std::string& server) {
  ServerUrl u;
  std::string rest = server;
  if (auto p = rest.find("://"); p != std::string::npos) {
    u.scheme = rest.substr(0, p);
    rest = rest.substr(p + 3);
  }
  if (auto slash = rest.find('/'); slash != std::string::npos) rest = rest.substr(0, slash);
  const auto colon = rest.rfind(':');
  if (colon != std::string::npos && rest.find(']', colon) == std::string::npos) {
    u.host = rest.substr(0, colon);
    u.port = rest.substr(colon + 1);
  } else {
    u.host = rest;
    u.port = u.scheme == "http" ? "80" : "443";
  }
  return u;
}

}  // namespace

struct ApiClient::Connection {
  CURL* curl = curl_easy_init();
  ~Connection() { curl_easy_cleanup(curl); }
};

ApiClient::ApiClient(ClientConfig config, std::string user_agent_suffix)
    : config_(std::move(config)),
      user_agent_("schedhost/" SCHEDHOST_VERSION " (linux/amd64)" + user_agent_suffix),
      credentials_(config_),
      limiter_(config_.qps, config_.burst) {
  global_init();
  url_base_ = config_.server;
  if (!config_.tls_server_name.empty()) {
    // Verify the certificate (and send SNI) for tls_server_name while connecting to the server's
    // own address.
    const ServerUrl u = split_server(config_.server);
    url_base_ = u.scheme + "://" + config_.tls_server_name + ":" + u.port;
    connect_to_ = config_.tls_server_name + ":" + u.port + ":" + u.host + ":" + u.port;
  }
}

ApiClient::~ApiClient() = default;

std::unique_ptr<ApiClient::Connection> ApiClient::borrow() {
  {
    std::lock_guard lock(pool_mutex_);
    if (!pool_.empty()) {
      auto c = std::move(pool_.back());
      pool_.pop_back();
      return c;
    }
  }
  return std::make_unique<Connection>();
}

void ApiClient::give_back(std::unique_ptr<Connection> connection) {
  std::lock_guard lock(pool_mutex_);
  pool_.push_back(std::move(connection));
}

void ApiClient::prepare(void* handle, Exchange& x, std::string_view content_type,
                        const std::function<bool(std::string_view)>* on_data,
                        const std::atomic<bool>* stop) {
  CURL* curl = static_cast<CURL*>(handle);
  ClientIdentity identity;
  try {
    identity = credentials_.current();
  } catch (const std::exception& e) {
    throw ApiError(x.method, x.path, 0, "", e.what());
  }
  curl_easy_reset(curl);  // keeps the live connection, DNS and TLS session caches
  // A retry prepares the same exchange again.
  curl_slist_free_all(x.headers);
  curl_slist_free_all(x.connect_to);
  x.headers = nullptr;
  x.connect_to = nullptr;
  x.error[0] = '\0';
  x.t.on_data = on_data;
  x.t.stop = stop;
  x.url = url_base_ + x.path;
  curl_easy_setopt(curl, CURLOPT_URL, x.url.c_str());
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, x.error);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, x.method.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_write);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &x.t);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &x.t);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, user_agent_.c_str());
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 10'000L);
  curl_easy_setopt(curl, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(curl, CURLOPT_TCP_KEEPIDLE, 30L);
  curl_easy_setopt(curl, CURLOPT_TCP_KEEPINTVL, 10L);
  if (on_data == nullptr) {
    const long timeout = config_.timeout.count() > 0 ? static_cast<long>(config_.timeout.count())
                                                     : kDefaultTimeoutMs;
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout);
  }
  if (stop != nullptr) {
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &x.t);
  }
  if (!connect_to_.empty()) {
    x.connect_to = curl_slist_append(x.connect_to, connect_to_.c_str());
    curl_easy_setopt(curl, CURLOPT_CONNECT_TO, x.connect_to);
  }
  if (!x.body.empty() || x.method == "POST" || x.method == "PUT" || x.method == "PATCH") {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, x.body.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(x.body.size()));
  }
  // TLS.
  if (config_.insecure_skip_tls_verify) {
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
  } else if (!config_.ca_pem.empty()) {
    set_blob(curl, CURLOPT_CAINFO_BLOB, config_.ca_pem);
  }
  if (!identity.client_cert_pem.empty()) {
    curl_easy_setopt(curl, CURLOPT_SSLCERTTYPE, "PEM");
    set_blob(curl, CURLOPT_SSLCERT_BLOB, identity.client_cert_pem);
    curl_easy_setopt(curl, CURLOPT_SSLKEYTYPE, "PEM");
    set_blob(curl, CURLOPT_SSLKEY_BLOB, identity.client_key_pem);
  }
  if (!config_.username.empty()) {
    curl_easy_setopt(curl, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
    curl_easy_setopt(curl, CURLOPT_USERNAME, config_.username.c_str());
    curl_easy_setopt(curl, CURLOPT_PASSWORD, config_.password.c_str());
  }
  x.headers = curl_slist_append(x.headers, "Accept: application/json");
  if (!content_type.empty()) {
    x.headers =
        curl_slist_append(x.headers, ("Content-Type: " + std::string(content_type)).c_str());
  }
  if (!identity.bearer_token.empty()) {
    x.headers =
        curl_slist_append(x.headers, ("Authorization: Bearer " + identity.bearer_token).c_str());
  }
  x.headers = curl_slist_append(x.headers, "Expect:");  // no 100-continue round trip
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, x.headers);
}

Response ApiClient::conclude(void* handle, Exchange& x, int result) {
  CURL* curl = static_cast<CURL*>(handle);
  const auto rc = static_cast<CURLcode>(result);
  Response response;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.code);
  response.body = std::move(x.t.body);
  response.retry_after_s = x.t.retry_after_s;
  if (rc != CURLE_OK && !x.t.stopped) {
    response.transport = static_cast<int>(rc);
    response.error = x.error[0] != '\0' ? x.error : curl_easy_strerror(rc);
  }
  if (response.code == 401 && (config_.exec || !config_.token_file.empty())) {
    credentials_.invalidate();
  }
  return response;
}

Response ApiClient::perform(Connection& c, const std::string& method, const std::string& path,
                            std::string_view body, std::string_view content_type,
                            const std::function<bool(std::string_view)>* on_data,
                            const std::atomic<bool>* stop) {
  Exchange x;
  x.method = method;
  x.path = path;
  x.body = body;
  prepare(c.curl, x, content_type, on_data, stop);
  Response response = conclude(c.curl, x, curl_easy_perform(c.curl));
  if (response.transport != 0) {
    // A stream the server cut after it started is a normal end for a watch (the caller
    // re-watches); a request that got no answer is an error.
    if (on_data != nullptr && response.code >= 200 && response.code < 300) return response;
    throw ApiError(method, path, 0, "", response.error, response.transport);
  }
  return response;
}

Response ApiClient::request(const std::string& method, const std::string& path,
                            std::string_view body, std::string_view content_type) {
  for (int attempt = 0;; ++attempt) {
    limiter_.acquire();
    // A connection whose request threw is dropped (it may be half-open), not pooled.
    std::unique_ptr<Connection> c = borrow();
    Response r = perform(*c, method, path, body, content_type, nullptr, nullptr);
    give_back(std::move(c));
    if (const auto delay = retry_delay(r, attempt)) {
      std::this_thread::sleep_for(*delay);
      continue;
    }
    return r;
  }
}

std::optional<std::chrono::seconds> ApiClient::retry_delay(const Response& response, int retries) {
  const bool retry_after = response.retry_after_s >= 0;
  if (retries >= kMaxRetries || !(response.code == 429 || (retry_after && response.code >= 500))) {
    return std::nullopt;
  }
  return std::chrono::seconds(std::clamp(response.retry_after_s, 1L, 10L));
}

Response ApiClient::stream(const std::string& path,
                           const std::function<bool(std::string_view)>& on_data,
                           const std::atomic<bool>* stop) {
  limiter_.acquire();
  std::unique_ptr<Connection> c = borrow();
  Response r = perform(*c, "GET", path, {}, {}, &on_data, stop);
  // A stream ends with its connection mid-response or closed by the server: never reuse it.
  return r;
}

void ApiClient::raise(const std::string& method, const std::string& path,
                      const Response& response) {
  throw error_of(method, path, response);
}

ApiError ApiClient::error_of(const std::string& method, const std::string& path,
                             const Response& response) {
  if (response.code == 0) return ApiError(method, path, 0, "", response.error, response.transport);
  std::string reason;
  std::string message;
  const nlohmann::json status = nlohmann::json::parse(response.body, nullptr, false);
  if (status.is_object() && status.value("kind", "") == "Status") {
    reason = status.value("reason", "");
    message = status.value("message", "");
  } else {
    message = response.body.substr(0, 200);
    if (auto nl = message.find('\n'); nl != std::string::npos) message.resize(nl);
  }
  return ApiError(method, path, static_cast<int>(response.code), std::move(reason),
                  std::move(message));
}

nlohmann::json ApiClient::call(const std::string& method, const std::string& path,
                               std::string_view body, std::string_view content_type) {
  const Response r = request(method, path, body, content_type);
  if (r.code < 200 || r.code >= 300) raise(method, path, r);
  if (r.body.empty()) return nlohmann::json::object();
  nlohmann::json parsed = parse_json(r.body);
  if (parsed.is_discarded()) {
    throw ApiError(method, path, static_cast<int>(r.code), "", "the answer is not JSON");
  }
  return parsed;
}

void ApiClient::call_unread(const std::string& method, const std::string& path,
                            std::string_view body, std::string_view content_type) {
  const Response r = request(method, path, body, content_type);
  if (r.code < 200 || r.code >= 300) raise(method, path, r);
}

nlohmann::json ApiClient::get(const std::string& path) {
  return call("GET", path, {}, {});
}

nlohmann::json ApiClient::create(const std::string& path, const nlohmann::json& body) {
  return call("POST", path, body.dump(), "application/json");
}

void ApiClient::create_unread(const std::string& path, const nlohmann::json& body) {
  call_unread("POST", path, body.dump(), "application/json");
}

nlohmann::json ApiClient::replace(const std::string& path, const nlohmann::json& body) {
  return call("PUT", path, body.dump(), "application/json");
}

nlohmann::json ApiClient::patch(const std::string& path, const nlohmann::json& body,
                                PatchType type) {
  return call("PATCH", path, body.dump(), content_type_of(type));
}

void ApiClient::patch_unread(const std::string& path, const nlohmann::json& body, PatchType type) {
  call_unread("PATCH", path, body.dump(), content_type_of(type));
}

nlohmann::json ApiClient::remove(const std::string& path, const nlohmann::json& options) {
  if (options.is_null() || options.empty()) return call("DELETE", path, {}, {});
  return call("DELETE", path, options.dump(), "application/json");
}

std::string url_escape(std::string_view text) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

}  // namespace schedhost::kube
