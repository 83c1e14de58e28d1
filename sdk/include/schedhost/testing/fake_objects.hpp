// schedhost/testing/fake_objects.hpp - pods and nodes for unit tests, built in a few chained calls:
//
//   FakeNode("node-a").label("pool", "batch").allocatable("cpu", "4").allocatable("memory", "8Gi")
//       .pod(FakePod("running").request("cpu", "1"));
//   FakePod("web-1", "prod").label("app", "web").request("cpu", "500m");
//
// What a plugin reads through the host API comes from these fields, in the ABI's units (see
// quantity.hpp). A field the typed setters do not cover is set as JSON by RFC 6901 pointer
// (json("/spec/affinity", {...})) and read by the plugin with pod_json / node_json. The derived
// data the host computes (non-zero requests, a node's requested resources, used ports, pods with
// affinity) is computed the same way here.
#pragma once

#include <schedhost/abi.h>
#include <schedhost/testing/quantity.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace schedhost::testing {

using StringMap = std::map<std::string, std::string, std::less<>>;  // byte order, as the host
using ResourceMap = std::map<std::string, std::int64_t, std::less<>>;

struct FakeToleration {
  std::string key, op = "Equal", value, effect;
  std::optional<std::int64_t> toleration_seconds;
};

struct FakeHostPort {
  std::int32_t port = 0;
  std::string protocol = "TCP";
  std::string host_ip = "0.0.0.0";
  bool operator<(const FakeHostPort& o) const {
    return std::tie(host_ip, protocol, port) < std::tie(o.host_ip, o.protocol, o.port);
  }
  bool operator==(const FakeHostPort& o) const {
    return port == o.port && protocol == o.protocol && host_ip == o.host_ip;
  }
};

struct FakeContainer {
  std::string name, image;
  schedhost_container_kind_t kind = SCHEDHOST_CONTAINER_REGULAR;
};

struct FakeTaint {
  std::string key, value, effect;
};

struct FakeImage {
  std::string name;
  std::int64_t size_bytes = 0;
  std::int32_t num_nodes = 1;  // set by FakeHost over its snapshot
};

namespace detail {

// Serialized JSON by pointer, computed on first use and kept (views must outlive the call).
class JsonCache {
 public:
  const std::string* at(const nlohmann::json& object, std::string_view pointer) const {
    const auto it = cache_.find(pointer);
    if (it != cache_.end()) return &it->second;
    try {
      const nlohmann::json::json_pointer ptr{std::string(pointer)};
      if (!object.contains(ptr)) return nullptr;
      return &cache_.emplace(std::string(pointer), object.at(ptr).dump()).first->second;
    } catch (const nlohmann::json::exception&) {
      return nullptr;  // a malformed pointer names nothing
    }
  }
  void clear() { cache_.clear(); }

 private:
  mutable std::map<std::string, std::string, std::less<>> cache_;
};

}  // namespace detail

// A Pod. Defaults: uid "<namespace>/<name>", schedulerName "default-scheduler", preemptionPolicy
// "PreemptLowerPriority", generation 1, no requests (non-zero requests: cpu 100m, memory 200Mi).
class FakePod {
 public:
  explicit FakePod(std::string name, std::string namespace_name = "default")
      : name_(std::move(name)), namespace_(std::move(namespace_name)) {
    uid_ = namespace_ + "/" + name_;
  }

  // -- setters, chained --
  FakePod& uid(std::string v) { return set(uid_, std::move(v)); }
  FakePod& node_name(std::string v) { return set(node_name_, std::move(v)); }
  FakePod& scheduler_name(std::string v) { return set(scheduler_name_, std::move(v)); }
  FakePod& priority_class_name(std::string v) { return set(priority_class_name_, std::move(v)); }
  FakePod& nominated_node_name(std::string v) { return set(nominated_node_name_, std::move(v)); }
  FakePod& preemption_policy(std::string v) { return set(preemption_policy_, std::move(v)); }
  FakePod& priority(std::int32_t v) { return set(priority_, v); }
  FakePod& start_time_ms(std::int64_t v) { return set(start_time_ms_, v); }
  FakePod& creation_time_ms(std::int64_t v) { return set(creation_time_ms_, v); }
  FakePod& terminating(bool v = true) { return set(terminating_, v); }
  FakePod& generation(std::int64_t v) { return set(generation_, v); }
  FakePod& label(std::string k, std::string v) { return put(labels_, std::move(k), std::move(v)); }
  FakePod& annotation(std::string k, std::string v) {
    return put(annotations_, std::move(k), std::move(v));
  }
  FakePod& node_selector(std::string k, std::string v) {
    return put(node_selector_, std::move(k), std::move(v));
  }
  // The pod's effective request: cpu in millicores, others in base units; or a quantity string.
  FakePod& request(const std::string& resource, std::int64_t value) {
    requests_[resource] = value;
    return *this;
  }
  FakePod& request(const std::string& resource, std::string_view q) {
    return request(resource, quantity(resource, q));
  }
  // Overrides the request scoring sees (default: the request, cpu 100m / memory 200Mi if unset).
  FakePod& nonzero_request(const std::string& resource, std::int64_t value) {
    nonzero_overrides_[resource] = value;
    return *this;
  }
  FakePod& toleration(FakeToleration t) {
    tolerations_.push_back(std::move(t));
    return *this;
  }
  FakePod& host_port(std::int32_t port, std::string protocol = "TCP",
                     std::string host_ip = "0.0.0.0") {
    host_ports_.push_back({port, std::move(protocol), std::move(host_ip)});
    return *this;
  }
  FakePod& container(std::string name, std::string image,
                     schedhost_container_kind_t kind = SCHEDHOST_CONTAINER_REGULAR) {
    containers_.push_back({std::move(name), std::move(image), kind});
    return *this;
  }
  // Any other field of the Pod object, by JSON pointer ("/spec/affinity").
  FakePod& json(const std::string& pointer, nlohmann::json value) {
    patches_.emplace_back(pointer, std::move(value));
    return *this;
  }

  // -- what the host API reads --
  const std::string& name() const { return name_; }
  const std::string& namespace_name() const { return namespace_; }
  const std::string& uid() const { return uid_; }
  const std::string& node_name() const { return node_name_; }
  const std::string& scheduler_name() const { return scheduler_name_; }
  const std::string& priority_class_name() const { return priority_class_name_; }
  const std::string& nominated_node_name() const { return nominated_node_name_; }
  const std::string& preemption_policy() const { return preemption_policy_; }
  std::int32_t priority() const { return priority_; }
  std::int64_t start_time_ms() const { return start_time_ms_; }
  std::int64_t creation_time_ms() const { return creation_time_ms_; }
  bool terminating() const { return terminating_; }
  std::int64_t generation() const { return generation_; }
  const StringMap& labels() const { return labels_; }
  const StringMap& annotations() const { return annotations_; }
  const StringMap& node_selector() const { return node_selector_; }
  const ResourceMap& requests() const { return requests_; }
  ResourceMap nonzero_requests() const {
    ResourceMap out = requests_;
    out.try_emplace("cpu", 100);  // upstream's DefaultMilliCPURequest
    out.try_emplace("memory", std::int64_t{200} * 1024 * 1024);  // DefaultMemoryRequest
    for (const auto& [k, v] : nonzero_overrides_)
      out[k] = v;
    return out;
  }
  const std::vector<FakeToleration>& tolerations() const { return tolerations_; }
  const std::vector<FakeHostPort>& host_ports() const { return host_ports_; }
  const std::vector<FakeContainer>& containers() const { return containers_; }

  // The Pod object: the typed fields in kubectl's shape, then every json() patch.
  nlohmann::json object() const {
    nlohmann::json pod = {{"apiVersion", "v1"},
                          {"kind", "Pod"},
                          {"metadata", {{"name", name_}, {"namespace", namespace_}, {"uid", uid_}}},
                          {"spec", {{"schedulerName", scheduler_name_}}}};
    if (!labels_.empty()) pod["metadata"]["labels"] = labels_;
    if (!annotations_.empty()) pod["metadata"]["annotations"] = annotations_;
    if (!node_name_.empty()) pod["spec"]["nodeName"] = node_name_;
    if (!node_selector_.empty()) pod["spec"]["nodeSelector"] = node_selector_;
    if (priority_ != 0) pod["spec"]["priority"] = priority_;
    if (!priority_class_name_.empty()) pod["spec"]["priorityClassName"] = priority_class_name_;
    nlohmann::json containers = nlohmann::json::array();
    for (const FakeContainer& c : containers_)
      containers.push_back({{"name", c.name}, {"image", c.image}});
    pod["spec"]["containers"] = containers;
    for (const auto& [pointer, value] : patches_)
      pod[nlohmann::json::json_pointer(pointer)] = value;
    return pod;
  }
  // Whether the pod has (anti-)affinity terms, as the host's pods-with-affinity lists see it.
  bool has_affinity() const {
    return has_term("/spec/affinity/podAffinity") || has_anti_affinity();
  }
  bool has_anti_affinity() const { return has_term("/spec/affinity/podAntiAffinity"); }
  bool has_required_anti_affinity() const {
    return has_term(
        "/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution");
  }

 private:
  template <class T, class V>
  FakePod& set(T& field, V&& value) {
    field = std::forward<V>(value);
    return *this;
  }
  FakePod& put(StringMap& map, std::string k, std::string v) {
    map[std::move(k)] = std::move(v);
    return *this;
  }
  bool has_term(const std::string& pointer) const {
    if (patches_.empty()) return false;  // only json() patches can add affinity terms
    const nlohmann::json o = object();
    const nlohmann::json::json_pointer ptr(pointer);
    return o.contains(ptr) && !o.at(ptr).empty();
  }

  std::string name_, namespace_, uid_, node_name_;
  std::string scheduler_name_ = "default-scheduler";
  std::string priority_class_name_, nominated_node_name_;
  std::string preemption_policy_ = "PreemptLowerPriority";
  std::int32_t priority_ = 0;
  std::int64_t start_time_ms_ = 0, creation_time_ms_ = 0, generation_ = 1;
  bool terminating_ = false;
  StringMap labels_, annotations_, node_selector_;
  ResourceMap requests_, nonzero_overrides_;
  std::vector<FakeToleration> tolerations_;
  std::vector<FakeHostPort> host_ports_;
  std::vector<FakeContainer> containers_;
  std::vector<std::pair<std::string, nlohmann::json>> patches_;
};

// A NodeInfo: the Node and the pods running on it. Defaults: uid "uid-<name>", nothing
// allocatable, generation 1.
class FakeNode {
 public:
  explicit FakeNode(std::string name) : name_(std::move(name)), uid_("uid-" + name_) {}

  FakeNode& uid(std::string v) { return set(uid_, std::move(v)); }
  FakeNode& unschedulable(bool v = true) { return set(unschedulable_, v); }
  FakeNode& generation(std::int64_t v) { return set(generation_, v); }
  FakeNode& label(std::string k, std::string v) {
    labels_[std::move(k)] = std::move(v);
    return *this;
  }
  FakeNode& annotation(std::string k, std::string v) {
    annotations_[std::move(k)] = std::move(v);
    return *this;
  }
  // status.allocatable: cpu in millicores, others in base units; or a quantity string.
  FakeNode& allocatable(const std::string& resource, std::int64_t value) {
    allocatable_[resource] = value;
    return *this;
  }
  FakeNode& allocatable(const std::string& resource, std::string_view q) {
    return allocatable(resource, quantity(resource, q));
  }
  FakeNode& taint(std::string key, std::string value, std::string effect) {
    taints_.push_back({std::move(key), std::move(value), std::move(effect)});
    return *this;
  }
  FakeNode& image(std::string name, std::int64_t size_bytes) {
    images_.push_back({std::move(name), size_bytes, 1});
    return *this;
  }
  // A pod running on this node: it counts in requested() and used_ports().
  FakeNode& pod(FakePod p) {
    p.node_name(name_);
    pods_.push_back(std::move(p));
    return *this;
  }
  FakeNode& json(const std::string& pointer, nlohmann::json value) {
    patches_.emplace_back(pointer, std::move(value));
    return *this;
  }

  const std::string& name() const { return name_; }
  const std::string& uid() const { return uid_; }
  bool unschedulable() const { return unschedulable_; }
  std::int64_t generation() const { return generation_; }
  const StringMap& labels() const { return labels_; }
  const StringMap& annotations() const { return annotations_; }
  const ResourceMap& allocatable() const { return allocatable_; }
  const std::vector<FakeTaint>& taints() const { return taints_; }
  const std::vector<FakeImage>& images() const { return images_; }
  std::vector<FakeImage>& images() { return images_; }
  const std::vector<FakePod>& pods() const { return pods_; }
  // The sum of the pods' requests ("pods" left out, zeros dropped), as the host's NodeInfo.
  ResourceMap requested() const {
    ResourceMap out;
    for (const FakePod& p : pods_) {
      for (const auto& [k, v] : p.requests()) {
        if (k != "pods") out[k] += v;
      }
    }
    return drop_zeros(out);
  }
  ResourceMap nonzero_requested() const {
    ResourceMap out;
    for (const FakePod& p : pods_) {
      const ResourceMap nz = p.nonzero_requests();
      out["cpu"] += nz.at("cpu");
      out["memory"] += nz.at("memory");
    }
    return drop_zeros(out);
  }
  std::vector<FakeHostPort> used_ports() const {
    std::vector<FakeHostPort> out;
    for (const FakePod& p : pods_)
      out.insert(out.end(), p.host_ports().begin(), p.host_ports().end());
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }
  nlohmann::json object() const {
    nlohmann::json node = {{"apiVersion", "v1"},
                           {"kind", "Node"},
                           {"metadata", {{"name", name_}, {"uid", uid_}}},
                           {"spec", nlohmann::json::object()},
                           {"status", {{"allocatable", nlohmann::json::object()}}}};
    if (!labels_.empty()) node["metadata"]["labels"] = labels_;
    if (!annotations_.empty()) node["metadata"]["annotations"] = annotations_;
    if (unschedulable_) node["spec"]["unschedulable"] = true;
    for (const auto& [k, v] : allocatable_) {
      node["status"]["allocatable"][k] = k == "cpu" ? std::to_string(v) + "m" : std::to_string(v);
    }
    for (const auto& [pointer, value] : patches_)
      node[nlohmann::json::json_pointer(pointer)] = value;
    return node;
  }

 private:
  template <class T, class V>
  FakeNode& set(T& field, V&& value) {
    field = std::forward<V>(value);
    return *this;
  }
  static ResourceMap drop_zeros(ResourceMap m) {
    for (auto it = m.begin(); it != m.end();)
      it = it->second == 0 ? m.erase(it) : std::next(it);
    return m;
  }

  std::string name_, uid_;
  bool unschedulable_ = false;
  std::int64_t generation_ = 1;
  StringMap labels_, annotations_;
  ResourceMap allocatable_;
  std::vector<FakeTaint> taints_;
  std::vector<FakeImage> images_;
  std::vector<FakePod> pods_;
  std::vector<std::pair<std::string, nlohmann::json>> patches_;
};

}  // namespace schedhost::testing
