// Text that came from user files (pod, node and label names, plugin reasons), made safe to put in
// an HTML page: nothing in it can open a tag, close an attribute or end a script.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace schedhost::cli {

// For element text and quoted attribute values: & < > " ' as character references; invalid
// UTF-8 replaced.
std::string html_escape(std::string_view text);

// JSON to embed in <script type="application/json">: < > & and U+2028/U+2029 as \u escapes, so
// that no "</script>" or "<!--" can appear in it.
std::string script_json(const nlohmann::ordered_json& value);

}  // namespace schedhost::cli
