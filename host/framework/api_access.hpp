// ApiAccess: the API server as plugins reach it through api_request (ABI 1.8), from the hooks
// upstream lets block (PreBind, Bind, PostBind, Unreserve). The framework knows nothing of HTTP:
// serve hands each profile's framework one over its client; run one over its own objects, which
// answers for the resources plugins declared (ABI 1.9) and for nothing else.
#pragma once

#include <cstdint>
#include <optional>
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
  // One request, answered; nullopt when this access serves nothing at that path (api_request is
  // then SKIP: run has no API server for it). Throws std::runtime_error only when no answer
  // came. Any thread.
  virtual std::optional<Reply> request(std::string_view verb, std::string_view path,
                                       std::string_view content_type, std::string_view body) = 0;
};

}  // namespace schedhost::framework
