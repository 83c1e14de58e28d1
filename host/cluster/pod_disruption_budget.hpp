// A PodDisruptionBudget (policy/v1, or policy/v1beta1) as the scheduler sees it: what
// DefaultPreemption needs to count PDB violations of its victims (through the host API).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/json_pointer_cache.hpp"

namespace schedhost::cluster {

// Upstream's intstr.IntOrString, kept as given: 2 or "50%" (a percentage is not resolved here).
struct IntOrString {
  std::variant<int64_t, std::string> value;

  bool is_int() const { return std::holds_alternative<int64_t>(value); }
  int64_t int_value() const { return std::get<int64_t>(value); }                    // when is_int()
  const std::string& string_value() const { return std::get<std::string>(value); }  // otherwise

  friend bool operator==(const IntOrString&, const IntOrString&) = default;
};

// Immutable once built; shared by the Cluster and every Snapshot.
class PodDisruptionBudget {
 public:
  // Builds from the object exactly as `kubectl get -o yaml` prints it (as JSON). Throws
  // ObjectError naming the first field it cannot accept: no metadata.name, a field of the wrong
  // type, spec.selector not a mapping, both spec.minAvailable and spec.maxUnavailable (upstream
  // validation forbids that), a negative status.disruptionsAllowed.
  explicit PodDisruptionBudget(nlohmann::json object);

  const std::string& namespace_name() const { return namespace_; }  // "default" when unset
  const std::string& name() const { return name_; }
  const std::string& key() const { return key_; }  // "namespace/name"

  // spec.selector (a metav1.LabelSelector) as given, or null when absent. Not parsed: matching
  // belongs to the plugin. Upstream's preemption counts a PDB only for pods of its namespace,
  // and a nil or empty selector matches nothing there.
  const nlohmann::json& selector() const { return selector_; }
  const std::optional<IntOrString>& min_available() const { return min_available_; }
  const std::optional<IntOrString>& max_unavailable() const { return max_unavailable_; }

  // status.disruptionsAllowed (0 when unset): how many matching pods may still be evicted.
  int32_t disruptions_allowed() const { return disruptions_allowed_; }
  // The pod names of status.disruptedPods, sorted: evictions the API server already counted.
  const std::vector<std::string>& disrupted_pods() const { return disrupted_pods_; }
  bool is_disrupted(std::string_view pod_name) const;

  // The object as given, with metadata.namespace filled in.
  const nlohmann::json& json() const { return json_; }
  // Compact JSON at an RFC 6901 pointer, cached as Pod::json_at; nullopt when it names nothing.
  std::optional<std::string_view> json_at(std::string_view json_pointer) const;

 private:
  nlohmann::json json_;
  std::string namespace_;
  std::string name_;
  std::string key_;
  nlohmann::json selector_;
  std::optional<IntOrString> min_available_;
  std::optional<IntOrString> max_unavailable_;
  int32_t disruptions_allowed_ = 0;
  std::vector<std::string> disrupted_pods_;
  JsonPointerCache json_cache_;
};

}  // namespace schedhost::cluster
