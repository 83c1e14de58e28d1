#include "config/yaml_to_json.hpp"

#include <cmath>
#include <set>
#include <stdexcept>
#include <string>
#include <variant>

#include "config/yaml_scalar.hpp"

namespace schedhost::config {
namespace {

nlohmann::json scalar_to_json(const YAML::Node& node, const YamlFieldReader& reader,
                              std::string_view what) {
  YamlScalarValue value;
  try {
    value = resolve_scalar(node);
  } catch (const std::invalid_argument& e) {
    reader.fail(node, std::string(what) + ": " + e.what() + ": remove the tag or fix the value");
  }
  return std::visit(
      [&](const auto& v) -> nlohmann::json {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, YamlNull>) {
          return nullptr;
        } else if constexpr (std::is_same_v<T, double>) {
          if (!std::isfinite(v)) {
            reader.fail(node, std::string(what) + ": " + node.Scalar() +
                                  " cannot be represented in JSON: use a finite number");
          }
          return v;
        } else {
          return v;
        }
      },
      value);
}

}  // namespace

nlohmann::json yaml_to_json(const YAML::Node& node, const YamlFieldReader& reader,
                            std::string_view what) {
  if (!node || node.IsNull()) return nullptr;
  if (node.IsScalar()) return scalar_to_json(node, reader, what);
  if (node.IsSequence()) {
    nlohmann::json array = nlohmann::json::array();
    for (const auto& item : node)
      array.push_back(yaml_to_json(item, reader, what));
    return array;
  }
  nlohmann::json object = nlohmann::json::object();
  std::set<std::string, std::less<>> seen;
  for (auto it = node.begin(); it != node.end(); ++it) {
    YAML::Node key = it->first;  // a copy: it-> yields a temporary
    if (!key.IsScalar()) {
      reader.fail(key, std::string(what) + ": a key must be text, got " + describe_yaml_value(key) +
                           ": write `key: value`");
    }
    if (!seen.insert(key.Scalar()).second) {
      reader.fail(key, std::string(what) + ": key \"" + key.Scalar() +
                           "\" appears twice in the same mapping: keep only one");
    }
    object[key.Scalar()] = yaml_to_json(it->second, reader, what);
  }
  return object;
}

}  // namespace schedhost::config
