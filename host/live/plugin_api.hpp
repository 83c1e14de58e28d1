// Plugins' api_request (ABI 1.8) in serve: the scheduler's own client, so its credentials, rate
// limits and retries apply to what plugins send as to the host's own writes.
#pragma once

#include <string_view>

#include "framework/api_access.hpp"
#include "kube/api_client.hpp"

namespace schedhost::live {

class PluginApi : public framework::ApiAccess {
 public:
  explicit PluginApi(kube::ApiClient& client) : client_(client) {}
  std::optional<Reply> request(std::string_view verb, std::string_view path,
                               std::string_view content_type, std::string_view body) override;

 private:
  kube::ApiClient& client_;
};

}  // namespace schedhost::live
