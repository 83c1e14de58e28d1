// The YAML 1.2 core schema's number patterns, as text matchers shared by the profile reader
// (config/yaml_scalar) and the cluster readers (cluster/yaml_scalar). Each decides what a match
// becomes (config refuses what JSON cannot hold, a cluster file keeps it as text); the patterns
// themselves must not differ. Hand-written rather than std::regex: libstdc++'s regex recurses
// once per character and overflows the stack on a scalar of a few hundred thousand digits.
#pragma once

#include <cstddef>
#include <string_view>

namespace schedhost::yaml_core {

inline bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

inline std::string_view without_sign(std::string_view s) {
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) s.remove_prefix(1);
  return s;
}

// Skips digits from pos; returns how many.
inline std::size_t skip_digits(std::string_view s, std::size_t& pos) {
  const std::size_t begin = pos;
  while (pos < s.size() && is_digit(s[pos]))
    ++pos;
  return pos - begin;
}

// [-+]?[0-9]+
inline bool is_int_text(std::string_view s) {
  s = without_sign(s);
  std::size_t pos = 0;
  return skip_digits(s, pos) > 0 && pos == s.size();
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
inline bool is_float_text(std::string_view s) {
  s = without_sign(s);
  std::size_t pos = 0;
  const std::size_t whole = skip_digits(s, pos);
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    if (skip_digits(s, pos) == 0 && whole == 0) return false;
  } else if (whole == 0) {
    return false;
  }
  if (pos < s.size() && (s[pos] == 'e' || s[pos] == 'E')) {
    ++pos;
    if (pos < s.size() && (s[pos] == '-' || s[pos] == '+')) ++pos;
    if (skip_digits(s, pos) == 0) return false;
  }
  return pos == s.size();
}

}  // namespace schedhost::yaml_core
