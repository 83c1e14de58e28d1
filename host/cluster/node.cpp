#include "cluster/node.hpp"

#include "cluster/json_field.hpp"

namespace schedhost::cluster {

Node::Node(nlohmann::json object)
    : Node(std::make_shared<const nlohmann::json>(std::move(object))) {}

Node::Node(std::shared_ptr<const nlohmann::json> object) : json_(std::move(object)) {
  read(json_.get());
}

Node::Node(const nlohmann::json& object, std::shared_ptr<const std::string> compact_text)
    : json_(KeptJson::text(std::move(compact_text))) {
  read(object);
}

void Node::read(const nlohmann::json& object) {
  const JsonField root(object);
  if (!object.is_object()) root.fail("must be a mapping with metadata and status: fix the Node");

  if (auto metadata = root.member("metadata")) {
    name_ = string_member(*metadata, "name");
    uid_ = string_member(*metadata, "uid");
    if (auto labels = metadata->member("labels")) labels_ = labels->as_string_map();
    if (auto annotations = metadata->member("annotations")) {
      annotations_ = annotations->as_string_map();
    }
  }
  if (uid_.empty()) uid_ = "uid-node-" + name_;

  if (auto spec = root.member("spec")) {
    if (auto unschedulable = spec->member("unschedulable")) {
      unschedulable_ = unschedulable->as_bool();
    }
    if (auto taints = spec->member("taints")) {
      for (const JsonField& taint : taints->items()) {
        taints_.push_back(Taint{string_member(taint, "key"), string_member(taint, "value"),
                                string_member(taint, "effect")});
      }
    }
  }

  if (auto status = root.member("status")) {
    auto resources = status->member("allocatable");
    if (!resources) resources = status->member("capacity");
    if (resources) {
      for (const auto& [name, value] : resources->members()) {
        allocatable_.set(name, resource_amount(name, value.as_quantity()));
      }
    }
    if (auto images = status->member("images")) {
      for (const JsonField& image : images->items()) {
        NodeImage entry;
        if (auto names = image.member("names")) {
          for (const JsonField& name : names->items())
            entry.names.push_back(name.as_string());
        }
        if (auto size = image.member("sizeBytes")) entry.size_bytes = size->as_int();
        images_.push_back(std::move(entry));
      }
    }
  }
}

}  // namespace schedhost::cluster
