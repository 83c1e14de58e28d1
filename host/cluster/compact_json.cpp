#include "cluster/compact_json.hpp"

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "cluster/json_pointer_token.hpp"
#include "cluster/json_spans.hpp"

namespace schedhost::cluster {
namespace {

constexpr std::size_t kNone = std::string_view::npos;

// Whether the key at text[at..key_end) (its quotes included) reads `key`. dump() escapes only
// quotes, backslashes and control characters, so an escaped key is rare: it is decoded by the
// same parser that wrote it.
bool same_key(std::string_view text, std::size_t at, std::size_t key_end, std::string_view key) {
  const std::string_view quoted = text.substr(at, key_end - at);
  const std::string_view raw = quoted.substr(1, quoted.size() - 2);
  if (raw.find('\\') == std::string_view::npos) return raw == key;
  const nlohmann::json decoded = nlohmann::json::parse(quoted, nullptr, /*allow_exceptions=*/false);
  return decoded.is_string() && decoded.get_ref<const std::string&>() == key;
}

// The member `key` of the object at text[at] ('{'): where its value starts, or kNone.
std::size_t find_member(std::string_view text, std::size_t at, std::string_view key,
                        ContainerEnds* ends) {
  std::size_t i = at + 1;
  if (i < text.size() && text[i] == '}') return kNone;
  while (i < text.size() && text[i] == '"') {
    const std::size_t key_end = value_end(text, i);
    if (key_end == kNone || key_end >= text.size() || text[key_end] != ':') return kNone;
    if (same_key(text, i, key_end, key)) return key_end + 1;
    i = value_end(text, key_end + 1, ends);
    if (i == kNone || i >= text.size() || text[i] != ',') return kNone;
    ++i;
  }
  return kNone;
}

// Element `index` of the array at text[at] ('['): where it starts, or kNone.
std::size_t find_element(std::string_view text, std::size_t at, std::size_t index,
                         ContainerEnds* ends) {
  std::size_t i = at + 1;
  if (i < text.size() && text[i] == ']') return kNone;
  for (std::size_t n = 0; n < index; ++n) {
    i = value_end(text, i, ends);
    if (i == kNone || i >= text.size() || text[i] != ',') return kNone;
    ++i;
  }
  return i < text.size() ? i : kNone;
}

}  // namespace

std::optional<std::string_view> compact_json_at(std::string_view compact, std::string_view pointer,
                                                ContainerEnds* ends) {
  std::size_t at = 0;
  std::string key;
  std::string_view token;
  while (!pointer.empty()) {
    if (!take_pointer_token(pointer, token) || at >= compact.size()) return std::nullopt;
    if (compact[at] == '{') {
      if (!unescape_pointer_token(token, key)) return std::nullopt;
      at = find_member(compact, at, key, ends);
    } else if (compact[at] == '[') {
      std::size_t index = 0;
      if (!pointer_array_index(token, index)) return std::nullopt;
      at = find_element(compact, at, index, ends);
    } else {
      return std::nullopt;  // a token on a scalar
    }
    if (at == kNone) return std::nullopt;
  }
  const std::size_t end = value_end(compact, at, ends);
  if (end == kNone) return std::nullopt;
  return compact.substr(at, end - at);
}

}  // namespace schedhost::cluster
