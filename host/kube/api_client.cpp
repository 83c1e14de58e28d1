#include "kube/api_client.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <thread>

namespace schedhost::kube {
namespace {

constexpr int kMaxRetries = 10;             // client-go's retries of a 429 / Retry-After answer
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

struct Transfer {
  std::string body;
  const std::function<bool(std::string_view)>* on_data = nullptr;
  const std::atomic<bool>* stop = nullptr;
  bool stopped = false;  // on_data or *stop ended the transfer: not an error
  long retry_after_s = -1;
};

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

Response ApiClient::perform(Connection& c, const std::string& method, const std::string& path,
                            std::string_view body, std::string_view content_type,
                            const std::function<bool(std::string_view)>* on_data,
                            const std::atomic<bool>* stop) {
  ClientIdentity identity;
  try {
    identity = credentials_.current();
  } catch (const std::exception& e) {
    throw ApiError(method, path, 0, "", e.what());
  }
  CURL* curl = c.curl;
  curl_easy_reset(curl);  // keeps the live connection, DNS and TLS session caches
  Transfer t;
  t.on_data = on_data;
  t.stop = stop;
  char error[CURL_ERROR_SIZE] = {0};
  const std::string url = url_base_ + path;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_write);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &t);
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
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &t);
  }
  curl_slist* connect_to = nullptr;
  if (!connect_to_.empty()) {
    connect_to = curl_slist_append(connect_to, connect_to_.c_str());
    curl_easy_setopt(curl, CURLOPT_CONNECT_TO, connect_to);
  }
  if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
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
  curl_slist* headers = nullptr;
  headers = curl_slist_append(headers, "Accept: application/json");
  if (!content_type.empty()) {
    headers = curl_slist_append(headers, ("Content-Type: " + std::string(content_type)).c_str());
  }
  if (!identity.bearer_token.empty()) {
    headers =
        curl_slist_append(headers, ("Authorization: Bearer " + identity.bearer_token).c_str());
  }
  headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip on large bodies
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);

  const CURLcode rc = curl_easy_perform(curl);
  curl_slist_free_all(headers);
  curl_slist_free_all(connect_to);

  Response response;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.code);
  response.body = std::move(t.body);
  if (rc != CURLE_OK && !t.stopped) {
    // A stream the server cut after it started is a normal end for a watch (the caller
    // re-watches); a request that got no answer is an error.
    if (on_data != nullptr && response.code >= 200 && response.code < 300) return response;
    std::string what = error[0] != '\0' ? error : curl_easy_strerror(rc);
    throw ApiError(method, path, 0, "", std::move(what), static_cast<int>(rc));
  }
  if (response.code == 401 && (config_.exec || !config_.token_file.empty())) {
    credentials_.invalidate();
  }
  response.retry_after_s = t.retry_after_s;
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
    const bool retry_after = r.retry_after_s >= 0;
    if (attempt < kMaxRetries && (r.code == 429 || (retry_after && r.code >= 500))) {
      std::this_thread::sleep_for(std::chrono::seconds(std::clamp(r.retry_after_s, 1L, 10L)));
      continue;
    }
    return r;
  }
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
  throw ApiError(method, path, static_cast<int>(response.code), std::move(reason),
                 std::move(message));
}

nlohmann::json ApiClient::call(const std::string& method, const std::string& path,
                               std::string_view body, std::string_view content_type) {
  const Response r = request(method, path, body, content_type);
  if (r.code < 200 || r.code >= 300) raise(method, path, r);
  if (r.body.empty()) return nlohmann::json::object();
  nlohmann::json parsed = nlohmann::json::parse(r.body, nullptr, false);
  if (parsed.is_discarded()) {
    throw ApiError(method, path, static_cast<int>(r.code), "", "the answer is not JSON");
  }
  return parsed;
}

nlohmann::json ApiClient::get(const std::string& path) {
  return call("GET", path, {}, {});
}

nlohmann::json ApiClient::create(const std::string& path, const nlohmann::json& body) {
  return call("POST", path, body.dump(), "application/json");
}

nlohmann::json ApiClient::replace(const std::string& path, const nlohmann::json& body) {
  return call("PUT", path, body.dump(), "application/json");
}

nlohmann::json ApiClient::patch(const std::string& path, const nlohmann::json& body,
                                PatchType type) {
  return call("PATCH", path, body.dump(), content_type_of(type));
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
