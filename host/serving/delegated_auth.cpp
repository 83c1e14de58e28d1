#include "serving/delegated_auth.hpp"

#include <spdlog/spdlog.h>

#include "kube/api_error.hpp"

namespace schedhost::serving {
namespace {

using nlohmann::json;
constexpr std::chrono::seconds kCacheTtl{10};

std::string status_body(int code, const std::string& reason, const std::string& message) {
  json s = {{"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", json::object()},
            {"status", "Failure"}, {"message", message}, {"reason", reason},
            {"code", code}};
  if (code == 403) s["details"] = json::object();
  return s.dump();
}

bool fresh(std::chrono::steady_clock::time_point at) {
  return std::chrono::steady_clock::now() - at < kCacheTtl;
}

}  // namespace

DelegatedAuth::DelegatedAuth(const kube::ClientConfig& client, std::set<std::string> always_allow)
    : client_(client, "/delegated-auth"), always_allow_(std::move(always_allow)) {}

DelegatedAuth::User DelegatedAuth::authenticate(const std::string& token) {
  {
    std::lock_guard lock(mutex_);
    if (auto it = tokens_.find(token); it != tokens_.end() && fresh(it->second.at)) {
      return it->second.value;
    }
  }
  const json review = {{"apiVersion", "authentication.k8s.io/v1"},
                       {"kind", "TokenReview"},
                       {"spec", {{"token", token}}}};
  const json answer = client_.create("/apis/authentication.k8s.io/v1/tokenreviews", review);
  User user;
  const json status = answer.value("status", json::object());
  user.authenticated = status.value("authenticated", false);
  if (user.authenticated) {
    user.review_user = status.value("user", json::object());
    user.name = user.review_user.value("username", std::string());
  }
  std::lock_guard lock(mutex_);
  tokens_[token] = {user, std::chrono::steady_clock::now()};
  return user;
}

bool DelegatedAuth::authorize(const json& user, const std::string& path) {
  const std::string key = user.dump() + "\n" + path;
  {
    std::lock_guard lock(mutex_);
    if (auto it = decisions_.find(key); it != decisions_.end() && fresh(it->second.at)) {
      return it->second.value;
    }
  }
  json spec = {{"user", user.value("username", std::string())},
               {"nonResourceAttributes", {{"path", path}, {"verb", "get"}}}};
  if (user.contains("groups")) spec["groups"] = user["groups"];
  if (user.contains("uid")) spec["uid"] = user["uid"];
  if (user.contains("extra")) spec["extra"] = user["extra"];
  const json review = {
      {"apiVersion", "authorization.k8s.io/v1"}, {"kind", "SubjectAccessReview"}, {"spec", spec}};
  const json answer = client_.create("/apis/authorization.k8s.io/v1/subjectaccessreviews", review);
  const bool allowed = answer.value("status", json::object()).value("allowed", false);
  std::lock_guard lock(mutex_);
  decisions_[key] = {allowed, std::chrono::steady_clock::now()};
  return allowed;
}

AuthDecision DelegatedAuth::check(const std::string& path, const std::string& authorization) {
  // A prefix entry ending in * allows the paths under it, as upstream's.
  for (const std::string& allowed : always_allow_) {
    if (allowed == path || (!allowed.empty() && allowed.back() == '*' &&
                            path.rfind(allowed.substr(0, allowed.size() - 1), 0) == 0)) {
      return {};
    }
  }
  try {
    json user = {{"username", "system:anonymous"}, {"groups", {"system:unauthenticated"}}};
    const std::string bearer = "Bearer ";
    if (!authorization.empty()) {
      if (authorization.rfind(bearer, 0) != 0) {
        return {401, status_body(401, "Unauthorized", "Unauthorized")};
      }
      const User u = authenticate(authorization.substr(bearer.size()));
      if (!u.authenticated) return {401, status_body(401, "Unauthorized", "Unauthorized")};
      user = u.review_user;
    }
    if (!authorize(user, path)) {
      return {403, status_body(403, "Forbidden",
                               "forbidden: User \"" + user.value("username", std::string()) +
                                   "\" cannot get path \"" + path + "\"")};
    }
    return {};
  } catch (const std::exception& e) {
    spdlog::warn("secure port: could not ask the API server about {}: {}", path, e.what());
    return {500, status_body(500, "InternalError", "Internal Server Error")};
  }
}

}  // namespace schedhost::serving
