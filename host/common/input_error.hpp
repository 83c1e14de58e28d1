// Bad input from a user: a profile, a cluster file, a plugin file or a flag. The command line
// prints what() as one line, "error: <what>", and exits with code 2. The message names the file
// (with line:column when known), the object or plugin, and says what to do.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace schedhost {

class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

// "file:line:column" with 1-based line and column; "file" alone when line is 0 (unknown).
inline std::string source_location(std::string_view file, int line = 0, int column = 0) {
  std::string out(file);
  if (line > 0) {
    out += ':' + std::to_string(line);
    if (column > 0) out += ':' + std::to_string(column);
  }
  return out;
}

}  // namespace schedhost
