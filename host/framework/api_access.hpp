// ApiAccess: the API server as plugins reach it through api_request (ABI 1.8), from the hooks
// upstream lets block (PreBind, Bind, PostBind, Unreserve). The framework knows nothing of HTTP:
// serve hands each profile's framework one of these over its client; run has none.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace schedhost::framework {

class ApiAccess {
 public:
  struct Reply {
    int32_t status = 0;  // the HTTP status, whatever it is
    std::string body;
  };
  virtual ~ApiAccess() = default;
  // One request, answered: throws std::runtime_error only when no answer came. Any thread.
  virtual Reply request(std::string_view verb, std::string_view path, std::string_view content_type,
                        std::string_view body) = 0;
};

}  // namespace schedhost::framework
