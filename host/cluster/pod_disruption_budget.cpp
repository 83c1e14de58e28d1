#include "cluster/pod_disruption_budget.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include "cluster/json_field.hpp"

namespace schedhost::cluster {
namespace {

IntOrString int_or_string(const JsonField& field) {
  const nlohmann::json& value = field.json();
  if (value.is_string()) return IntOrString{value.get<std::string>()};
  if (value.is_number_integer()) return IntOrString{field.as_int()};
  field.fail(std::string("must be an integer or a percentage such as \"50%\", not ") +
             (value.is_number() ? value.dump() : json_type_name(value)) + ": fix its type");
}

}  // namespace

PodDisruptionBudget::PodDisruptionBudget(nlohmann::json object) : json_(std::move(object)) {
  const JsonField root(json_);
  if (!json_.is_object()) {
    root.fail("must be a mapping with metadata and spec: fix the PodDisruptionBudget");
  }
  std::optional<JsonField> metadata = root.member("metadata");
  if (metadata) {
    name_ = string_member(*metadata, "name");
    namespace_ = string_member(*metadata, "namespace");
  }
  if (name_.empty()) {
    if (metadata) metadata->fail("has no name: add a name under metadata");
    root.fail("has no metadata.name: add a name under metadata");
  }
  if (namespace_.empty()) namespace_ = "default";
  key_ = namespace_ + "/" + name_;

  if (auto spec = root.member("spec")) {
    if (auto selector = spec->member("selector")) {
      if (!selector->json().is_object()) {
        selector->fail(std::string("must be a label selector mapping (matchLabels, "
                                   "matchExpressions), not ") +
                       json_type_name(selector->json()) + ": fix its type");
      }
      selector_ = selector->json();
    }
    std::optional<JsonField> min_available = spec->member("minAvailable");
    std::optional<JsonField> max_unavailable = spec->member("maxUnavailable");
    if (min_available) min_available_ = int_or_string(*min_available);
    if (max_unavailable) max_unavailable_ = int_or_string(*max_unavailable);
    if (min_available && max_unavailable) {
      min_available->fail(
          "and spec.maxUnavailable cannot be both set (upstream validation refuses it): keep "
          "one of them");
    }
  }

  if (auto status = root.member("status")) {
    if (auto allowed = status->member("disruptionsAllowed")) {
      const int64_t value = allowed->as_int();
      if (value < 0) allowed->fail(allowed->json().dump() + " must not be negative: use 0 or more");
      if (value > std::numeric_limits<int32_t>::max()) {
        allowed->fail(allowed->json().dump() + " is too large: use at most 2147483647");
      }
      disruptions_allowed_ = static_cast<int32_t>(value);
    }
    if (auto disrupted = status->member("disruptedPods")) {
      for (const auto& member : disrupted->members())
        disrupted_pods_.push_back(member.first);
      std::sort(disrupted_pods_.begin(), disrupted_pods_.end());  // already is: kept for lookup
    }
  }
  // Plugins read the object through json_at: they see the namespace the cluster file implied.
  json_["metadata"]["namespace"] = namespace_;
}

std::optional<std::string_view> PodDisruptionBudget::json_at(std::string_view json_pointer) const {
  return json_cache_.get(json_, json_pointer);
}

bool PodDisruptionBudget::is_disrupted(std::string_view pod_name) const {
  return std::binary_search(disrupted_pods_.begin(), disrupted_pods_.end(), pod_name);
}

}  // namespace schedhost::cluster
