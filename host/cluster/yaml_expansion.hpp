// Bounds on a loaded YAML document before anything walks it: yaml-cpp keeps an alias as a
// shared node, so the tree is small, but every walk (conversion to JSON, field reading) expands
// it again.
#pragma once

#include <cstdint>
#include <string_view>

#include <yaml-cpp/yaml.h>

namespace schedhost {

// Walks the document as a converter would, stopping early, and throws InputError at the node
// where it gives up: nesting deeper than kMaxNestingDepth (a recursive alias reaches it too), or
// alias expansion beyond go-yaml's bound (see input_limits.hpp). Cost: at most about
// kAliasRatioLow nodes more than the document holds; constant memory.
void check_yaml_expansion(const YAML::Node& document, std::string_view file);

// Whether `alias_nodes` of the `nodes` values met so far coming from aliases is more than
// go-yaml allows (both counts include the aliases' expansion).
bool is_excessive_aliasing(std::int64_t alias_nodes, std::int64_t nodes);

}  // namespace schedhost
