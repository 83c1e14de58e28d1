// Text that came from user files (pod, node and label names, plugin reasons), made safe to put in
// an HTML page: nothing in it can open a tag, close an attribute or end a script.
#pragma once

#include <cstdint>
#include <ostream>
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

// A self-contained page up to <body>: the charset, a Content-Security-Policy that lets nothing be
// fetched (inline styles, and inline scripts when with_script), the title and the style sheet.
void write_page_head(std::ostream& out, std::string_view title, std::string_view css,
                     bool with_script);

// The style attribute of a score cell: red at 0 to green at 100 (clamped).
std::string score_style(std::int64_t score);

}  // namespace schedhost::cli
