#include "cluster/compact_json.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

#include "cluster/json_pointer_token.hpp"
#include "cluster/json_spans.hpp"

namespace schedhost::cluster {
namespace {

constexpr std::size_t kNone = std::string_view::npos;

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Four hex digits at text[at..], or -1.
int32_t code_unit(std::string_view text, std::size_t at) {
  if (at + 4 > text.size()) return -1;
  int32_t out = 0;
  for (std::size_t i = at; i < at + 4; ++i) {
    const int d = hex_digit(text[i]);
    if (d < 0) return -1;
    out = out * 16 + d;
  }
  return out;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// The characters of an escaped key (between its quotes), decoded; false when an escape is bad.
bool decode_key(std::string_view raw, std::string& out) {
  out.clear();
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '\\') {
      out += raw[i];
      continue;
    }
    if (++i == raw.size()) return false;
    switch (raw[i]) {
      case '"':
      case '\\':
      case '/':
        out += raw[i];
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        int32_t unit = code_unit(raw, i + 1);
        if (unit < 0) return false;
        i += 4;
        uint32_t cp = static_cast<uint32_t>(unit);
        if (unit >= 0xD800 && unit <= 0xDBFF && i + 2 < raw.size() && raw[i + 1] == '\\' &&
            raw[i + 2] == 'u') {
          const int32_t low = code_unit(raw, i + 3);
          if (low >= 0xDC00 && low <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + static_cast<uint32_t>(low - 0xDC00);
            i += 6;
          }
        }
        append_utf8(out, cp);
        break;
      }
      default:
        return false;
    }
  }
  return true;
}

// The member `key` of the object at text[at] ('{'): where its value starts, or kNone.
std::size_t find_member(std::string_view text, std::size_t at, std::string_view key,
                        std::string& scratch) {
  std::size_t i = at + 1;
  if (i < text.size() && text[i] == '}') return kNone;
  while (i < text.size() && text[i] == '"') {
    const std::size_t key_end = value_end(text, i);
    if (key_end == kNone || key_end >= text.size() || text[key_end] != ':') return kNone;
    const std::string_view raw = text.substr(i + 1, key_end - i - 2);
    const bool same = raw.find('\\') == std::string_view::npos
                          ? raw == key
                          : decode_key(raw, scratch) && scratch == key;
    if (same) return key_end + 1;
    i = value_end(text, key_end + 1);
    if (i == kNone || i >= text.size() || text[i] != ',') return kNone;
    ++i;
  }
  return kNone;
}

// Element `index` of the array at text[at] ('['): where it starts, or kNone.
std::size_t find_element(std::string_view text, std::size_t at, std::size_t index) {
  std::size_t i = at + 1;
  if (i < text.size() && text[i] == ']') return kNone;
  for (std::size_t n = 0; n < index; ++n) {
    i = value_end(text, i);
    if (i == kNone || i >= text.size() || text[i] != ',') return kNone;
    ++i;
  }
  return i < text.size() ? i : kNone;
}

}  // namespace

std::optional<std::string_view> compact_json_at(std::string_view compact,
                                                std::string_view pointer) {
  std::size_t at = 0;
  std::string key;
  std::string scratch;
  std::string_view token;
  while (!pointer.empty()) {
    if (!take_pointer_token(pointer, token) || at >= compact.size()) return std::nullopt;
    if (compact[at] == '{') {
      if (!unescape_pointer_token(token, key)) return std::nullopt;
      at = find_member(compact, at, key, scratch);
    } else if (compact[at] == '[') {
      std::size_t index = 0;
      if (!pointer_array_index(token, index)) return std::nullopt;
      at = find_element(compact, at, index);
    } else {
      return std::nullopt;  // a token on a scalar
    }
    if (at == kNone) return std::nullopt;
  }
  const std::size_t end = value_end(compact, at);
  if (end == kNone) return std::nullopt;
  return compact.substr(at, end - at);
}

}  // namespace schedhost::cluster
