#include "common/go_duration.hpp"

#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <utility>

namespace schedhost {
namespace {

constexpr std::array<std::pair<std::string_view, double>, 7> kUnits{{
    {"ns", 1.0},
    {"us", 1e3},
    {"\xC2\xB5s", 1e3},  // µs
    {"ms", 1e6},
    {"s", 1e9},
    {"m", 60e9},
    {"h", 3600e9},
}};

}  // namespace

std::optional<std::chrono::nanoseconds> parse_go_duration(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text == "0") return std::chrono::nanoseconds(0);
  if (text.empty()) return std::nullopt;
  double total = 0;
  while (!text.empty()) {
    // A number: digits, optionally a fraction.
    std::size_t i = 0;
    double value = 0;
    bool digits = false;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      value = value * 10 + (text[i] - '0');
      digits = true;
      ++i;
    }
    if (i < text.size() && text[i] == '.') {
      ++i;
      double scale = 0.1;
      while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
        value += (text[i] - '0') * scale;
        scale /= 10;
        digits = true;
        ++i;
      }
    }
    if (!digits) return std::nullopt;
    text.remove_prefix(i);
    // Its unit: the longest that matches ("ms" before "m").
    std::size_t matched = 0;
    double factor = 0;
    for (const auto& [unit, f] : kUnits) {
      if (text.substr(0, unit.size()) == unit && unit.size() > matched) {
        matched = unit.size();
        factor = f;
      }
    }
    if (matched == 0) return std::nullopt;
    text.remove_prefix(matched);
    total += value * factor;
  }
  if (total > 9.2e18) return std::nullopt;  // past int64 nanoseconds, as Go refuses
  const auto ns = static_cast<std::int64_t>(std::llround(total));
  return std::chrono::nanoseconds(negative ? -ns : ns);
}

}  // namespace schedhost
