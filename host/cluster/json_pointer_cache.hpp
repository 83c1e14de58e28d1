// Serialized JSON by pointer, computed once per pointer and shared by every thread.
#pragma once

#include <map>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace schedhost::cluster {

// Plugins read fields the model does not type through RFC 6901 pointers, from Filter and Score
// on many threads at once; serializing once per pointer keeps those calls cheap. Entries live in
// a node-based map and are never erased while the owner lives, so the returned views stay valid
// as long as the owning Pod or Node.
class JsonPointerCache {
 public:
  JsonPointerCache() = default;
  // A copy or a move starts empty: the cache belongs to one object version, and views handed
  // out for the source must stay valid.
  JsonPointerCache(const JsonPointerCache&) {}
  JsonPointerCache& operator=(const JsonPointerCache&) = delete;

  // The compact dump() of the value at pointer in `object` ("" = the whole object), or nullopt
  // when the pointer is malformed or names nothing. Never throws for a bad pointer.
  std::optional<std::string_view> get(const nlohmann::json& object, std::string_view pointer) const;

 private:
  mutable std::shared_mutex mutex_;
  // Hits only: a miss is walked again, which costs about what finding it stored would.
  mutable std::map<std::string, std::string, std::less<>> entries_;
};

}  // namespace schedhost::cluster
