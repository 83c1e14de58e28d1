#include "cluster/json_pointer_cache.hpp"

#include <mutex>

#include "cluster/json_pointer_token.hpp"

namespace schedhost::cluster {
namespace {

// The value an RFC 6901 pointer names, or null when the pointer is malformed or names nothing.
// Walked in place: nlohmann's json_pointer allocated a vector of unescaped tokens and threw for
// every miss, and most lookups miss ("/spec/affinity" of a pod without one), once per pod and
// pointer, on the scheduling thread (4 % of a 5000-node replay).
const nlohmann::json* find(const nlohmann::json& object, std::string_view pointer) {
  const nlohmann::json* at = &object;
  std::string key;
  std::string_view token;
  while (!pointer.empty()) {
    if (!take_pointer_token(pointer, token)) return nullptr;
    if (at->is_object()) {
      if (!unescape_pointer_token(token, key)) return nullptr;
      const auto it = at->find(key);
      if (it == at->end()) return nullptr;
      at = &*it;
    } else if (at->is_array()) {
      std::size_t index = 0;
      if (!pointer_array_index(token, index) || index >= at->size()) return nullptr;
      at = &(*at)[index];
    } else {
      return nullptr;  // a token on a scalar
    }
  }
  return at;
}

}  // namespace

std::optional<std::string_view> JsonPointerCache::get(const nlohmann::json& object,
                                                      std::string_view pointer) const {
  {
    std::shared_lock lock(mutex_);
    if (auto it = entries_.find(pointer); it != entries_.end()) return it->second;
  }
  // A miss is not stored: walking the pointer again costs no more than finding it stored.
  const nlohmann::json* value = find(object, pointer);
  if (value == nullptr) return std::nullopt;
  std::unique_lock lock(mutex_);
  // Another thread may have filled it between the two locks; serialize under the lock so each
  // pointer is computed exactly once.
  auto it = entries_.find(pointer);
  if (it == entries_.end()) {
    // Replace invalid UTF-8 rather than throw: the pointer is valid, the bytes are the user's.
    it = entries_
             .emplace(std::string(pointer),
                      value->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
             .first;
  }
  return std::string_view(it->second);
}

}  // namespace schedhost::cluster
