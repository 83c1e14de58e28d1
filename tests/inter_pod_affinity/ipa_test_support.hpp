// Builders for the InterPodAffinity tests: pods with namespaces, labels and pod (anti-)affinity,
// labelled nodes, snapshots with Namespace objects.
#pragma once

#include <schedhost/abi.h>
#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cluster/namespace.hpp"
#include "cluster/node.hpp"
#include "cluster/pod.hpp"
#include "cluster/snapshot.hpp"
#include "default_plugins/hook_runner.hpp"

namespace schedhost::testing::ipa {

using Labels = std::map<std::string, std::string>;

inline constexpr schedhost_code_t kSuccess = SCHEDHOST_SUCCESS;
inline constexpr schedhost_code_t kError = SCHEDHOST_ERROR;
inline constexpr schedhost_code_t kU = SCHEDHOST_UNSCHEDULABLE;
inline constexpr schedhost_code_t kUU = SCHEDHOST_UNSCHEDULABLE_AND_UNRESOLVABLE;
inline constexpr schedhost_code_t kSkip = SCHEDHOST_SKIP;
inline constexpr const char* kReasonAffinity = "node(s) didn't match pod affinity rules";
inline constexpr const char* kReasonAnti = "node(s) didn't match pod anti-affinity rules";
inline constexpr const char* kReasonExisting =
    "node(s) didn't satisfy existing pods anti-affinity rules";

// {"matchExpressions": [{key, op, values}]}
inline Json expr(const std::string& key, const std::string& op,
                 const std::vector<std::string>& values = {}) {
  Json e = {{"key", key}, {"operator", op}};
  if (!values.empty()) e["values"] = values;
  return e;
}
inline Json selector(std::vector<Json> exprs) {
  return {{"matchExpressions", exprs}};
}
inline Json in(const std::string& key, const std::vector<std::string>& values) {
  return selector({expr(key, "In", values)});
}

// A PodAffinityTerm; extra may add namespaces / namespaceSelector.
inline Json term(Json label_selector, const std::string& topology_key,
                 Json extra = Json::object()) {
  Json t = extra;
  if (!label_selector.is_null()) t["labelSelector"] = std::move(label_selector);
  t["topologyKey"] = topology_key;
  return t;
}
inline Json weighted(int weight, Json t) {
  return {{"weight", weight}, {"podAffinityTerm", std::move(t)}};
}

// spec.affinity with the four lists (empty ones left out).
struct Affinity {
  std::vector<Json> required = {};
  std::vector<Json> required_anti = {};
  std::vector<Json> preferred = {};
  std::vector<Json> preferred_anti = {};

  Json json() const {
    Json a = Json::object();
    if (!required.empty())
      a["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = required;
    if (!preferred.empty()) {
      a["podAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] = preferred;
    }
    if (!required_anti.empty()) {
      a["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = required_anti;
    }
    if (!preferred_anti.empty()) {
      a["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] = preferred_anti;
    }
    return a;
  }
};

// A pod in namespace ns ("" as upstream's unit tests), bound to node when it is not empty.
inline std::shared_ptr<const cluster::Pod> pod(const std::string& name, const Labels& labels,
                                               const Affinity& affinity = {},
                                               const std::string& node = "",
                                               const std::string& ns = "") {
  Json spec = {{"containers", Json::array({{{"name", "c"}, {"image", "busybox"}}})}};
  const Json a = affinity.json();
  if (!a.empty()) spec["affinity"] = a;
  if (!node.empty()) spec["nodeName"] = node;
  Json metadata = {{"name", name}, {"namespace", ns}, {"uid", "uid-" + ns + "-" + name}};
  if (!labels.empty()) metadata["labels"] = labels;
  Json p = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", metadata}, {"spec", spec}};
  return std::make_shared<const cluster::Pod>(std::move(p), "");
}

inline std::shared_ptr<const cluster::Node> node(const std::string& name, const Labels& labels) {
  return node_with(name, Json(labels));
}

inline std::shared_ptr<const cluster::Namespace> ns(const std::string& name,
                                                    const Labels& labels = {}) {
  Json metadata = {{"name", name}};
  if (!labels.empty()) metadata["labels"] = labels;
  return std::make_shared<const cluster::Namespace>(
      Json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", metadata}});
}

inline cluster::Snapshot snapshot(
    const std::vector<std::shared_ptr<const cluster::Node>>& nodes,
    const std::vector<std::shared_ptr<const cluster::Pod>>& pods,
    const std::vector<std::shared_ptr<const cluster::Namespace>>& namespaces = {}) {
  cluster::Snapshot s(nodes, pods);
  s.set_namespaces(namespaces);
  return s;
}

}  // namespace schedhost::testing::ipa
