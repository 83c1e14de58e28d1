#include "cli/output_text.hpp"

namespace schedhost::cli {

std::string one_line(std::string_view text) {
  std::string out = valid_utf8(text);
  for (char& c : out) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20U || byte == 0x7FU) c = ' ';
  }
  return out;
}

std::size_t display_width(std::string_view text) {
  std::size_t width = 0;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0U) != 0x80U) ++width;  // not a continuation byte
  }
  return width;
}

}  // namespace schedhost::cli
