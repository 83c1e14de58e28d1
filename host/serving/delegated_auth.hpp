// Who may read the secure port, decided by the API server as kube-scheduler has it decide
// (delegated authentication and authorization): a bearer token is checked with a TokenReview,
// the user it names with a SubjectAccessReview for the path (verb get); a request without a
// token is system:anonymous. Paths in always_allow (--authorization-always-allow-paths, health
// by default) need neither. Answers are cached for 10 s, as upstream caches them.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "kube/api_client.hpp"

namespace schedhost::serving {

struct AuthDecision {
  int code = 200;    // 200, 401 or 403 (500 when the API server could not be asked)
  std::string body;  // a metav1.Status as the API server writes it, when not 200
};

class DelegatedAuth {
 public:
  DelegatedAuth(const kube::ClientConfig& client, std::set<std::string> always_allow);
  // authorization: the request's Authorization header ("" when absent). Thread-safe.
  AuthDecision check(const std::string& path, const std::string& authorization);

 private:
  struct User {
    bool authenticated = false;
    std::string name;
    nlohmann::json review_user;  // status.user of the TokenReview
  };
  User authenticate(const std::string& token);
  bool authorize(const nlohmann::json& user, const std::string& path);

  kube::ApiClient client_;
  const std::set<std::string> always_allow_;
  std::mutex mutex_;  // guards the caches
  template <class T>
  struct Cached {
    T value;
    std::chrono::steady_clock::time_point at;
  };
  std::map<std::string, Cached<User>> tokens_;
  std::map<std::string, Cached<bool>> decisions_;  // user + path -> allowed
};

}  // namespace schedhost::serving
