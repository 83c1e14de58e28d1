#include "live/plugin_api.hpp"

#include <stdexcept>
#include <string>

namespace schedhost::live {

std::optional<framework::ApiAccess::Reply> PluginApi::request(std::string_view verb,
                                                              std::string_view path,
                                                              std::string_view content_type,
                                                              std::string_view body) {
  // A path that is not the server's would send the scheduler's token elsewhere.
  if (!path.starts_with("/api/") && !path.starts_with("/apis/")) {
    throw std::runtime_error("the path must start with /api/ or /apis/");
  }
  if (verb != "GET" && verb != "POST" && verb != "PUT" && verb != "PATCH" && verb != "DELETE") {
    throw std::runtime_error("the verb must be GET, POST, PUT, PATCH or DELETE");
  }
  // "" means JSON, as the ABI says (a body needs its type).
  const std::string_view type =
      content_type.empty() && !body.empty() ? std::string_view("application/json") : content_type;
  const kube::Response r = client_.request(std::string(verb), std::string(path), body, type);
  return Reply{static_cast<int32_t>(r.code), r.body};
}

}  // namespace schedhost::live
