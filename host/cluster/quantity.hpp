// Resource quantities ("500m", "1.5Gi", "2e3"): upstream resource.Quantity, exact, no floating
// point.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace schedhost::cluster {

// A quantity in nano units needs more than 64 bits: int64-max whole units are ~9.2e27 nano.
__extension__ typedef __int128 Int128;

// An exact amount, stored as a signed count of nano units (10^-9). Upstream rounds every parsed
// value up to 1n, so nano units represent any parsed quantity exactly.
class Quantity {
 public:
  static constexpr int64_t kNanoPerUnit = 1'000'000'000;
  // The largest magnitude held: int64-max whole units. parse_quantity() refuses larger values
  // (upstream caps binary ones silently and computes decimal ones with big numbers); sums
  // saturate here instead of overflowing.
  static constexpr Int128 kMaxNano = static_cast<Int128>(INT64_MAX) * kNanoPerUnit;

  constexpr Quantity() = default;
  // Clamps to [-kMaxNano, kMaxNano].
  static Quantity from_nano(Int128 nano);
  static Quantity from_units(int64_t units) {
    return from_nano(static_cast<Int128>(units) * kNanoPerUnit);
  }
  static Quantity from_milli(int64_t milli) {
    return from_nano(static_cast<Int128>(milli) * 1'000'000);
  }

  Int128 nano() const { return nano_; }
  bool is_zero() const { return nano_ == 0; }
  bool is_negative() const { return nano_ < 0; }

  // Whole units, rounded up (away from zero for negatives, as upstream's int64 path does):
  // upstream Value(). Always fits, since the magnitude is capped at int64-max units.
  int64_t value() const;
  // Thousandths, rounded up the same way: upstream MilliValue(). Saturates at +-INT64_MAX.
  int64_t milli_value() const;

  // Exact sum, saturating at +-kMaxNano.
  Quantity& operator+=(const Quantity& other);
  friend Quantity operator+(Quantity a, const Quantity& b) { return a += b; }

  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads the defaulted comparison
  friend auto operator<=>(const Quantity&, const Quantity&) = default;

 private:
  explicit constexpr Quantity(Int128 nano) : nano_(nano) {}
  Int128 nano_ = 0;
};

// Parses a quantity with upstream's grammar: an optional sign, digits with an optional fraction
// ("1", "0.5", ".5", "1."), then one suffix: none, n u m k M G T P E (powers of 1000), Ki Mi Gi
// Ti Pi Ei (powers of 1024), or a decimal exponent e<int>/E<int> ("1e3", "12E-3"). The value is
// rounded up to 1n. On failure returns nullopt and, when error is given, stores why (e.g.
// `unknown suffix "x"`, or `out of range: ...` beyond int64-max units, e.g. 8Ei or 1e30). Unlike
// upstream, a string without a single digit ("", ".", "-", "+") is refused: upstream reads those as
// 0, which only hides typos.
std::optional<Quantity> parse_quantity(std::string_view text, std::string* error = nullptr);

}  // namespace schedhost::cluster
