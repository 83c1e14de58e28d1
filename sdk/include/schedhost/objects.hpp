// schedhost/objects.hpp - typed, zero-copy views of the host's pods and nodes.
//
// Every view borrows host memory: a Pod, a NodeInfo and every string_view they return are valid
// until the hook that received them returns. Copy into std::string to keep anything longer.
#pragma once

#include <schedhost/abi.h>
#include <schedhost/detail/host_table.hpp>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string_view>
#include <utility>

namespace schedhost {

// A random-access range over a host list read by index (count + at), allocation-free.
template <class Value, class Getter>
class IndexRange {
 public:
  IndexRange(std::size_t size, Getter get) : size_(size), get_(std::move(get)) {}

  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Value;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Value;
    iterator(const IndexRange* range, std::size_t i) : range_(range), i_(i) {}
    Value operator*() const { return range_->get_(i_); }
    iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const iterator& o) const { return i_ == o.i_; }
    bool operator!=(const iterator& o) const { return i_ != o.i_; }

   private:
    const IndexRange* range_;
    std::size_t i_;
  };

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  Value operator[](std::size_t i) const { return get_(i); }
  iterator begin() const { return {this, 0}; }
  iterator end() const { return {this, size_}; }

 private:
  std::size_t size_;
  Getter get_;
};

template <class Value, class Getter>
IndexRange<Value, Getter> make_index_range(std::size_t size, Getter get) {
  return {size, std::move(get)};
}

struct KeyValue {
  std::string_view key;
  std::string_view value;
};

struct ResourceAmount {
  std::string_view name;  // "cpu", "memory", "nvidia.com/gpu", ...
  std::int64_t value;     // cpu in millicores, everything else in whole base units
};

struct Taint {
  std::string_view key, value, effect;
};

struct Toleration {
  std::string_view key, op, value, effect;
  std::optional<std::int64_t> toleration_seconds;
};

struct HostPort {
  std::string_view host_ip, protocol;
  std::int32_t port;
};

enum class ContainerKind : std::int32_t {
  Regular = SCHEDHOST_CONTAINER_REGULAR,
  Init = SCHEDHOST_CONTAINER_INIT,
  Sidecar = SCHEDHOST_CONTAINER_SIDECAR,
};

struct Container {
  std::string_view name, image;
  ContainerKind kind;
};

struct ImageState {
  std::string_view name;
  std::int64_t size_bytes;
  std::int32_t num_nodes;
};

// One of a pod's metadata.ownerReferences (ABI 1.8).
struct OwnerReference {
  std::string_view api_version, kind, name, uid;
  bool controller;
};

namespace detail {
inline HostPort host_port(const schedhost_host_port_t& p) {
  return {to_view(p.host_ip), to_view(p.protocol), p.port};
}

// The accessors pods and nodes share, over the host functions that Fns names.
template <class Fns>
class ObjectView {
 public:
  using Handle = typename Fns::Handle;
  ObjectView(const schedhost_host_api_t* api, const Handle* handle) : api_(api), handle_(handle) {}

  const Handle* handle() const { return handle_; }
  const schedhost_host_api_t* api() const { return api_; }

  std::optional<std::string_view> label(std::string_view key) const {
    return map_get(SCHEDHOST_MAP_LABELS, key);
  }
  std::optional<std::string_view> annotation(std::string_view key) const {
    return map_get(SCHEDHOST_MAP_ANNOTATIONS, key);
  }
  auto labels() const { return map(SCHEDHOST_MAP_LABELS); }
  auto annotations() const { return map(SCHEDHOST_MAP_ANNOTATIONS); }

  // Any field as compact JSON by RFC 6901 pointer ("" is the whole object, "/spec/affinity" a
  // part); nullopt when the pointer names nothing.
  std::optional<std::string_view> json(std::string_view json_pointer = {}) const {
    auto fn = detail::host_fn(api_, Fns::json);
    schedhost_str_t out{};
    if (fn == nullptr || !fn(handle_, to_str(json_pointer), &out)) return std::nullopt;
    return to_view(out);
  }

 protected:
  std::string_view string(typename Fns::StringField field) const {
    auto fn = detail::host_fn(api_, Fns::string);
    return fn == nullptr ? std::string_view{} : to_view(fn(handle_, field));
  }
  std::int64_t integer(typename Fns::IntegerField field) const {
    auto fn = detail::host_fn(api_, Fns::integer);
    return fn == nullptr ? 0 : fn(handle_, field);
  }
  std::optional<std::string_view> map_get(schedhost_map_t map, std::string_view key) const {
    auto fn = detail::host_fn(api_, Fns::map_get);
    schedhost_str_t out{};
    if (fn == nullptr || !fn(handle_, map, to_str(key), &out)) return std::nullopt;
    return to_view(out);
  }
  auto map(schedhost_map_t map) const {
    auto count = detail::host_fn(api_, Fns::map_count);
    auto at = detail::host_fn(api_, Fns::map_at);
    return make_index_range<KeyValue>(count == nullptr ? 0 : count(handle_, map),
                                      [at, h = handle_, map](std::size_t i) {
                                        schedhost_str_t k{}, v{};
                                        at(h, map, i, &k, &v);
                                        return KeyValue{to_view(k), to_view(v)};
                                      });
  }
  std::int64_t resource_value(schedhost_resource_list_t list, std::string_view name) const {
    auto fn = detail::host_fn(api_, Fns::resource);
    std::int64_t value = 0;
    if (fn != nullptr) fn(handle_, list, to_str(name), &value);
    return value;
  }
  auto resources(schedhost_resource_list_t list) const {
    auto count = detail::host_fn(api_, Fns::resource_count);
    auto at = detail::host_fn(api_, Fns::resource_at);
    return make_index_range<ResourceAmount>(count == nullptr ? 0 : count(handle_, list),
                                            [at, h = handle_, list](std::size_t i) {
                                              schedhost_str_t name{};
                                              std::int64_t value = 0;
                                              at(h, list, i, &name, &value);
                                              return ResourceAmount{to_view(name), value};
                                            });
  }
  // A typed list read through count(handle) and at(handle, i, &raw), converted by convert(raw).
  template <class Value, class Raw, class CountFn, class AtFn, class Convert>
  auto list(CountFn schedhost_host_api_t::*count_member, AtFn schedhost_host_api_t::*at_member,
            Convert convert) const {
    auto count = detail::host_fn(api_, count_member);
    auto at = detail::host_fn(api_, at_member);
    return make_index_range<Value>(count == nullptr ? 0 : count(handle_),
                                   [at, h = handle_, convert](std::size_t i) {
                                     Raw raw{};
                                     at(h, i, &raw);
                                     return convert(raw);
                                   });
  }

  const schedhost_host_api_t* api_;
  const Handle* handle_;
};

struct PodFns {
  using Handle = schedhost_pod_t;
  using StringField = schedhost_pod_string_t;
  using IntegerField = schedhost_pod_integer_t;
  static constexpr auto string = &schedhost_host_api_t::pod_string;
  static constexpr auto integer = &schedhost_host_api_t::pod_integer;
  static constexpr auto map_get = &schedhost_host_api_t::pod_map_get;
  static constexpr auto map_count = &schedhost_host_api_t::pod_map_count;
  static constexpr auto map_at = &schedhost_host_api_t::pod_map_at;
  static constexpr auto resource = &schedhost_host_api_t::pod_resource;
  static constexpr auto resource_count = &schedhost_host_api_t::pod_resource_count;
  static constexpr auto resource_at = &schedhost_host_api_t::pod_resource_at;
  static constexpr auto json = &schedhost_host_api_t::pod_json;
};

struct NodeFns {
  using Handle = schedhost_node_t;
  using StringField = schedhost_node_string_t;
  using IntegerField = schedhost_node_integer_t;
  static constexpr auto string = &schedhost_host_api_t::node_string;
  static constexpr auto integer = &schedhost_host_api_t::node_integer;
  static constexpr auto map_get = &schedhost_host_api_t::node_map_get;
  static constexpr auto map_count = &schedhost_host_api_t::node_map_count;
  static constexpr auto map_at = &schedhost_host_api_t::node_map_at;
  static constexpr auto resource = &schedhost_host_api_t::node_resource;
  static constexpr auto resource_count = &schedhost_host_api_t::node_resource_count;
  static constexpr auto resource_at = &schedhost_host_api_t::node_resource_at;
  static constexpr auto json = &schedhost_host_api_t::node_json;
};

// Objects of the other kinds (ABI 1.8): names, labels, annotations and JSON only.
struct ObjectFns {
  using Handle = schedhost_object_t;
  using StringField = schedhost_object_string_t;
  using IntegerField = std::int32_t;  // objects have no integer accessor
  static constexpr auto string = &schedhost_host_api_t::object_string;
  static constexpr auto map_get = &schedhost_host_api_t::object_map_get;
  static constexpr auto map_count = &schedhost_host_api_t::object_map_count;
  static constexpr auto map_at = &schedhost_host_api_t::object_map_at;
  static constexpr auto json = &schedhost_host_api_t::object_json;
};

}  // namespace detail

// One object of another kind than Pod and Node (a PersistentVolume, a Service...), as the
// snapshot holds it (ABI 1.8): its names, labels, annotations, and any field as JSON. Cheap to
// copy: two pointers.
class Object : public detail::ObjectView<detail::ObjectFns> {
 public:
  using ObjectView::ObjectView;

  std::string_view name() const { return string(SCHEDHOST_OBJECT_NAME); }
  // "" for a cluster-scoped kind.
  std::string_view namespace_name() const { return string(SCHEDHOST_OBJECT_NAMESPACE); }
  std::string_view uid() const { return string(SCHEDHOST_OBJECT_UID); }
  // Opaque, as the API server gave it ("" for an object read from a file without one).
  std::string_view resource_version() const { return string(SCHEDHOST_OBJECT_RESOURCE_VERSION); }
  // The resource name lookups take ("PersistentVolume", "storage.k8s.io/StorageClass").
  std::string_view resource() const { return string(SCHEDHOST_OBJECT_RESOURCE); }
};

// One Pod. Cheap to copy: two pointers.
class Pod : public detail::ObjectView<detail::PodFns> {
 public:
  using ObjectView::ObjectView;

  std::string_view name() const { return string(SCHEDHOST_POD_NAME); }
  std::string_view namespace_name() const { return string(SCHEDHOST_POD_NAMESPACE); }
  std::string_view uid() const { return string(SCHEDHOST_POD_UID); }
  std::string_view node_name() const { return string(SCHEDHOST_POD_NODE_NAME); }
  std::string_view scheduler_name() const { return string(SCHEDHOST_POD_SCHEDULER_NAME); }
  std::string_view priority_class_name() const { return string(SCHEDHOST_POD_PRIORITY_CLASS_NAME); }
  std::string_view nominated_node_name() const { return string(SCHEDHOST_POD_NOMINATED_NODE_NAME); }
  std::string_view preemption_policy() const { return string(SCHEDHOST_POD_PREEMPTION_POLICY); }
  std::int32_t priority() const {
    return static_cast<std::int32_t>(integer(SCHEDHOST_POD_PRIORITY));
  }
  std::int64_t start_time_ms() const { return integer(SCHEDHOST_POD_START_TIME_MS); }
  std::int64_t creation_time_ms() const { return integer(SCHEDHOST_POD_CREATION_TIME_MS); }
  bool terminating() const { return integer(SCHEDHOST_POD_TERMINATING) != 0; }
  std::uint64_t generation() const {
    return static_cast<std::uint64_t>(integer(SCHEDHOST_POD_GENERATION));
  }
  auto node_selector() const { return map(SCHEDHOST_MAP_NODE_SELECTOR); }

  // The effective request for one resource (0 when the pod requests none of it).
  std::int64_t request(std::string_view resource) const {
    return resource_value(SCHEDHOST_POD_REQUESTS, resource);
  }
  // The request as scoring sees it (cpu 100m and memory 200Mi when unset).
  std::int64_t nonzero_request(std::string_view resource) const {
    return resource_value(SCHEDHOST_POD_NONZERO_REQUESTS, resource);
  }
  auto requests() const { return resources(SCHEDHOST_POD_REQUESTS); }

  auto tolerations() const {
    return list<Toleration, schedhost_toleration_t>(
        &schedhost_host_api_t::pod_toleration_count, &schedhost_host_api_t::pod_toleration_at,
        [](const schedhost_toleration_t& t) {
          return Toleration{to_view(t.key), to_view(t.op), to_view(t.value), to_view(t.effect),
                            t.has_toleration_seconds
                                ? std::optional<std::int64_t>(t.toleration_seconds)
                                : std::nullopt};
        });
  }
  auto host_ports() const {
    return list<HostPort, schedhost_host_port_t>(&schedhost_host_api_t::pod_host_port_count,
                                                 &schedhost_host_api_t::pod_host_port_at,
                                                 &detail::host_port);
  }
  // metadata.ownerReferences, in order (empty on a host older than ABI 1.8).
  auto owner_references() const {
    return list<OwnerReference, schedhost_owner_reference_t>(
        &schedhost_host_api_t::pod_owner_count, &schedhost_host_api_t::pod_owner_at,
        [](const schedhost_owner_reference_t& o) {
          return OwnerReference{to_view(o.api_version), to_view(o.kind), to_view(o.name),
                                to_view(o.uid), o.controller};
        });
  }
  // The owner with controller: true, if any (upstream's metav1.GetControllerOf).
  std::optional<OwnerReference> controller() const {
    for (const OwnerReference& owner : owner_references()) {
      if (owner.controller) return owner;
    }
    return std::nullopt;
  }
  auto containers() const {
    return list<Container, schedhost_container_t>(
        &schedhost_host_api_t::pod_container_count, &schedhost_host_api_t::pod_container_at,
        [](const schedhost_container_t& c) {
          return Container{to_view(c.name), to_view(c.image), static_cast<ContainerKind>(c.kind)};
        });
  }
};

// One NodeInfo: a Node, the pods on it and what they request. Cheap to copy: two pointers.
class NodeInfo : public detail::ObjectView<detail::NodeFns> {
 public:
  using ObjectView::ObjectView;

  std::string_view name() const { return string(SCHEDHOST_NODE_NAME); }
  std::string_view uid() const { return string(SCHEDHOST_NODE_UID); }
  bool unschedulable() const { return integer(SCHEDHOST_NODE_UNSCHEDULABLE) != 0; }
  std::uint64_t generation() const {
    return static_cast<std::uint64_t>(integer(SCHEDHOST_NODE_GENERATION));
  }

  std::int64_t allocatable(std::string_view resource) const {
    return resource_value(SCHEDHOST_NODE_ALLOCATABLE, resource);
  }
  std::int64_t requested(std::string_view resource) const {
    return resource_value(SCHEDHOST_NODE_REQUESTED, resource);
  }
  std::int64_t nonzero_requested(std::string_view resource) const {
    return resource_value(SCHEDHOST_NODE_NONZERO_REQUESTED, resource);
  }
  auto allocatable_resources() const { return resources(SCHEDHOST_NODE_ALLOCATABLE); }
  auto requested_resources() const { return resources(SCHEDHOST_NODE_REQUESTED); }

  auto taints() const {
    return list<Taint, schedhost_taint_t>(
        &schedhost_host_api_t::node_taint_count, &schedhost_host_api_t::node_taint_at,
        [](const schedhost_taint_t& t) {
          return Taint{to_view(t.key), to_view(t.value), to_view(t.effect)};
        });
  }
  auto used_ports() const {
    return list<HostPort, schedhost_host_port_t>(&schedhost_host_api_t::node_used_port_count,
                                                 &schedhost_host_api_t::node_used_port_at,
                                                 &detail::host_port);
  }
  auto images() const {
    return list<ImageState, schedhost_image_t>(
        &schedhost_host_api_t::node_image_count, &schedhost_host_api_t::node_image_at,
        [](const schedhost_image_t& i) {
          return ImageState{to_view(i.name), i.size_bytes, i.num_nodes};
        });
  }
  // The pods on this node (which: all, or only those with (anti-)affinity terms).
  auto pods(schedhost_node_pods_t which = SCHEDHOST_NODE_PODS_ALL) const {
    auto count = detail::host_fn(api_, &schedhost_host_api_t::node_pod_count);
    auto at = detail::host_fn(api_, &schedhost_host_api_t::node_pod_at);
    return make_index_range<Pod>(
        count == nullptr ? 0 : count(handle_, which),
        [api = api_, at, h = handle_, which](std::size_t i) { return Pod(api, at(h, which, i)); });
  }
};

}  // namespace schedhost
