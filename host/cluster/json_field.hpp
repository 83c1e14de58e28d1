// Typed, located reads of a Kubernetes object's fields.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/quantity.hpp"
#include "cluster/string_map.hpp"

namespace schedhost::cluster {

// One value inside an object, with the two names an error needs: the RFC 6901 pointer (for a
// file position) and the kubectl-style path ("spec.containers[0].ports[1].hostPort", for the
// message). Every read either returns the value or throws ObjectError naming the field, so a
// malformed object never crashes the host. JSON null counts as absent, as in the API server.
class JsonField {
 public:
  // The whole object; it must outlive every field read from it.
  explicit JsonField(const nlohmann::json& object) : value_(&object) {}

  const nlohmann::json& json() const { return *value_; }
  const std::string& pointer() const { return pointer_; }
  const std::string& path() const { return path_; }

  // Member `key`; nullopt when absent or null. Throws when this is not a mapping.
  std::optional<JsonField> member(std::string_view key) const;
  // Follows members one by one: get({"spec", "affinity"}).
  std::optional<JsonField> get(std::initializer_list<std::string_view> keys) const;
  // Array items; throws when this is not a sequence.
  std::vector<JsonField> items() const;
  // Mapping members in key order; throws when this is not a mapping.
  std::vector<std::pair<std::string, JsonField>> members() const;

  // A string; a number or boolean is taken as its text (a hand-written `version: 2` label),
  // anything else throws.
  std::string as_string() const;
  int64_t as_int() const;
  bool as_bool() const;
  // A quantity given as a string or a number ("500m", 2, 0.5); negative values are refused.
  Quantity as_quantity() const;
  // A mapping of strings (labels, annotations, nodeSelector).
  StringMap as_string_map() const;
  // An RFC 3339 time, in Unix milliseconds.
  int64_t as_time_ms() const;

  // Throws ObjectError(pointer, "<path> <problem>").
  [[noreturn]] void fail(std::string_view problem) const;

 private:
  JsonField(const nlohmann::json& value, std::string pointer, std::string path)
      : value_(&value), pointer_(std::move(pointer)), path_(std::move(path)) {}
  // The value's text for messages, e.g. `"abc"` or `12`.
  std::string quoted() const;

  const nlohmann::json* value_;
  std::string pointer_;
  std::string path_;
};

// Member `key` of field, as a string, or `fallback` when absent.
std::string string_member(const JsonField& field, std::string_view key, std::string fallback = {});

// The string at object's members `keys`, one inside the other, or `fallback` when one is
// missing or the value is no string; never throws. For the reads made on every informer event:
// nlohmann's value(json_pointer, ...) throws and catches on each miss (a pending pod's nodeName).
std::string string_at(const nlohmann::json& object, std::initializer_list<std::string_view> keys,
                      std::string fallback = {});

// What a JSON value is, for messages: "a mapping", "a sequence", "a string", "a boolean",
// "a number", or null_word for null.
const char* json_type_name(const nlohmann::json& value, const char* null_word = "null");

}  // namespace schedhost::cluster
