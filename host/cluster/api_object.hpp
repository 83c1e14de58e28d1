// An object of a kind the scheduler reads but does not type field by field (a PersistentVolume,
// a StorageClass, a Service...): its names, labels and annotations, and any field as JSON, which
// is how plugins read it (ABI 1.8's object_* functions).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "cluster/json_pointer_cache.hpp"
#include "cluster/string_map.hpp"

namespace schedhost::cluster {

struct ObjectKind;

// Immutable once built; shared by the Cluster, every Snapshot and the live cache.
class ApiObject {
 public:
  // Builds from the object as `kubectl get -o json` prints it, after kind.check validated the
  // fields plugins read. Throws ObjectError naming the first field it cannot accept. A namespaced
  // kind without metadata.namespace is in "default" (written into the JSON, as the API server
  // would); a cluster-scoped kind has namespace "".
  ApiObject(const ObjectKind& kind, nlohmann::json object);

  const ObjectKind& kind() const { return *kind_; }
  // The name lookups take ("PersistentVolume", "storage.k8s.io/StorageClass").
  std::string_view resource() const;
  const std::string& namespace_name() const { return namespace_; }
  const std::string& name() const { return name_; }
  // "namespace/name", or "name" for a cluster-scoped kind (client-go's store key).
  const std::string& key() const { return key_; }
  const std::string& uid() const { return uid_; }
  const std::string& resource_version() const { return resource_version_; }
  const StringMap& labels() const { return labels_; }
  const StringMap& annotations() const { return annotations_; }

  const nlohmann::json& json() const { return json_; }
  // Compact JSON at an RFC 6901 pointer, cached as Pod::json_at; nullopt when it names nothing.
  std::optional<std::string_view> json_at(std::string_view json_pointer) const {
    return json_cache_.get(json_, json_pointer);
  }

 private:
  const ObjectKind* kind_;
  nlohmann::json json_;
  std::string namespace_;
  std::string name_;
  std::string key_;
  std::string uid_;
  std::string resource_version_;
  StringMap labels_;
  StringMap annotations_;
  JsonPointerCache json_cache_;
};

}  // namespace schedhost::cluster
