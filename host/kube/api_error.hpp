// An answer of the API server that is not a success: its HTTP code and the Status object it
// carried (reason, message), or a transport error (code 0) such as a refused connection.
#pragma once

#include <stdexcept>
#include <string>

namespace schedhost::kube {

class ApiError : public std::runtime_error {
 public:
  // what(): "<METHOD> <path>: <code> <reason>: <message>", one line.
  // transport: libcurl's CURLcode when no answer came (code 0), else 0.
  ApiError(const std::string& method, const std::string& path, int code, std::string reason,
           std::string message, int transport = 0);

  int code() const { return code_; }  // HTTP status; 0 when no answer came (network, TLS)
  const std::string& reason() const { return reason_; }  // Status.reason, e.g. "NotFound"
  const std::string& message() const { return message_; }
  int transport() const { return transport_; }  // CURLcode of a request that got no answer

  bool not_found() const { return code_ == 404; }
  bool conflict() const { return code_ == 409; }
  bool gone() const { return code_ == 410 || reason_ == "Expired" || reason_ == "Gone"; }
  // Worth retrying the same request later: no answer, 429, or a 5xx.
  bool transient() const { return code_ == 0 || code_ == 429 || code_ >= 500; }

 private:
  int code_;
  std::string reason_;
  std::string message_;
  int transport_;
};

}  // namespace schedhost::kube
