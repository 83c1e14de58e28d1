#include "config/yaml_field_reader.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <variant>

#include "common/input_error.hpp"
#include "common/plugin_search.hpp"
#include "config/yaml_scalar.hpp"

namespace schedhost::config {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Field names are case-sensitive, so "Parallelism" or "wieght" are the likely typos to point out.
std::string unknown_field_hint(std::string_view name, std::span<const std::string_view> known) {
  std::string_view best;
  std::size_t best_distance = 3;
  for (auto candidate : known) {
    std::size_t distance = edit_distance(lower(name), lower(candidate));
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  if (!best.empty()) return "did you mean \"" + std::string(best) + "\"?";
  std::string list = "known fields: ";
  for (std::size_t i = 0; i < known.size(); ++i) {
    if (i > 0) list += ", ";
    list += known[i];
  }
  return list;
}

bool is_integer_text(const std::string& text) {
  try {
    YAML::Node plain(text);
    auto value = resolve_scalar(plain);
    return std::holds_alternative<std::int64_t>(value) ||
           std::holds_alternative<std::uint64_t>(value);
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

SourceLocation YamlFieldReader::location(const YAML::Node& node) const {
  YAML::Mark mark = node.Mark();
  if (mark.is_null()) return SourceLocation{file_, 0, 0};
  return SourceLocation{file_, mark.line + 1, mark.column + 1};  // yaml-cpp counts from 0
}

SourceLocation YamlFieldReader::location(const YamlField& field) const {
  return field.is_null() ? location(field.key) : location(field.value);
}

void YamlFieldReader::fail(const SourceLocation& at, const std::string& message) const {
  throw InputError(at.to_string() + ": " + message);
}

void YamlFieldReader::fail(const YAML::Node& at, const std::string& message) const {
  fail(location(at), message);
}

std::vector<YamlField> YamlFieldReader::fields(const YAML::Node& node, std::string_view object,
                                               std::span<const std::string_view> known) const {
  if (!node.IsMap()) {
    fail(node, std::string(object) + " must be a mapping of fields, got " +
                   describe_yaml_value(node) + ": write its fields as `name: value` lines");
  }
  std::vector<YamlField> out;
  for (auto it = node.begin(); it != node.end(); ++it) {
    YAML::Node key = it->first;  // a copy: it-> yields a temporary
    if (!key.IsScalar()) {
      fail(key, "a field name in " + std::string(object) + " must be text, got " +
                    describe_yaml_value(key) + ": write `name: value`");
    }
    std::string name = key.Scalar();
    for (const auto& previous : out) {
      if (previous.name == name) {
        fail(key, "field \"" + name + "\" appears twice in " + std::string(object) +
                      " (first at line " + std::to_string(location(previous.key).line) +
                      "): keep only one");
      }
    }
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      fail(key, "unknown field \"" + name + "\" in " + std::string(object) +
                    ": remove it or fix its spelling (" + unknown_field_hint(name, known) + ")");
    }
    out.push_back(YamlField{std::move(name), key, it->second});
  }
  return out;
}

std::int64_t YamlFieldReader::read_integer(const YAML::Node& value, std::string_view what,
                                           std::int64_t min, std::int64_t max) const {
  YamlScalarValue resolved;
  try {
    resolved = value.IsScalar() ? resolve_scalar(value) : YamlScalarValue{std::string()};
  } catch (const std::invalid_argument&) {
    resolved = std::string();
  }
  auto* integer = std::get_if<std::int64_t>(&resolved);
  if (integer == nullptr && !std::holds_alternative<std::uint64_t>(resolved)) {
    bool quoted_integer = value.IsScalar() && value.Tag() == "!" && is_integer_text(value.Scalar());
    fail(value,
         std::string(what) + " must be an integer, got " + describe_yaml_value(value) +
             (quoted_integer ? ": write the number without quotes" : ": write a whole number"));
  }
  if (integer == nullptr || *integer < min || *integer > max) {
    fail(value, std::string(what) + " " + value.Scalar() + " is out of range: use a value from " +
                    std::to_string(min) + " to " + std::to_string(max));
  }
  return *integer;
}

bool YamlFieldReader::read_bool(const YAML::Node& value, std::string_view what) const {
  YamlScalarValue resolved;
  try {
    resolved = value.IsScalar() ? resolve_scalar(value) : YamlScalarValue{std::string()};
  } catch (const std::invalid_argument&) {
    resolved = std::string();
  }
  if (auto* b = std::get_if<bool>(&resolved)) return *b;
  fail(value, std::string(what) + " must be true or false, got " + describe_yaml_value(value) +
                  ": write true or false without quotes");
}

double YamlFieldReader::read_number(const YAML::Node& value, std::string_view what) const {
  YamlScalarValue resolved;
  try {
    resolved = value.IsScalar() ? resolve_scalar(value) : YamlScalarValue{std::string()};
  } catch (const std::invalid_argument&) {
    resolved = std::string();
  }
  if (auto* d = std::get_if<double>(&resolved)) return *d;
  if (auto* i = std::get_if<std::int64_t>(&resolved)) return static_cast<double>(*i);
  if (auto* u = std::get_if<std::uint64_t>(&resolved)) return static_cast<double>(*u);
  fail(value, std::string(what) + " must be a number, got " + describe_yaml_value(value) +
                  ": write a number without quotes");
}

std::string YamlFieldReader::read_string(const YAML::Node& value, std::string_view what) const {
  if (!value.IsScalar()) {
    fail(value, std::string(what) + " must be a single value, got " + describe_yaml_value(value) +
                    ": write it as text on the same line");
  }
  return value.Scalar();
}

void YamlFieldReader::expect_list(const YAML::Node& value, std::string_view what) const {
  if (!value.IsSequence()) {
    fail(value, std::string(what) + " must be a list, got " + describe_yaml_value(value) +
                    ": write its entries as `- ` items");
  }
}

const YamlField* find_field(const std::vector<YamlField>& fields, std::string_view name) {
  for (const auto& field : fields) {
    if (field.name == name) return &field;
  }
  return nullptr;
}

}  // namespace schedhost::config
