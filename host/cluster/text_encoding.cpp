#include "cluster/text_encoding.hpp"

#include <cstdint>
#include <cstdio>
#include <string>

#include "common/input_error.hpp"

namespace schedhost {
namespace {

// Length of the well-formed UTF-8 sequence at text[pos], or 0 (RFC 3629, table 3-7 of Unicode).
size_t sequence_length(std::string_view text, size_t pos) {
  const auto byte = [&](size_t i) {
    return pos + i < text.size() ? static_cast<unsigned char>(text[pos + i]) : 0u;
  };
  const auto continuation = [&](size_t i, unsigned lo = 0x80, unsigned hi = 0xBF) {
    unsigned b = byte(i);
    return b >= lo && b <= hi;
  };
  unsigned lead = byte(0);
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return continuation(1) ? 2 : 0;
  if (lead == 0xE0) return continuation(1, 0xA0) && continuation(2) ? 3 : 0;
  if (lead == 0xED) return continuation(1, 0x80, 0x9F) && continuation(2) ? 3 : 0;  // surrogates
  if (lead >= 0xE1 && lead <= 0xEF) return continuation(1) && continuation(2) ? 3 : 0;
  if (lead == 0xF0) return continuation(1, 0x90) && continuation(2) && continuation(3) ? 4 : 0;
  if (lead >= 0xF1 && lead <= 0xF3) {
    return continuation(1) && continuation(2) && continuation(3) ? 4 : 0;
  }
  if (lead == 0xF4)
    return continuation(1, 0x80, 0x8F) && continuation(2) && continuation(3) ? 4 : 0;
  return 0;
}

std::string hex_byte(unsigned char b) {
  char out[8];
  std::snprintf(out, sizeof out, "0x%02X", b);
  return out;
}

}  // namespace

void check_text_encoding(std::string_view text, std::string_view file) {
  size_t pos = text.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  int line = 1;
  int column = 1;
  while (pos < text.size()) {
    const auto b = static_cast<unsigned char>(text[pos]);
    if (b == '\n') {
      ++line;
      column = 1;
      ++pos;
      continue;
    }
    if ((b < 0x20 && b != '\t' && b != '\r') || b == 0x7F) {
      char code[8];
      std::snprintf(code, sizeof code, "U+%04X", b);
      throw InputError(source_location(file, line, column) + ": control character " + code +
                       " is not allowed in YAML or JSON: remove it, or write it as an escape "
                       "inside a double-quoted string");
    }
    size_t length = sequence_length(text, pos);
    if (length == 0) {
      throw InputError(source_location(file, line, column) + ": invalid UTF-8 (byte " +
                       hex_byte(b) + "): save the file as UTF-8");
    }
    pos += length;
    ++column;
  }
}

}  // namespace schedhost
