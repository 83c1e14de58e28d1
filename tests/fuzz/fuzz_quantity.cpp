// libFuzzer target: resource quantities ("500m", "1.5Gi", "1e999999999") as a cluster file
// spells them.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "cluster/quantity.hpp"
#include "fuzz_check.hpp"

using schedhost::cluster::Quantity;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string error;
  std::optional<Quantity> quantity = schedhost::cluster::parse_quantity(text, &error);
  if (!quantity) {
    schedhost::fuzz::check_error_line(error);
    return 0;
  }
  // Accepted values stay in range and their accessors are defined.
  if (quantity->nano() > Quantity::kMaxNano || quantity->nano() < -Quantity::kMaxNano) {
    schedhost::fuzz::finding("quantity out of range");
  }
  (void)quantity->value();
  (void)quantity->milli_value();
  Quantity sum = *quantity + *quantity;
  if (sum.nano() > Quantity::kMaxNano || sum.nano() < -Quantity::kMaxNano) {
    schedhost::fuzz::finding("sum out of range");
  }
  return 0;
}
