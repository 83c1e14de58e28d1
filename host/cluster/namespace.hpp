// A Namespace as the scheduler sees it: its name, its labels (InterPodAffinity's
// namespaceSelector matches them) and the original JSON.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "cluster/string_map.hpp"

namespace schedhost::cluster {

// Immutable once built; shared by the Cluster and every Snapshot (shared_ptr<const Namespace>).
class Namespace {
 public:
  // Builds from the object exactly as `kubectl get -o yaml` prints it (as JSON). Throws
  // ObjectError naming the first field it cannot accept (e.g. metadata.labels not a mapping).
  explicit Namespace(nlohmann::json object);

  const std::string& name() const { return name_; }
  const StringMap& labels() const { return labels_; }
  const nlohmann::json& json() const { return json_; }

 private:
  nlohmann::json json_;
  std::string name_;
  StringMap labels_;
};

}  // namespace schedhost::cluster
