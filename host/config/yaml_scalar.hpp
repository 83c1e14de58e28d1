// What a YAML scalar means, by the YAML 1.2 core schema: plain `true`/`false` are booleans,
// plain numbers are numbers, quoted text is always a string. yaml-cpp leaves this to the caller
// (Node::as<bool>() even takes `yes`), and both strict field reading and args -> JSON need one
// rule.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include <yaml-cpp/yaml.h>

namespace schedhost::config {

struct YamlNull {
  bool operator==(const YamlNull&) const = default;
};

// An integer too large for int64 but fitting uint64 stays an integer, as in JSON.
using YamlScalarValue =
    std::variant<YamlNull, bool, std::int64_t, std::uint64_t, double, std::string>;

// The value of a scalar (or null) node. Throws std::invalid_argument for a value the core schema
// cannot give (an explicit !!int tag on "abc", an unknown tag); the caller adds the location.
YamlScalarValue resolve_scalar(const YAML::Node& node);

// "the string \"16\"", "true", "16", "a mapping", ... for "expected X, got Y" messages.
std::string describe_yaml_value(const YAML::Node& node);

}  // namespace schedhost::config
