#include "config/yaml_scalar.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "common/yaml_core_schema.hpp"

namespace schedhost::config {
namespace {

using yaml_core::is_digit;
using yaml_core::without_sign;

constexpr std::string_view kCoreTagPrefix = "tag:yaml.org,2002:";

bool is_core_null(std::string_view s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

std::optional<bool> core_bool(std::string_view s) {
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  return std::nullopt;
}

bool all_of(std::string_view s, bool (*accept)(char)) {
  for (char c : s) {
    if (!accept(c)) return false;
  }
  return true;
}
bool is_octal_digit(char c) {
  return c >= '0' && c <= '7';
}
bool is_hex_digit(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// [-+]?[0-9]+ | 0o[0-7]+ | 0x[0-9a-fA-F]+ ; int64 first, then uint64, then (like JSON) a double.
std::optional<YamlScalarValue> core_int(std::string_view s) {
  const std::string text(s);
  int base = 10;
  std::string_view digits = s;
  if (s.size() > 2 && s.starts_with("0o") && all_of(s.substr(2), is_octal_digit)) {
    base = 8;
    digits.remove_prefix(2);
  } else if (s.size() > 2 && s.starts_with("0x") && all_of(s.substr(2), is_hex_digit)) {
    base = 16;
    digits.remove_prefix(2);
  } else if (!yaml_core::is_int_text(s)) {
    return std::nullopt;
  }
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  std::int64_t signed_value = 0;
  auto [end, error] =
      std::from_chars(digits.data(), digits.data() + digits.size(), signed_value, base);
  if (error == std::errc{} && end == digits.data() + digits.size()) return signed_value;
  std::uint64_t unsigned_value = 0;
  auto [uend, uerror] =
      std::from_chars(digits.data(), digits.data() + digits.size(), unsigned_value, base);
  if (uerror == std::errc{} && uend == digits.data() + digits.size()) return unsigned_value;
  // Beyond 64 bits: a (rounded) decimal number, as a JSON decoder would read it; never text.
  if (base != 10) throw std::invalid_argument("\"" + text + "\" does not fit in 64 bits");
  return std::strtod(text.c_str(), nullptr);
}

// yaml_core::is_float_text | [-+]?\.inf | \.nan (any core spelling). Out-of-range values become
// +-inf (strtod), which callers refuse where JSON needs a finite number.
std::optional<double> core_float(std::string_view s) {
  const std::string text(s);
  if (yaml_core::is_float_text(s)) return std::strtod(text.c_str(), nullptr);
  std::string_view unsigned_text = without_sign(s);
  if (unsigned_text == ".inf" || unsigned_text == ".Inf" || unsigned_text == ".INF") {
    return text.front() == '-' ? -std::numeric_limits<double>::infinity()
                               : std::numeric_limits<double>::infinity();
  }
  if (s == ".nan" || s == ".NaN" || s == ".NAN") return std::numeric_limits<double>::quiet_NaN();
  return std::nullopt;
}

YamlScalarValue resolve_plain(std::string_view s) {
  if (is_core_null(s)) return YamlNull{};
  if (auto b = core_bool(s)) return *b;
  if (auto i = core_int(s)) return *i;
  if (auto f = core_float(s)) return *f;
  return std::string(s);
}

// An explicit core tag (!!str, !!int, ...) forces the type; the text must fit it.
YamlScalarValue resolve_tagged(std::string_view tag, const std::string& text) {
  std::string_view type = tag.substr(kCoreTagPrefix.size());
  if (type == "str") return text;
  if (type == "null" && is_core_null(text)) return YamlNull{};
  if (type == "bool") {
    if (auto b = core_bool(text)) return *b;
  }
  if (type == "int") {
    if (auto i = core_int(text)) return *i;
  }
  if (type == "float") {
    if (auto f = core_float(text)) return *f;  // the float pattern covers plain integers too
  }
  throw std::invalid_argument("\"" + text + "\" is not a valid !!" + std::string(type));
}

}  // namespace

YamlScalarValue resolve_scalar(const YAML::Node& node) {
  if (!node || node.IsNull()) return YamlNull{};
  if (!node.IsScalar()) throw std::invalid_argument("not a scalar");
  const std::string& tag = node.Tag();
  const std::string& text = node.Scalar();
  if (tag == "!") return text;  // quoted: always a string
  if (tag == "?" || tag.empty()) return resolve_plain(text);
  if (std::string_view(tag).starts_with(kCoreTagPrefix)) return resolve_tagged(tag, text);
  throw std::invalid_argument("the YAML tag \"" + tag + "\" is not supported");
}

std::string describe_yaml_value(const YAML::Node& node) {
  if (!node || node.IsNull()) return "null";
  if (node.IsMap()) return "a mapping";
  if (node.IsSequence()) return "a list";
  YamlScalarValue value;
  try {
    value = resolve_scalar(node);
  } catch (const std::invalid_argument&) {
    return "\"" + node.Scalar() + "\"";
  }
  if (std::holds_alternative<std::string>(value)) return "the string \"" + node.Scalar() + "\"";
  if (std::holds_alternative<YamlNull>(value)) return "null";
  return node.Scalar();
}

}  // namespace schedhost::config
