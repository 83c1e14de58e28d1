#include "kube/json_parse.hpp"

#include <simdjson.h>

#include <cstdint>
#include <memory>
#include <string>

namespace schedhost::kube {
namespace {

// A thread's parser keeps buffers sized for the largest text it parsed: watch events are a few
// KB; a list page of a megabyte gets a parser of its own, freed after.
constexpr std::size_t kKeptParserBytes = std::size_t{64} * 1024;

nlohmann::json tree_of(simdjson::dom::element e) {
  using simdjson::dom::element_type;
  switch (e.type()) {
    case element_type::OBJECT: {
      nlohmann::json out(nlohmann::json::value_t::object);
      auto& members = *out.get_ptr<nlohmann::json::object_t*>();
      // A repeated key keeps its last value, as nlohmann's parser does.
      for (const auto field : simdjson::dom::object(e))
        members.insert_or_assign(std::string(field.key), tree_of(field.value));
      return out;
    }
    case element_type::ARRAY: {
      nlohmann::json out(nlohmann::json::value_t::array);
      auto& items = *out.get_ptr<nlohmann::json::array_t*>();
      for (const auto item : simdjson::dom::array(e))
        items.push_back(tree_of(item));
      return out;
    }
    case element_type::STRING:
      return std::string(std::string_view(e));
    case element_type::INT64: {
      const std::int64_t v = std::int64_t(e);
      if (v >= 0) return static_cast<std::uint64_t>(v);
      return v;
    }
    case element_type::UINT64:
      return std::uint64_t(e);
    case element_type::DOUBLE:
      return double(e);
    case element_type::BOOL:
      return bool(e);
    case element_type::NULL_VALUE:
      return nullptr;
  }
  return nullptr;
}

}  // namespace

nlohmann::json parse_json(std::string_view text) {
  thread_local simdjson::dom::parser kept;
  std::unique_ptr<simdjson::dom::parser> large;
  simdjson::dom::parser* parser = &kept;
  if (text.size() > kKeptParserBytes) {
    large = std::make_unique<simdjson::dom::parser>();
    parser = large.get();
  }
  simdjson::dom::element root;
  if (parser->parse(text.data(), text.size(), /*realloc_if_needed=*/true).get(root) !=
      simdjson::SUCCESS) {
    return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  }
  return tree_of(root);
}

}  // namespace schedhost::kube
