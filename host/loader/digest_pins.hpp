// --plugin-digests FILE: the SHA-256 each plugin file must have, one "sha256  filename" line per
// file (what `sha256sum *.so` prints in the plugin directory), with # comments and blank lines.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "loader/plugin_definition.hpp"

namespace schedhost::loader {

struct DigestPin {
  std::string sha256;  // 64 lower-case hex digits
  int line = 0;        // where FILE lists it
};

struct DigestPins {
  std::string file;                                       // as given to --plugin-digests
  std::map<std::string, DigestPin, std::less<>> by_name;  // plugin file name -> its pin

  const DigestPin* find(std::string_view name) const;
  // "FILE:LINE", for messages.
  std::string where(const DigestPin& pin) const;
};

// Parses text read from file. Throws InputError naming file:line for a malformed line, a path
// instead of a bare file name, or a name listed twice.
DigestPins parse_digest_pins(std::string_view text, const std::string& file);

// Reads and parses file (at most 1 MiB). Whoever can write it decides what gets loaded, so it
// passes the same ownership and permission checks as a plugin file: refused (InputError) unless
// allow_insecure, which adds a warning instead. Throws InputError.
DigestPins read_digest_pins(const std::string& file, bool allow_insecure,
                            std::vector<LoadWarning>& warnings);

}  // namespace schedhost::loader
