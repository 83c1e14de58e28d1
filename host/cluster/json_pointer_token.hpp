// RFC 6901's rules for one token of a JSON pointer, written once for the code that builds
// pointers (error messages) and the code that walks them (a tree, or compact text).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace schedhost::cluster {

// Takes the first token off a non-empty `pointer` into `token` (still escaped); false when the
// pointer does not start with '/'.
bool take_pointer_token(std::string_view& pointer, std::string_view& token);
// Appends `key` to `out` as a token: "~" as "~0", "/" as "~1".
void append_pointer_token(std::string& out, std::string_view key);
// The key a token names ("~0" is "~", "~1" is "/") into `out`; false when a '~' is followed by
// anything else.
bool unescape_pointer_token(std::string_view token, std::string& out);
// The array index a token names: digits only, no leading zero, at most 18 digits; false for
// anything else ("-", the element past the end, names nothing here).
bool pointer_array_index(std::string_view token, std::size_t& index);

}  // namespace schedhost::cluster
