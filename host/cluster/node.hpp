// A Node as the scheduler sees it: typed hot fields and the original JSON.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/json_pointer_cache.hpp"
#include "cluster/kept_json.hpp"
#include "cluster/resource_list.hpp"
#include "cluster/string_map.hpp"

namespace schedhost::cluster {

struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, PreferNoSchedule or NoExecute

  bool operator==(const Taint&) const = default;
};

// One entry of status.images: an image may be known under several names (tag and digest).
struct NodeImage {
  std::vector<std::string> names;
  int64_t size_bytes = 0;

  bool operator==(const NodeImage&) const = default;
};

// Immutable once built; shared by every NodeInfo and clone (shared_ptr<const Node>).
class Node {
 public:
  // Builds from the object exactly as `kubectl get -o yaml` prints it (as JSON). Throws
  // ObjectError naming the first field it cannot accept.
  explicit Node(nlohmann::json object);
  // The same from an object already shared (an informer's): it is kept, not copied.
  explicit Node(std::shared_ptr<const nlohmann::json> object);
  // The same from `object`, keeping only its compact text (as Pod's constructor of that form).
  Node(const nlohmann::json& object, std::shared_ptr<const std::string> compact_text);

  const std::string& name() const { return name_; }
  // metadata.uid, or "uid-node-<name>" when unset.
  const std::string& uid() const { return uid_; }
  bool unschedulable() const { return unschedulable_; }
  const StringMap& labels() const { return labels_; }
  const StringMap& annotations() const { return annotations_; }
  // status.allocatable, or status.capacity when allocatable is absent (a hand-written node
  // often lists only one of them; the kubelet reports both). Includes "pods".
  const ResourceList& allocatable() const { return allocatable_; }
  const std::vector<Taint>& taints() const { return taints_; }
  const std::vector<NodeImage>& images() const { return images_; }

  // As Pod's json(), json_tree() and json_at().
  const nlohmann::json& json() const { return json_.get(); }
  std::shared_ptr<const nlohmann::json> json_tree() const { return json_.tree(); }
  std::optional<std::string_view> json_at(std::string_view json_pointer) const {
    return json_.at(json_pointer, json_cache_);
  }

 private:
  void read(const nlohmann::json& object);

  KeptJson json_;  // as Pod's
  std::string name_;
  std::string uid_;
  bool unschedulable_ = false;
  StringMap labels_;
  StringMap annotations_;
  ResourceList allocatable_;
  std::vector<Taint> taints_;
  std::vector<NodeImage> images_;
  JsonPointerCache json_cache_;
};

}  // namespace schedhost::cluster
