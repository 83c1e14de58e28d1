#include "config/yaml_scalar.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <regex>
#include <stdexcept>
#include <string_view>

namespace schedhost::config {
namespace {

constexpr std::string_view kCoreTagPrefix = "tag:yaml.org,2002:";

bool is_core_null(std::string_view s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

std::optional<bool> core_bool(std::string_view s) {
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  return std::nullopt;
}

// [-+]?[0-9]+ | 0o[0-7]+ | 0x[0-9a-fA-F]+ ; int64 first, then uint64, then (like JSON) a double.
std::optional<YamlScalarValue> core_int(std::string_view s) {
  static const std::regex kDecimal("[-+]?[0-9]+");
  static const std::regex kOctal("0o[0-7]+");
  static const std::regex kHex("0x[0-9a-fA-F]+");
  const std::string text(s);
  int base = 10;
  std::string_view digits = s;
  if (std::regex_match(text, kOctal)) {
    base = 8;
    digits.remove_prefix(2);
  } else if (std::regex_match(text, kHex)) {
    base = 16;
    digits.remove_prefix(2);
  } else if (!std::regex_match(text, kDecimal)) {
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

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? | [-+]?\.inf | \.nan (any core spelling)
std::optional<double> core_float(std::string_view s) {
  static const std::regex kFloat(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  static const std::regex kInf(R"([-+]?\.(inf|Inf|INF))");
  static const std::regex kNan(R"(\.(nan|NaN|NAN))");
  const std::string text(s);
  if (std::regex_match(text, kFloat)) return std::strtod(text.c_str(), nullptr);
  if (std::regex_match(text, kInf)) {
    return text.front() == '-' ? -std::numeric_limits<double>::infinity()
                               : std::numeric_limits<double>::infinity();
  }
  if (std::regex_match(text, kNan)) return std::numeric_limits<double>::quiet_NaN();
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
