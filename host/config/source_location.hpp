// Where something was written in a config file, kept so that validation, which runs long after
// parsing, can still point the user at the exact line.
#pragma once

#include <string>

#include "common/input_error.hpp"

namespace schedhost::config {

struct SourceLocation {
  std::string file;
  int line = 0;  // 1-based; 0 when the thing was not written in the file (a default)
  int column = 0;

  bool known() const { return line > 0; }
  // "file:line:column", or just "file" for a default.
  std::string to_string() const { return source_location(file, line, column); }
  bool operator==(const SourceLocation&) const = default;
};

// Throws InputError "file:line:column: message".
[[noreturn]] inline void fail_at(const SourceLocation& at, const std::string& message) {
  throw InputError(at.to_string() + ": " + message);
}

// preferred when it was written in the file, else fallback (the enclosing object, say).
inline const SourceLocation& known_or(const SourceLocation& preferred,
                                      const SourceLocation& fallback) {
  return preferred.known() ? preferred : fallback;
}

}  // namespace schedhost::config
