#include "common/utf8.hpp"

#include <cstdint>

namespace schedhost {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

bool is_continuation(unsigned char c) {
  return (c & 0xC0U) == 0x80U;
}

// The length of the well-formed UTF-8 sequence at text[i], or 0 when there is none.
std::size_t sequence_length(std::string_view text, std::size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  if (lead < 0x80U) return 1;
  std::size_t length = 0;
  std::uint32_t code_point = 0;
  std::uint32_t minimum = 0;
  if ((lead & 0xE0U) == 0xC0U) {
    length = 2;
    code_point = lead & 0x1FU;
    minimum = 0x80;
  } else if ((lead & 0xF0U) == 0xE0U) {
    length = 3;
    code_point = lead & 0x0FU;
    minimum = 0x800;
  } else if ((lead & 0xF8U) == 0xF0U) {
    length = 4;
    code_point = lead & 0x07U;
    minimum = 0x10000;
  } else {
    return 0;
  }
  if (text.size() - i < length) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    const auto c = static_cast<unsigned char>(text[i + k]);
    if (!is_continuation(c)) return 0;
    code_point = (code_point << 6U) | (c & 0x3FU);
  }
  if (code_point < minimum || code_point > 0x10FFFF) return 0;
  if (code_point >= 0xD800 && code_point <= 0xDFFF) return 0;
  return length;
}

// Appends the UTF-8 sequence at text[i], or U+FFFD for its first byte when it is not a
// well-formed one; returns the index after what it read.
std::size_t append_sequence(std::string& out, std::string_view text, std::size_t i) {
  const std::size_t length = sequence_length(text, i);
  if (length == 0) {
    out += kReplacement;
    return i + 1;
  }
  out.append(text.substr(i, length));
  return i + length;
}

bool is_ascii(std::string_view text) {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) >= 0x80U) return false;
  }
  return true;
}

}  // namespace

std::string valid_utf8(std::string_view text) {
  if (is_ascii(text)) return std::string(text);  // nearly every text: one pass, one copy
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size())
    i = append_sequence(out, text, i);
  return out;
}

void append_json_string(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.reserve(out.size() + text.size() + 2);
  out += '"';
  std::size_t i = 0;
  while (i < text.size()) {
    // The run of bytes written as they are, appended at once.
    std::size_t end = i;
    while (end < text.size()) {
      const auto c = static_cast<unsigned char>(text[end]);
      if (c < 0x20U || c == '"' || c == '\\' || c >= 0x80U) break;
      ++end;
    }
    out.append(text.substr(i, end - i));
    i = end;
    if (i == text.size()) break;
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80U) {
      i = append_sequence(out, text, i);
      continue;
    }
    ++i;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += "\\u00";
        out += kHex[c >> 4U];
        out += kHex[c & 0xFU];
    }
  }
  out += '"';
}

}  // namespace schedhost
