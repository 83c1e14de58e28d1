// Parsing YAML text into documents, refusing what would exhaust the stack or memory first.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace schedhost {

// The documents of `text`, each checked by check_yaml_expansion(). Throws InputError for a text
// above kMaxYamlTextBytes, invalid UTF-8 or control characters (check_text_encoding), nesting that
// yaml-cpp's own recursion guard stops (about 500 levels; reported as deeper than
// kMaxNestingDepth), and excessive aliasing. A syntax error is left to the caller as
// YAML::ParserException (its mark gives the position), so each file type words it in its own style.
std::vector<YAML::Node> parse_yaml_documents(const std::string& text, std::string_view file);

}  // namespace schedhost
