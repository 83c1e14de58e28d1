// Who the client says it is on each request: a fixed token, a token file re-read when it
// changes (bound service-account tokens rotate), or an exec plugin's credential refreshed at its
// expiry; and the client certificate, from the kubeconfig or from the exec plugin.
#pragma once

#include <chrono>
#include <ctime>
#include <mutex>
#include <string>

#include "kube/client_config.hpp"

namespace schedhost::kube {

struct ClientIdentity {
  std::string bearer_token;  // empty: none
  std::string client_cert_pem;
  std::string client_key_pem;
};

class Credentials {
 public:
  explicit Credentials(const ClientConfig& config);

  // The identity for the next request. Thread-safe. Throws std::runtime_error when a token file
  // cannot be read or an exec plugin fails (the message names the file or the command).
  ClientIdentity current();

  // Forgets a cached exec credential, so the next request runs the plugin again (after a 401).
  void invalidate();

 private:
  using Clock = std::chrono::system_clock;
  void refresh_token_file(Clock::time_point now);
  void refresh_exec(Clock::time_point now);

  const ClientConfig& config_;
  std::mutex mutex_;
  ClientIdentity identity_;
  // Token file: checked at most once a second; re-read when its mtime or size changed.
  Clock::time_point token_file_checked_{};
  std::timespec token_file_mtime_{};
  long long token_file_size_ = -1;
  // Exec plugin: valid until exec_expiry_ (none: until a 401 invalidates it).
  bool exec_valid_ = false;
  std::optional<Clock::time_point> exec_expiry_;
};

}  // namespace schedhost::kube
