// UTF-8 made safe for JSON and terminals, as Go's encoders make it: Kubernetes objects are JSON,
// and a plugin's message or a pod's name may be any bytes.
#pragma once

#include <string>
#include <string_view>

namespace schedhost {

// text with every byte that is not part of a well-formed UTF-8 sequence (stray continuation
// bytes, truncated or overlong sequences, surrogates, code points past U+10FFFF) replaced by
// U+FFFD, one for each such byte, as Go's encoding/json writes a string.
std::string valid_utf8(std::string_view text);

// Appends text to out as a JSON string, quotes included, as nlohmann's dump() writes one: '"',
// '\' and control characters escaped, everything else as is; bytes that are not UTF-8 are
// written as valid_utf8 writes them.
void append_json_string(std::string& out, std::string_view text);

}  // namespace schedhost
