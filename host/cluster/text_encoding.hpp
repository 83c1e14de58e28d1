// The bytes of an input file, checked before any parser sees them.
#pragma once

#include <string_view>

namespace schedhost {

// Throws InputError "file:line:column: invalid UTF-8 ...: save the file as UTF-8" at the first
// byte that is not well-formed UTF-8 (overlong forms, surrogates and values above U+10FFFF
// included), or "... control character U+0001 ..." for a C0 control other than tab, line feed
// and carriage return. Kubernetes refuses both (sigs.k8s.io/yaml: "invalid leading UTF-8
// octet", "control characters are not allowed"), and yaml-cpp would silently turn bad bytes into
// U+FFFD. A leading UTF-8 byte order mark is allowed. Columns count characters, as yaml-cpp's.
void check_text_encoding(std::string_view text, std::string_view file);

}  // namespace schedhost
