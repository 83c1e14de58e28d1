// File positions of YAML nodes, for messages that point at the value a user wrote.
#pragma once

#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

namespace schedhost::cluster {

// "file:line:column" of a yaml-cpp mark (0-based inside yaml-cpp), or "file" when it has none.
std::string mark_location(std::string_view file, const YAML::Mark& mark);

// The mark of the deepest node along an RFC 6901 pointer (the parent when the field itself is
// missing; the key when the value is empty, since yaml-cpp marks an empty value at the next
// token). Recursive on purpose: assigning one YAML::Node to another rewrites the tree in
// yaml-cpp. Its depth is the pointer's, which names a field of an already converted document.
YAML::Mark locate(const YAML::Node& node, std::string_view pointer);

// The key of the second `key` in the mapping at `pointer`, for a duplicate found by a JSON
// parser that keeps no positions; the mapping's own mark when there is no second one.
YAML::Mark locate_duplicate_key(const YAML::Node& node, std::string_view pointer,
                                std::string_view key);

}  // namespace schedhost::cluster
