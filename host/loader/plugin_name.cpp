#include "loader/plugin_name.hpp"

namespace schedhost {
namespace {
constexpr bool is_letter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
constexpr bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
}  // namespace

bool is_valid_plugin_name(std::string_view name) {
  if (name.empty() || !is_letter(name.front())) return false;
  for (char c : name) {
    if (!is_letter(c) && !is_digit(c)) return false;
  }
  return true;
}

}  // namespace schedhost
