// What NodeResourcesFit and NodeResourcesBalancedAllocation share, as upstream's noderesources
// package does (kube-scheduler v1.28): resource name classes, the resource-allocation scoring
// inputs, Go-style int64 arithmetic, and args reading and validation with upstream's
// field.Error messages. Header-only; each plugin library compiles its own copy.
#pragma once

#include <schedhost/k8s/validation.hpp>
#include <schedhost/plugin.hpp>

#include "resource_names.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedhost_noderesources {

// ---- Go int64 arithmetic: two's-complement wrap-around instead of C++ undefined behaviour ----

inline std::int64_t go_add(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}
inline std::int64_t go_sub(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}
inline std::int64_t go_mul(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
}
// Go's `/` on int64: truncates toward zero; MinInt64 / -1 is MinInt64. b must not be 0.
inline std::int64_t go_div(std::int64_t a, std::int64_t b) {
  if (b == -1) return go_sub(0, a);
  return a / b;
}

// ---- Resource names (k8s.io/kubernetes/pkg/apis/core/v1/helper, pkg/scheduler/util) ----

constexpr std::string_view kCpu = "cpu";
constexpr std::string_view kMemory = "memory";
constexpr std::string_view kEphemeralStorage = "ephemeral-storage";
constexpr std::string_view kPods = "pods";

inline bool is_hugepage_resource_name(std::string_view name) {
  return name.rfind("hugepages-", 0) == 0;
}
inline bool is_attachable_volume_resource_name(std::string_view name) {
  return name.rfind("attachable-volumes-", 0) == 0;
}
// schedutil.IsScalarResourceName: the resources NodeInfo keeps in ScalarResources.
inline bool is_scalar_resource_name(std::string_view name) {
  return is_extended_resource_name(name) || is_hugepage_resource_name(name) ||
         is_prefixed_native_resource(name) || is_attachable_volume_resource_name(name);
}

// How the scoring reads one configured resource from a node.
enum class ResourceKind {
  Cpu,               // allocatable cpu; requested (or non-zero requested) cpu
  Memory,            // allocatable memory; requested (or non-zero requested) memory
  EphemeralStorage,  // allocatable and requested ephemeral-storage
  Scalar,            // a scalar resource: skipped when the pod does not request it
  Unscored,          // anything else ("pods", "storage", unknown names): never scored
};

inline ResourceKind classify(std::string_view name) {
  if (name == kCpu) return ResourceKind::Cpu;
  if (name == kMemory) return ResourceKind::Memory;
  if (name == kEphemeralStorage) return ResourceKind::EphemeralStorage;
  if (is_scalar_resource_name(name)) return ResourceKind::Scalar;
  return ResourceKind::Unscored;
}

struct ResourceSpec {
  std::string name;
  std::int64_t weight = 0;
  ResourceKind kind = ResourceKind::Unscored;
};

// The pod's request for each configured resource, in the order of `resources`:
// pod.nonzero_request (cpu 100m / memory 200Mi per container missing them) when nonzero, the
// actual request otherwise (upstream calculatePodResourceRequestList, useRequested = !nonzero).
inline std::vector<std::int64_t> pod_requests(const schedhost::Pod& pod,
                                              const std::vector<ResourceSpec>& resources,
                                              bool nonzero) {
  std::vector<std::int64_t> out;
  out.reserve(resources.size());
  for (const ResourceSpec& r : resources) {
    out.push_back(nonzero ? pod.nonzero_request(r.name) : pod.request(r.name));
  }
  return out;
}

// upstream resourceAllocationScorer.calculateResourceAllocatableRequest: calls
// fn(index, allocatable, requested incl. the pod) for every configured resource that is scored on
// this node, in configuration order; a resource whose allocatable is 0, a scalar resource the pod
// does not request, and a name the scheduler does not account are skipped. use_requested: the
// node's actual requests for cpu and memory (BalancedAllocation) instead of its non-zero
// requests (Fit).
template <class Fn>
void for_each_scored_resource(const schedhost::NodeInfo& node,
                              const std::vector<ResourceSpec>& resources,
                              const std::vector<std::int64_t>& pod_request, bool use_requested,
                              Fn&& fn) {
  for (std::size_t i = 0; i < resources.size(); ++i) {
    const ResourceSpec& r = resources[i];
    const std::int64_t pod_req = pod_request[i];
    std::int64_t alloc = 0;
    std::int64_t req = 0;
    switch (r.kind) {
      case ResourceKind::Cpu:
      case ResourceKind::Memory:
        alloc = node.allocatable(r.name);
        if (alloc == 0) continue;
        req = go_add(use_requested ? node.requested(r.name) : node.nonzero_requested(r.name),
                     pod_req);
        break;
      case ResourceKind::EphemeralStorage:
        alloc = node.allocatable(r.name);
        if (alloc == 0) continue;
        req = go_add(node.requested(r.name), pod_req);
        break;
      case ResourceKind::Scalar:
        if (pod_req == 0) continue;
        alloc = node.allocatable(r.name);
        if (alloc == 0) continue;
        req = go_add(node.requested(r.name), pod_req);
        break;
      case ResourceKind::Unscored:
        continue;
    }
    fn(i, alloc, req);
  }
}

// ---- field.Error messages (k8s.io/apimachinery/pkg/util/validation/field) ----

// Go's strconv.Quote, the SDK's.
using schedhost::k8s::go_quote;

// A field.ErrorList, reported as ErrorList.ToAggregate().Error(): one message, or "[a, b]"
// when there are several (duplicates dropped).
class FieldErrors {
 public:
  void invalid(const std::string& path, const std::string& value, const std::string& detail) {
    add(path + ": Invalid value: " + value + (detail.empty() ? "" : ": " + detail));
  }
  void required(const std::string& path, const std::string& detail) {
    add(path + ": Required value: " + detail);
  }
  void duplicate(const std::string& path, const std::string& value) {
    add(path + ": Duplicate value: " + value);
  }
  void unsupported(const std::string& path, const std::string& value,
                   const std::vector<std::string>& supported) {
    std::string detail = "supported values: ";
    for (std::size_t i = 0; i < supported.size(); ++i) {
      if (i > 0) detail += ", ";
      detail += go_quote(supported[i]);
    }
    add(path + ": Unsupported value: " + value + ": " + detail);
  }
  bool empty() const { return messages_.empty(); }
  std::string message() const {
    if (messages_.size() == 1) return messages_.front();
    std::string out = "[";
    for (std::size_t i = 0; i < messages_.size(); ++i) {
      if (i > 0) out += ", ";
      out += messages_[i];
    }
    return out + "]";
  }
  // Throws std::invalid_argument with message() when there is any error.
  void throw_if_any() const {
    if (!empty()) throw std::invalid_argument(message());
  }

 private:
  void add(std::string message) {
    if (seen_.insert(message).second) messages_.push_back(std::move(message));
  }
  std::vector<std::string> messages_;
  std::set<std::string> seen_;
};

// ---- Strict args reading (the v1beta3 args types, decoded strictly as upstream does) ----

[[noreturn]] inline void refuse(const std::string& message) {
  throw std::invalid_argument(message);
}

inline std::string join_path(const std::string& parent, const std::string& child) {
  return parent.empty() ? child : parent + "." + child;
}

// Refuses a field that is not one of `known` (the host has removed "apiVersion" and "kind").
inline void check_fields(const nlohmann::json& object, const std::string& path,
                         std::initializer_list<std::string_view> known) {
  for (const auto& item : object.items()) {
    const std::string& key = item.key();
    bool found = false;
    for (std::string_view k : known)
      found = found || key == k;
    if (!found) {
      refuse("strict decoding error: unknown field " + go_quote(join_path(path, key)));
    }
  }
}

// The member `key` of object, or nullptr when it is absent or null (null counts as not set).
inline const nlohmann::json* member(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

inline const nlohmann::json& expect_object(const nlohmann::json& value, const std::string& path) {
  if (!value.is_object()) refuse(path + ": must be an object, got " + value.dump());
  return value;
}

inline const nlohmann::json& expect_array(const nlohmann::json& value, const std::string& path) {
  if (!value.is_array()) refuse(path + ": must be a list, got " + value.dump());
  return value;
}

inline std::string expect_string(const nlohmann::json& value, const std::string& path) {
  if (!value.is_string()) refuse(path + ": must be a string, got " + value.dump());
  return value.get<std::string>();
}

// An integer that fits [min, max] (the Go field's type: int32 or int64).
inline std::int64_t expect_integer(const nlohmann::json& value, const std::string& path,
                                   std::int64_t min, std::int64_t max) {
  bool in_range = false;
  if (value.is_number_unsigned()) {
    in_range = value.get<std::uint64_t>() <= static_cast<std::uint64_t>(max);
  } else if (value.is_number_integer()) {
    const auto v = value.get<std::int64_t>();
    in_range = v >= min && v <= max;
  } else {
    refuse(path + ": must be an integer, got " + value.dump());
  }
  if (!in_range) refuse(path + ": " + value.dump() + " does not fit its integer type");
  return value.get<std::int64_t>();
}

// A list of {name, weight} (v1beta3 ResourceSpec, weight int64), defaulted as upstream: an empty
// or absent list is cpu and memory with weight 1, and a weight of 0 becomes 1.
inline std::vector<ResourceSpec> read_resources(const nlohmann::json* list,
                                                const std::string& path) {
  std::vector<ResourceSpec> out;
  if (list != nullptr) {
    expect_array(*list, path);
    for (std::size_t i = 0; i < list->size(); ++i) {
      const std::string item_path = path + "[" + std::to_string(i) + "]";
      const nlohmann::json& item = expect_object((*list)[i], item_path);
      check_fields(item, item_path, {"name", "weight"});
      ResourceSpec spec;
      if (const auto* name = member(item, "name"))
        spec.name = expect_string(*name, item_path + ".name");
      if (const auto* weight = member(item, "weight")) {
        spec.weight =
            expect_integer(*weight, item_path + ".weight", std::numeric_limits<std::int64_t>::min(),
                           std::numeric_limits<std::int64_t>::max());
      }
      out.push_back(std::move(spec));
    }
  }
  if (out.empty()) {
    out.push_back({std::string(kCpu), 1, ResourceKind::Cpu});
    out.push_back({std::string(kMemory), 1, ResourceKind::Memory});
  }
  for (ResourceSpec& spec : out) {
    if (spec.weight == 0) spec.weight = 1;
    spec.kind = classify(spec.name);
  }
  return out;
}

}  // namespace schedhost_noderesources
