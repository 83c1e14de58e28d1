#include "config/upstream_only_fields.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace schedhost::config {
namespace {

enum class Kind { String, Bool, Int32, Int64, Number, Object, ListOfObjects };

struct FieldShape;

struct Shape {
  Kind kind;
  const FieldShape* fields = nullptr;  // Object / ListOfObjects: the element's fields
  std::size_t field_count = 0;
};

struct FieldShape {
  std::string_view name;
  Shape shape;
};

template <std::size_t N>
constexpr Shape object_of(const FieldShape (&fields)[N]) {
  return Shape{Kind::Object, fields, N};
}
template <std::size_t N>
constexpr Shape list_of(const FieldShape (&fields)[N]) {
  return Shape{Kind::ListOfObjects, fields, N};
}

// componentbase LeaderElectionConfiguration (durations are Go duration strings, e.g. "15s").
constexpr FieldShape kLeaderElection[] = {
    {"leaderElect", {Kind::Bool}},         {"leaseDuration", {Kind::String}},
    {"renewDeadline", {Kind::String}},     {"retryPeriod", {Kind::String}},
    {"resourceLock", {Kind::String}},      {"resourceName", {Kind::String}},
    {"resourceNamespace", {Kind::String}},
};

// componentbase ClientConnectionConfiguration.
constexpr FieldShape kClientConnection[] = {
    {"kubeconfig", {Kind::String}},  {"acceptContentTypes", {Kind::String}},
    {"contentType", {Kind::String}}, {"qps", {Kind::Number}},
    {"burst", {Kind::Int32}},
};

constexpr FieldShape kExtenderTlsConfig[] = {
    {"insecure", {Kind::Bool}},  {"serverName", {Kind::String}}, {"certFile", {Kind::String}},
    {"keyFile", {Kind::String}}, {"caFile", {Kind::String}},     {"certData", {Kind::String}},
    {"keyData", {Kind::String}}, {"caData", {Kind::String}},
};

constexpr FieldShape kExtenderManagedResource[] = {
    {"name", {Kind::String}},
    {"ignoredByScheduler", {Kind::Bool}},
};

constexpr FieldShape kExtender[] = {
    {"urlPrefix", {Kind::String}},
    {"filterVerb", {Kind::String}},
    {"preemptVerb", {Kind::String}},
    {"prioritizeVerb", {Kind::String}},
    {"weight", {Kind::Int64}},
    {"bindVerb", {Kind::String}},
    {"enableHTTPS", {Kind::Bool}},
    {"tlsConfig", object_of(kExtenderTlsConfig)},
    {"httpTimeout", {Kind::String}},
    {"nodeCacheCapable", {Kind::Bool}},
    {"managedResources", list_of(kExtenderManagedResource)},
    {"ignorable", {Kind::Bool}},
};

// healthzBindAddress / metricsBindAddress are gone from v1beta3 upstream; configs carried over
// from v1beta2 still have them, so they are tolerated.
constexpr FieldShape kTopLevel[] = {
    {"leaderElection", object_of(kLeaderElection)},
    {"clientConnection", object_of(kClientConnection)},
    {"enableProfiling", {Kind::Bool}},
    {"enableContentionProfiling", {Kind::Bool}},
    {"delayCacheUntilActive", {Kind::Bool}},
    {"healthzBindAddress", {Kind::String}},
    {"metricsBindAddress", {Kind::String}},
    {"extenders", list_of(kExtender)},
};

constexpr auto kTopLevelNames = [] {
  std::array<std::string_view, std::size(kTopLevel)> names{};
  for (std::size_t i = 0; i < names.size(); ++i)
    names[i] = kTopLevel[i].name;
  return names;
}();

nlohmann::json read_value(const YamlFieldReader& reader, const YAML::Node& node, const Shape& shape,
                          const std::string& path);

nlohmann::json read_object(const YamlFieldReader& reader, const YAML::Node& node,
                           const Shape& shape, const std::string& path) {
  std::vector<std::string_view> known;
  for (std::size_t i = 0; i < shape.field_count; ++i)
    known.push_back(shape.fields[i].name);
  nlohmann::json object = nlohmann::json::object();
  for (const auto& field : reader.fields(node, path, known)) {
    if (field.is_null()) continue;  // null = not set, as upstream decodes it
    auto it = std::find(known.begin(), known.end(), field.name);
    const Shape& field_shape = shape.fields[static_cast<std::size_t>(it - known.begin())].shape;
    object[field.name] = read_value(reader, field.value, field_shape, path + "." + field.name);
  }
  return object;
}

nlohmann::json read_value(const YamlFieldReader& reader, const YAML::Node& node, const Shape& shape,
                          const std::string& path) {
  switch (shape.kind) {
    case Kind::String:
      return reader.read_string(node, path);
    case Kind::Bool:
      return reader.read_bool(node, path);
    case Kind::Int32:
      return reader.read_integer(node, path, std::numeric_limits<std::int32_t>::min(),
                                 std::numeric_limits<std::int32_t>::max());
    case Kind::Int64:
      return reader.read_integer(node, path, std::numeric_limits<std::int64_t>::min(),
                                 std::numeric_limits<std::int64_t>::max());
    case Kind::Number:
      return reader.read_number(node, path);
    case Kind::Object:
      return read_object(reader, node, shape, path);
    case Kind::ListOfObjects: {
      reader.expect_list(node, path);
      nlohmann::json list = nlohmann::json::array();
      std::size_t index = 0;
      for (const auto& item : node) {
        list.push_back(
            read_object(reader, item, shape, path + "[" + std::to_string(index++) + "]"));
      }
      return list;
    }
  }
  return nullptr;
}

}  // namespace

std::span<const std::string_view> upstream_only_field_names() {
  return kTopLevelNames;
}

bool is_upstream_only_field(std::string_view name) {
  return std::find(kTopLevelNames.begin(), kTopLevelNames.end(), name) != kTopLevelNames.end();
}

nlohmann::json read_upstream_only_field(const YamlFieldReader& reader, const YamlField& field) {
  for (const auto& top : kTopLevel) {
    if (top.name == field.name) {
      if (field.is_null()) return nullptr;
      return read_value(reader, field.value, top.shape, field.name);
    }
  }
  return nullptr;
}

}  // namespace schedhost::config
