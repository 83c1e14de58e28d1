#include "kube/api_error.hpp"

namespace schedhost::kube {
namespace {

std::string describe(const std::string& method, const std::string& path, int code,
                     const std::string& reason, const std::string& message) {
  std::string out = method + " " + path + ": ";
  if (code == 0) return out + message;
  out += std::to_string(code);
  if (!reason.empty()) out += " " + reason;
  if (!message.empty()) out += ": " + message;
  return out;
}

}  // namespace

ApiError::ApiError(const std::string& method, const std::string& path, int code, std::string reason,
                   std::string message, int transport)
    : std::runtime_error(describe(method, path, code, reason, message)),
      code_(code),
      reason_(std::move(reason)),
      message_(std::move(message)),
      transport_(transport) {}

}  // namespace schedhost::kube
