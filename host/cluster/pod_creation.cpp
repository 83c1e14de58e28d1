#include "cluster/pod_creation.hpp"

#include <string>

namespace schedhost::cluster {
namespace {

using nlohmann::json;

json* object_member(json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() || !it->is_object() ? nullptr : &*it;
}

json* array_member(json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() || !it->is_array() ? nullptr : &*it;
}

void merge_keys(json& selector, const json& term, const char* keys_field, const char* op,
                const json& labels) {
  auto keys = term.find(keys_field);
  if (keys == term.end() || !keys->is_array()) return;
  for (const json& key : *keys) {
    if (!key.is_string()) continue;
    auto value = labels.find(key.get<std::string>());
    if (value == labels.end() || !value->is_string()) continue;
    const json requirement = {{"key", key}, {"operator", op}, {"values", json::array({*value})}};
    json& expressions = selector["matchExpressions"];
    if (expressions.is_null()) expressions = json::array();
    if (!expressions.is_array()) return;
    bool present = false;
    for (const json& e : expressions)
      present = present || e == requirement;
    if (!present) expressions.push_back(requirement);
  }
}

void merge_term(json& term, const json& labels) {
  json* selector = object_member(term, "labelSelector");
  if (selector == nullptr) return;  // nil: matches nothing, nothing to merge into
  merge_keys(*selector, term, "matchLabelKeys", "In", labels);
  merge_keys(*selector, term, "mismatchLabelKeys", "NotIn", labels);
}

}  // namespace

void merge_affinity_label_keys(json& pod) {
  json* spec = object_member(pod, "spec");
  json* affinity = spec == nullptr ? nullptr : object_member(*spec, "affinity");
  if (affinity == nullptr) return;
  static const json kNoLabels = json::object();
  json* metadata = object_member(pod, "metadata");
  const json* labels = metadata == nullptr ? nullptr : object_member(*metadata, "labels");
  const json& pod_labels = labels == nullptr ? kNoLabels : *labels;
  for (const char* kind : {"podAffinity", "podAntiAffinity"}) {
    json* rules = object_member(*affinity, kind);
    if (rules == nullptr) continue;
    if (json* required = array_member(*rules, "requiredDuringSchedulingIgnoredDuringExecution")) {
      for (json& term : *required)
        merge_term(term, pod_labels);
    }
    if (json* preferred = array_member(*rules, "preferredDuringSchedulingIgnoredDuringExecution")) {
      for (json& weighted : *preferred) {
        if (json* term = object_member(weighted, "podAffinityTerm")) merge_term(*term, pod_labels);
      }
    }
  }
}

}  // namespace schedhost::cluster
