// libFuzzer target: the JSON-pointer accessor plugins call from many threads (Pod::json_at and
// the cache under it). Input: the pointer, a newline, then the JSON object it is applied to.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "cluster/compact_json.hpp"
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
  // What serve's Pods read instead: the same value found in the object's compact text.
  const std::string text = object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  const nlohmann::json reread = nlohmann::json::parse(text);
  auto expected = cache.get(reread, pointer);
  auto found = schedhost::cluster::compact_json_at(text, pointer);
  if (found.has_value() != expected.has_value() || (found && *found != *expected)) {
    schedhost::fuzz::finding("compact_json_at differs from the tree");
  }
  // The same after a lookup of the whole text has recorded where its containers end.
  schedhost::cluster::ContainerEnds ends;
  schedhost::cluster::compact_json_at(text, "", &ends);
  auto skipped = schedhost::cluster::compact_json_at(text, pointer, &ends);
  if (skipped.has_value() != expected.has_value() || (skipped && *skipped != *expected)) {
    schedhost::fuzz::finding("compact_json_at over recorded ends differs from the tree");
  }
  // And on bytes that are not JSON at all: a view inside them or nothing.
  schedhost::cluster::ContainerEnds raw_ends;
  for (schedhost::cluster::ContainerEnds* kept :
       {&raw_ends, &raw_ends, static_cast<schedhost::cluster::ContainerEnds*>(nullptr)}) {
    if (auto raw = schedhost::cluster::compact_json_at(document, pointer, kept)) {
      if (raw->data() < document.data() ||
          raw->data() + raw->size() > document.data() + document.size()) {
        schedhost::fuzz::finding("compact_json_at read outside its text");
      }
    }
  }
  return 0;
}
