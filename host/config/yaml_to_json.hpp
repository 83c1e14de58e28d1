// Plugin args travel to plugins as JSON text, so the YAML the user wrote is converted once, here,
// keeping what each value is: plain integers stay integers, quoted text stays a string (so a
// quantity "100m" or a quoted "true" is never reinterpreted), true/false are booleans, null is
// null.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "config/yaml_field_reader.hpp"

namespace schedhost::config {

// Converts a node and everything under it. Throws InputError at the offending node for what JSON
// cannot hold (a repeated key, a non-text key, .inf/.nan, an unknown YAML tag). `what` names the
// value in messages, e.g. `args of plugin "NodeResourcesFit"`.
nlohmann::json yaml_to_json(const YAML::Node& node, const YamlFieldReader& reader,
                            std::string_view what);

}  // namespace schedhost::config
