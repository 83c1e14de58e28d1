// How a YAML scalar becomes a JSON value, shared by both YAML readers (yaml_to_json.hpp on a
// yaml-cpp tree, yaml_json_reader.hpp on libyaml events) so that they cannot drift apart.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace schedhost::cluster {

// A plain (unquoted, untagged) scalar under the YAML 1.2 core schema: null (~, null, empty),
// bool (true/false in any of the core spellings), int (decimal, 0x hex, 0o octal; beyond uint64 a
// float), float (1.5, 1e3, .5) or else the text itself.
nlohmann::json resolve_plain_scalar(std::string text);

// Whether yaml-cpp reads a plain untagged scalar as a null node rather than a scalar: "", "~"
// and the three spellings of null. Such a node has no text (a null key reads as "").
bool is_yaml_null_text(std::string_view text);

}  // namespace schedhost::cluster
