// What every fuzz target asserts beyond "no crash": a refusal is one InputError of one line.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>

namespace schedhost::fuzz {

// Aborts (a finding for libFuzzer, a failure for the corpus runner) when `message` breaks the
// error contract of DESIGN.md: one non-empty line.
inline void check_error_line(std::string_view message) {
  if (message.empty() || message.find('\n') != std::string_view::npos ||
      message.find('\r') != std::string_view::npos) {
    std::fprintf(stderr, "fuzz: error message is not one line: [%.*s]\n",
                 static_cast<int>(message.size()), message.data());
    std::abort();
  }
}

[[noreturn]] inline void finding(const char* what) {
  std::fprintf(stderr, "fuzz: %s\n", what);
  std::abort();
}

}  // namespace schedhost::fuzz
