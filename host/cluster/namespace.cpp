#include "cluster/namespace.hpp"

#include <utility>

#include "cluster/json_field.hpp"

namespace schedhost::cluster {

Namespace::Namespace(nlohmann::json object) : json_(std::move(object)) {
  const JsonField root(json_);
  if (!json_.is_object()) root.fail("must be a mapping with metadata: fix the Namespace");
  if (auto metadata = root.member("metadata")) {
    name_ = string_member(*metadata, "name");
    if (auto labels = metadata->member("labels")) labels_ = labels->as_string_map();
  }
}

}  // namespace schedhost::cluster
