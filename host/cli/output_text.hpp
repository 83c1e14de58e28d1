// Text from plugins and cluster files made safe to print: every output format is UTF-8, and a
// table cell stays on one line.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace schedhost::cli {

// text with every byte that is not part of a well-formed UTF-8 sequence (stray continuation
// bytes, truncated or overlong sequences, surrogates, code points past U+10FFFF) replaced by
// U+FFFD, so JSON and YAML writers never fail on a plugin's reason.
std::string valid_utf8(std::string_view text);

// valid_utf8(text) with every control character (newline, tab, ...) replaced by a space.
std::string one_line(std::string_view text);

// The number of code points of a UTF-8 text: its width in a terminal, for aligning columns.
std::size_t display_width(std::string_view text);

}  // namespace schedhost::cli
