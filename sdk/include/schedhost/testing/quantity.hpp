// schedhost/testing/quantity.hpp - Kubernetes quantities ("500m", "1.5Gi") in the units of the
// ABI, so fake pods and nodes read like the YAML they stand for.
#pragma once

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>

namespace schedhost::testing {

// The value of quantity q of resource as the host hands it to plugins: "cpu" in millicores, every
// other resource in whole base units, rounded up (as upstream's NodeInfo keeps them). Throws
// std::invalid_argument for what is not a non-negative quantity (exponent forms are not read).
inline std::int64_t quantity(std::string_view resource, std::string_view q) {
  const auto bad = [&](const char* why) {
    return std::invalid_argument("quantity \"" + std::string(q) + "\": " + why);
  };
  // Exact arithmetic: "0.1" cpu must be 100m, not 100.00000001m rounded up to 101m.
  __extension__ using u128 = unsigned __int128;
  u128 mantissa = 0;
  int exp10 = 0;
  std::size_t i = 0;
  bool digits = false;
  bool dot = false;
  for (; i < q.size(); ++i) {
    const char c = q[i];
    if (c == '.' && !dot) {
      dot = true;
    } else if (c >= '0' && c <= '9') {
      if (mantissa > (std::numeric_limits<std::uint64_t>::max() / 10)) throw bad("too large");
      mantissa = mantissa * 10 + static_cast<unsigned>(c - '0');
      digits = true;
      if (dot) --exp10;
    } else {
      break;
    }
  }
  if (!digits) throw bad("expected a non-negative number with an optional suffix");
  const std::string_view suffix = q.substr(i);
  int binary = 0;  // powers of 1024
  if (suffix.empty()) {
  } else if (suffix == "m") {
    exp10 -= 3;
  } else if (suffix == "k") {
    exp10 += 3;
  } else if (suffix.size() == 1 &&
             std::string_view("MGTPE").find(suffix[0]) != std::string_view::npos) {
    exp10 += 3 * (2 + static_cast<int>(std::string_view("MGTPE").find(suffix[0])));
  } else if (suffix.size() == 2 && suffix[1] == 'i' &&
             std::string_view("KMGTPE").find(suffix[0]) != std::string_view::npos) {
    binary = 1 + static_cast<int>(std::string_view("KMGTPE").find(suffix[0]));
  } else {
    throw bad("unknown suffix (use m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi or Ei)");
  }
  if (resource == "cpu") exp10 += 3;

  constexpr u128 kMax = std::numeric_limits<std::int64_t>::max();
  const auto scale = [&](u128 factor) {
    if (mantissa != 0 && factor > (kMax * 1024 * 1024) / mantissa) throw bad("too large");
    mantissa *= factor;
  };
  for (int b = 0; b < binary; ++b)
    scale(1024);
  for (; exp10 > 0; --exp10)
    scale(10);
  if (exp10 < 0) {
    u128 divisor = 1;
    for (; exp10 < 0 && divisor <= kMax; ++exp10)
      divisor *= 10;
    mantissa = exp10 < 0 ? (mantissa != 0 ? 1 : 0) : (mantissa + divisor - 1) / divisor;
  }
  if (mantissa > kMax) throw bad("too large");
  return static_cast<std::int64_t>(mantissa);
}

}  // namespace schedhost::testing
