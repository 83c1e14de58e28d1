#include "cluster/yaml_to_json.hpp"

#include <charconv>
#include <cstdint>
#include <string>

#include "cluster/input_limits.hpp"
#include "cluster/yaml_location.hpp"
#include "common/input_error.hpp"

namespace schedhost::cluster {
namespace {

std::string where(std::string_view file, const YAML::Mark& mark) {
  return mark_location(file, mark);
}

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

// A plain (unquoted, untagged) scalar under the YAML 1.2 core schema.
nlohmann::json resolve_plain(const std::string& text) {
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") {
    return nullptr;
  }
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

nlohmann::json convert(const YAML::Node& node, std::string_view file, int depth) {
  if (depth > kMaxNestingDepth) {
    throw InputError(where(file, node.Mark()) + ": nesting deeper than " +
                     std::to_string(kMaxNestingDepth) +
                     " levels (a recursive alias?): flatten the document");
  }
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar: {
      const std::string& tag = node.Tag();
      if (tag == "!" || tag == "tag:yaml.org,2002:str") return node.Scalar();
      return resolve_plain(node.Scalar());
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json out = nlohmann::json::array();
      for (const YAML::Node& item : node)
        out.push_back(convert(item, file, depth + 1));
      return out;
    }
    case YAML::NodeType::Map: {
      nlohmann::json out = nlohmann::json::object();
      for (const auto& entry : node) {
        const YAML::Node& key = entry.first;
        if (!key.IsScalar() && !key.IsNull()) {
          throw InputError(where(file, key.Mark()) +
                           ": a mapping key must be a plain string: write the key as text");
        }
        std::string name = key.IsScalar() ? key.Scalar() : std::string();
        if (out.contains(name)) {
          throw InputError(where(file, key.Mark()) + ": key \"" + name +
                           "\" appears twice in this mapping: remove one of them");
        }
        out[name] = convert(entry.second, file, depth + 1);
      }
      return out;
    }
  }
  return nullptr;
}

}  // namespace

nlohmann::json yaml_to_json(const YAML::Node& node, std::string_view file) {
  return convert(node, file, 0);
}

}  // namespace schedhost::cluster
