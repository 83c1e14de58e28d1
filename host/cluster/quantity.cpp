#include "cluster/quantity.hpp"

#include <array>
#include <charconv>
#include <limits>
#include <vector>

#include "cluster/error_line.hpp"

namespace schedhost::cluster {
namespace {

constexpr int64_t kNanoPerMilli = 1'000'000;
// Longer mantissas are refused: they cannot be a real resource amount, and the exact division
// below is quadratic in the number of digits.
constexpr size_t kMaxDigits = 1000;

Int128 abs128(Int128 v) {
  return v < 0 ? -v : v;
}

// Magnitude / divisor, rounded up.
Int128 ceil_div(Int128 magnitude, Int128 divisor) {
  return (magnitude + divisor - 1) / divisor;
}

// A non-negative integer of any size in base 10^9 limbs, least significant first. Just enough
// arithmetic to scale a parsed decimal exactly.
class BigNat {
 public:
  static constexpr uint32_t kBase = 1'000'000'000;

  explicit BigNat(std::string_view digits) {
    for (size_t end = digits.size(); end > 0;) {
      size_t begin = end >= 9 ? end - 9 : 0;
      uint32_t limb = 0;
      for (size_t i = begin; i < end; ++i)
        limb = limb * 10 + static_cast<uint32_t>(digits[i] - '0');
      limbs_.push_back(limb);
      end = begin;
    }
    trim();
  }

  void multiply(uint32_t factor) {
    uint64_t carry = 0;
    for (uint32_t& limb : limbs_) {
      uint64_t product = static_cast<uint64_t>(limb) * factor + carry;
      limb = static_cast<uint32_t>(product % kBase);
      carry = product / kBase;
    }
    while (carry != 0) {
      limbs_.push_back(static_cast<uint32_t>(carry % kBase));
      carry /= kBase;
    }
  }

  // Divides in place; returns whether the remainder was non-zero.
  bool divide(uint32_t divisor) {
    uint64_t remainder = 0;
    for (size_t i = limbs_.size(); i-- > 0;) {
      uint64_t current = remainder * kBase + limbs_[i];
      limbs_[i] = static_cast<uint32_t>(current / divisor);
      remainder = current % divisor;
    }
    trim();
    return remainder != 0;
  }

  // The value, or nullopt when it exceeds `limit`.
  std::optional<Int128> to_int128(Int128 limit) const {
    if (limbs_.size() > 4) return std::nullopt;  // >= 10^36, above any limit we use
    Int128 value = 0;
    for (size_t i = limbs_.size(); i-- > 0;)
      value = value * kBase + limbs_[i];
    if (value > limit) return std::nullopt;
    return value;
  }

 private:
  void trim() {
    while (!limbs_.empty() && limbs_.back() == 0)
      limbs_.pop_back();
  }
  std::vector<uint32_t> limbs_;
};

struct Suffix {
  int32_t exponent10 = 0;  // value *= 10^exponent10
  int32_t exponent2 = 0;   // value *= 2^exponent2
};

std::optional<Suffix> interpret_suffix(std::string_view s, bool& exponent_too_large) {
  struct Named {
    std::string_view name;
    Suffix suffix;
  };
  static constexpr std::array<Named, 16> kNamed = {{
      {"", {0, 0}},
      {"n", {-9, 0}},
      {"u", {-6, 0}},
      {"m", {-3, 0}},
      {"k", {3, 0}},
      {"M", {6, 0}},
      {"G", {9, 0}},
      {"T", {12, 0}},
      {"P", {15, 0}},
      {"E", {18, 0}},
      {"Ki", {0, 10}},
      {"Mi", {0, 20}},
      {"Gi", {0, 30}},
      {"Ti", {0, 40}},
      {"Pi", {0, 50}},
      {"Ei", {0, 60}},
  }};
  for (const Named& named : kNamed) {
    if (named.name == s) return named.suffix;
  }
  // A decimal exponent: e/E, an optional sign, digits; it must fit int32 like upstream's.
  if (s.size() < 2 || (s[0] != 'e' && s[0] != 'E')) return std::nullopt;
  std::string_view number = s.substr(1);
  size_t sign = (number.front() == '+' || number.front() == '-') ? 1 : 0;
  if (number.size() == sign) return std::nullopt;
  for (size_t i = sign; i < number.size(); ++i) {
    if (number[i] < '0' || number[i] > '9') return std::nullopt;
  }
  if (number.front() == '+') number.remove_prefix(1);  // from_chars takes '-' only
  int32_t exponent = 0;
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), exponent);
  if (ec == std::errc::result_out_of_range) exponent_too_large = true;
  if (ec != std::errc() || end != number.data() + number.size()) return std::nullopt;
  return Suffix{exponent, 0};
}

// 10^min(e, 9): the scaling steps a base-10^9 limb allows at once.
uint32_t power_of_ten(int64_t e) {
  static constexpr std::array<uint32_t, 10> kPowers = {
      1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000};
  return kPowers[static_cast<size_t>(e >= 9 ? 9 : e)];
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

void fail(std::string* error, std::string message) {
  if (error != nullptr) *error = std::move(message);
}

// ceil(digits * 10^exponent10 * 2^exponent2) in nano units, or nullopt above kMaxNano. `digits`
// has no leading zeros and is not empty.
std::optional<Int128> scale_to_nano(std::string_view digits, int64_t exponent10,
                                    int32_t exponent2) {
  const auto length = static_cast<int64_t>(digits.size());
  // >= 10^(length-1+exponent10) >= 10^28 > kMaxNano, whatever the binary factor: decided before
  // any arithmetic, so an exponent of 2^31 costs nothing.
  if (length - 1 + exponent10 >= 28) return std::nullopt;
  // < 10^(length+exponent10) * 2^60 < 10^(length+exponent10+19) <= 1: a sliver, rounded up to 1n.
  if (length + exponent10 + 19 <= 0) return 1;

  BigNat value(digits);
  for (int32_t shift = exponent2; shift > 0; shift -= 30) {
    value.multiply(uint32_t{1} << (shift >= 30 ? 30 : shift));
  }
  bool inexact = false;
  for (int64_t e = exponent10; e > 0; e -= 9)
    value.multiply(power_of_ten(e));
  for (int64_t e = -exponent10; e > 0; e -= 9)
    inexact = value.divide(power_of_ten(e)) || inexact;
  std::optional<Int128> nano = value.to_int128(Quantity::kMaxNano);
  if (!nano) return std::nullopt;
  if (inexact) {
    if (*nano == Quantity::kMaxNano) return std::nullopt;  // rounding up goes past the maximum
    return *nano + 1;
  }
  return *nano;
}

}  // namespace

Quantity Quantity::from_nano(Int128 nano) {
  if (nano > kMaxNano) return Quantity(kMaxNano);
  if (nano < -kMaxNano) return Quantity(-kMaxNano);
  return Quantity(nano);
}

int64_t Quantity::value() const {
  Int128 units = ceil_div(abs128(nano_), kNanoPerUnit);  // <= INT64_MAX by the cap
  return static_cast<int64_t>(nano_ < 0 ? -units : units);
}

int64_t Quantity::milli_value() const {
  Int128 milli = ceil_div(abs128(nano_), kNanoPerMilli);
  if (milli > INT64_MAX) milli = INT64_MAX;
  return static_cast<int64_t>(nano_ < 0 ? -milli : milli);
}

Quantity& Quantity::operator+=(const Quantity& other) {
  *this = from_nano(nano_ + other.nano_);  // both within +-2^93: the sum cannot overflow
  return *this;
}

std::optional<Quantity> parse_quantity(std::string_view text, std::string* error) {
  if (text.empty()) {
    fail(error, "empty string");
    return std::nullopt;
  }
  size_t pos = 0;
  bool negative = false;
  if (text[pos] == '+' || text[pos] == '-') {
    negative = text[pos] == '-';
    ++pos;
  }
  size_t whole_begin = pos;
  while (pos < text.size() && is_digit(text[pos]))
    ++pos;
  std::string_view whole = text.substr(whole_begin, pos - whole_begin);
  std::string_view fraction;
  if (pos < text.size() && text[pos] == '.') {
    size_t fraction_begin = ++pos;
    while (pos < text.size() && is_digit(text[pos]))
      ++pos;
    fraction = text.substr(fraction_begin, pos - fraction_begin);
  }
  if (whole.empty() && fraction.empty()) {
    fail(error, "no digits");
    return std::nullopt;
  }
  std::string_view suffix_text = text.substr(pos);
  bool exponent_too_large = false;
  std::optional<Suffix> suffix = interpret_suffix(suffix_text, exponent_too_large);
  if (exponent_too_large) {
    fail(error, "exponent \"" + std::string(suffix_text.substr(1)) +
                    "\" out of range: the largest quantity is 9223372036854775807 (2^63-1) units");
    return std::nullopt;
  }
  if (!suffix) {
    // The suffix is the user's text: escaped, so the message stays one line.
    fail(error, "unknown suffix \"" + as_one_line(suffix_text) + "\"");
    return std::nullopt;
  }

  std::string digits;
  digits.reserve(whole.size() + fraction.size());
  digits.append(whole).append(fraction);
  size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) return Quantity();  // zero, whatever the suffix
  digits.erase(0, first);
  // Trailing zeros only shift the exponent; dropping them keeps the arithmetic short.
  int64_t exponent10 = int64_t{suffix->exponent10} - static_cast<int64_t>(fraction.size()) + 9;
  while (digits.size() > 1 && digits.back() == '0') {
    digits.pop_back();
    ++exponent10;
  }
  if (digits.size() > kMaxDigits) {
    fail(error, "more than " + std::to_string(kMaxDigits) + " significant digits");
    return std::nullopt;
  }
  std::optional<Int128> nano = scale_to_nano(digits, exponent10, suffix->exponent2);
  if (!nano) {
    fail(error, "out of range: the largest quantity is 9223372036854775807 (2^63-1) units");
    return std::nullopt;
  }
  return Quantity::from_nano(negative ? -*nano : *nano);
}

}  // namespace schedhost::cluster
