// libFuzzer target: the JSON-pointer accessor plugins call from many threads (Pod::json_at and
// the cache under it). Input: the pointer, a newline, then the JSON object it is applied to.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "cluster/json_pointer_cache.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  size_t newline = input.find('\n');
  std::string_view pointer = input.substr(0, newline);
  std::string_view document = newline == std::string_view::npos ? "" : input.substr(newline + 1);
  nlohmann::json object = nlohmann::json::parse(document, nullptr, false);
  if (object.is_discarded()) object = std::string(document);  // any bytes, as a string value

  schedhost::cluster::JsonPointerCache cache;
  auto first = cache.get(object, pointer);
  auto second = cache.get(object, pointer);  // from the cache: must be the same
  if (first.has_value() != second.has_value() || (first && *first != *second)) {
    schedhost::fuzz::finding("cached value differs");
  }
  if (first && !nlohmann::json::accept(*first)) {
    schedhost::fuzz::finding("json_at returned text that is not JSON");
  }
  return 0;
}
