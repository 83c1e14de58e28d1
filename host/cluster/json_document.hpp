// Parsing a JSON file strictly, with positions in every error.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace schedhost::cluster {

// The value in `text`, or null when the text is blank (an empty file). Throws InputError
// "file:line:column: ...": invalid UTF-8 or control characters (check_text_encoding), a syntax
// error, nesting deeper than kMaxNestingDepth, or a key that repeats in one object (nlohmann
// would keep the last silently; the API server refuses it). `fix` ends a syntax error message.
nlohmann::json parse_json_document(const std::string& text, std::string_view file,
                                   std::string_view fix = "fix the syntax at this position");

}  // namespace schedhost::cluster
