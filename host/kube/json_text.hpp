// Small JSON helpers the API writers share.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "cluster/json_field.hpp"
#include "common/utf8.hpp"

namespace schedhost::kube {

// valid_utf8 (common/utf8.hpp): plugin messages are arbitrary bytes, and nlohmann's dump() throws
// on a text that is not UTF-8.
using schedhost::valid_utf8;

// value.dump() for a text kept for long (an informer's objects, the Event cache): dump() appends,
// doubling its string's capacity as it goes, a slack of about a fifth of every text kept.
inline std::string kept_text(
    const nlohmann::json& value,
    nlohmann::json::error_handler_t on_bad_utf8 = nlohmann::json::error_handler_t::strict) {
  std::string text = value.dump(-1, ' ', false, on_bad_utf8);
  text.shrink_to_fit();
  return text;
}

// object[key] when it is a string, else "".
inline std::string string_field(const nlohmann::json& object, const char* key) {
  return cluster::string_at(object, {key});
}

// object[key] when it is an integer, else 0.
inline std::int64_t int_field(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number_integer() ? it->get<std::int64_t>() : 0;
}

}  // namespace schedhost::kube
