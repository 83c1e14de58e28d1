// A GoogleTest parameter name from a table case's description ("too many pods" -> too_many_pods).
#pragma once

#include <cctype>
#include <string>

namespace schedhost::testing {

inline std::string case_name(const std::string& description) {
  std::string out;
  for (char c : description) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
      out += c;
    } else if (!out.empty() && out.back() != '_') {
      out += '_';
    }
  }
  while (!out.empty() && out.back() == '_')
    out.pop_back();
  return out.empty() ? "case" : out;
}

}  // namespace schedhost::testing
