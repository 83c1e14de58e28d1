// YAML documents as the JSON objects Kubernetes would decode them to.
#pragma once

#include <string_view>

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

namespace schedhost::cluster {

// Converts one YAML node with the YAML 1.2 core schema, the way sigs.k8s.io/yaml feeds the API:
// quoted, block and !!str scalars stay strings; plain scalars become null (~, null, empty), bool
// (true/false in any of the core spellings), int (decimal, 0x hex, 0o octal; beyond uint64 a
// float), float (1.5, 1e3, .5) or else a string. "yes"/"on" stay strings (YAML 1.1 would make them
// booleans; a label value "yes" is what a user means). .inf and .nan stay strings: JSON has no
// such numbers. Throws InputError ("file:line:col: ...") for a duplicate key, a key that is not
// a scalar, or nesting deeper than kMaxNestingDepth levels (a recursive alias). Bound the
// expansion of aliases first with check_yaml_expansion() (parse_yaml_documents() does).
nlohmann::json yaml_to_json(const YAML::Node& node, std::string_view file);

}  // namespace schedhost::cluster
