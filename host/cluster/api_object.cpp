#include "cluster/api_object.hpp"

#include <utility>

#include "cluster/json_field.hpp"
#include "cluster/object_kinds.hpp"

namespace schedhost::cluster {

ApiObject::ApiObject(const ObjectKind& kind, nlohmann::json object)
    : kind_(&kind), json_(std::move(object)) {
  const JsonField root(json_);
  if (!json_.is_object()) {
    root.fail("must be a mapping with metadata: fix the " + std::string(kind.kind));
  }
  if (auto metadata = root.member("metadata")) {
    name_ = string_member(*metadata, "name");
    namespace_ = string_member(*metadata, "namespace");
    uid_ = string_member(*metadata, "uid");
    resource_version_ = string_member(*metadata, "resourceVersion");
    if (auto labels = metadata->member("labels")) labels_ = labels->as_string_map();
    if (auto annotations = metadata->member("annotations")) {
      annotations_ = annotations->as_string_map();
    }
  }
  kind.check(root);
  if (kind.defaults != nullptr) kind.defaults(json_);
  if (!kind.namespaced) {
    namespace_.clear();  // a cluster-scoped object has none, whatever a file says
    key_ = name_;
  } else {
    if (namespace_.empty()) {
      namespace_ = "default";
      json_["metadata"]["namespace"] = namespace_;
    }
    key_ = namespace_ + "/" + name_;
  }
}

std::string_view ApiObject::resource() const {
  return kind_->resource;
}

}  // namespace schedhost::cluster
