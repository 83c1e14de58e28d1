#include "cluster/yaml_scalar.hpp"

#include <charconv>
#include <cstdint>
#include <utility>

namespace schedhost::cluster {
namespace {

template <typename T>
bool parse_integer(std::string_view text, int base, T& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out, base);
  return ec == std::errc() && end == text.data() + text.size();
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Skips digits from pos; returns how many.
size_t skip_digits(std::string_view s, size_t& pos) {
  size_t begin = pos;
  while (pos < s.size() && is_digit(s[pos]))
    ++pos;
  return pos - begin;
}

// [-+]?[0-9]+
bool is_core_int(std::string_view s) {
  size_t pos = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  return skip_digits(s, pos) > 0 && pos == s.size();
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool is_core_float(std::string_view s) {
  size_t pos = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  size_t whole = skip_digits(s, pos);
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    if (skip_digits(s, pos) == 0 && whole == 0) return false;
  } else if (whole == 0) {
    return false;
  }
  if (pos < s.size() && (s[pos] == 'e' || s[pos] == 'E')) {
    ++pos;
    if (pos < s.size() && (s[pos] == '-' || s[pos] == '+')) ++pos;
    if (skip_digits(s, pos) == 0) return false;
  }
  return pos == s.size();
}

}  // namespace

bool is_yaml_null_text(std::string_view text) {
  return text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL";
}

nlohmann::json resolve_plain_scalar(std::string text) {
  if (is_yaml_null_text(text)) return nullptr;
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;

  std::string_view view = text;
  if (view.size() > 2 && view[0] == '0' && (view[1] == 'x' || view[1] == 'o')) {
    uint64_t value = 0;
    if (parse_integer(view.substr(2), view[1] == 'x' ? 16 : 8, value)) return value;
    return text;
  }
  if (is_core_int(view)) {
    std::string_view digits = view.front() == '+' ? view.substr(1) : view;
    int64_t signed_value = 0;
    if (parse_integer(digits, 10, signed_value)) return signed_value;
    uint64_t unsigned_value = 0;
    if (parse_integer(digits, 10, unsigned_value)) return unsigned_value;
    // Too large for 64 bits: a float, as a JSON decoder would have it.
  } else if (!is_core_float(view)) {
    return text;
  }
  double value = 0;
  std::string_view number = view.front() == '+' ? view.substr(1) : view;
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc() || end != number.data() + number.size()) return text;  // out of range
  return value;
}

}  // namespace schedhost::cluster
