#include "cluster/yaml_scalar.hpp"

#include <charconv>
#include <cstdint>
#include <utility>

#include "common/yaml_core_schema.hpp"

namespace schedhost::cluster {
namespace {

template <typename T>
bool parse_integer(std::string_view text, int base, T& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out, base);
  return ec == std::errc() && end == text.data() + text.size();
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
  if (yaml_core::is_int_text(view)) {
    std::string_view digits = view.front() == '+' ? view.substr(1) : view;
    int64_t signed_value = 0;
    if (parse_integer(digits, 10, signed_value)) return signed_value;
    uint64_t unsigned_value = 0;
    if (parse_integer(digits, 10, unsigned_value)) return unsigned_value;
    // Too large for 64 bits: a float, as a JSON decoder would have it.
  } else if (!yaml_core::is_float_text(view)) {
    return text;
  }
  double value = 0;
  std::string_view number = view.front() == '+' ? view.substr(1) : view;
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc() || end != number.data() + number.size()) return text;  // out of range
  return value;
}

}  // namespace schedhost::cluster
