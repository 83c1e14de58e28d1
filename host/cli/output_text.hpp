// Text from plugins and cluster files made safe to print: every output format is UTF-8, and a
// table cell stays on one line.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "common/utf8.hpp"

namespace schedhost::cli {

// valid_utf8 (common/utf8.hpp) makes a plugin's reason safe for the JSON and YAML writers.
using schedhost::valid_utf8;

// valid_utf8(text) with every control character (newline, tab, ...) replaced by a space.
std::string one_line(std::string_view text);

// The number of code points of a UTF-8 text: its width in a terminal, for aligning columns.
std::size_t display_width(std::string_view text);

}  // namespace schedhost::cli
