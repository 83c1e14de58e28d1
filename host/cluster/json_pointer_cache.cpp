#include "cluster/json_pointer_cache.hpp"

#include <mutex>

namespace schedhost::cluster {
namespace {

std::optional<std::string> serialize(const nlohmann::json& object, std::string_view pointer) {
  try {
    nlohmann::json::json_pointer parsed{std::string(pointer)};
    if (!object.contains(parsed)) return std::nullopt;
    // Replace invalid UTF-8 rather than throw: the pointer is valid, the bytes are the user's.
    return object.at(parsed).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // malformed pointer ("a", "/~2") or an index on a scalar
  }
}

std::optional<std::string_view> view(const std::optional<std::string>& entry) {
  if (!entry) return std::nullopt;
  return std::string_view(*entry);
}

}  // namespace

std::optional<std::string_view> JsonPointerCache::get(const nlohmann::json& object,
                                                      std::string_view pointer) const {
  {
    std::shared_lock lock(mutex_);
    if (auto it = entries_.find(pointer); it != entries_.end()) return view(it->second);
  }
  std::unique_lock lock(mutex_);
  // Another thread may have filled it between the two locks; serialize under the lock so each
  // pointer is computed exactly once.
  auto it = entries_.find(pointer);
  if (it == entries_.end()) {
    it = entries_.emplace(std::string(pointer), serialize(object, pointer)).first;
  }
  return view(it->second);
}

}  // namespace schedhost::cluster
