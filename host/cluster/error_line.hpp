// Keeping every InputError on one line: messages quote what the user wrote (names, keys,
// values), and a double-quoted YAML or JSON string may hold "\n" or other control characters.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "common/input_error.hpp"

namespace schedhost {

// `message` with line breaks and other control characters (tab excepted) written as escapes:
// "\n", "\r", "\x1b".
std::string as_one_line(std::string_view message);

// Runs `parse`, rethrowing its InputError as one line; for the public entry points of the
// parsers, so that no message built inside them can break the one-line contract.
template <typename Parse>
decltype(auto) with_one_line_errors(Parse&& parse) {
  try {
    return std::forward<Parse>(parse)();
  } catch (const InputError& e) {
    throw InputError(as_one_line(e.what()));
  }
}

}  // namespace schedhost
