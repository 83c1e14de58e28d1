// The extension points as the config file names them (the fields of `plugins:`). They differ from
// schedhost::ExtensionPoint: multiPoint is not a point of the cycle, and the config has no field
// for the points that come with another (Unreserve with Reserve, NormalizeScore with Score, ...).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "framework/extension_point.hpp"

namespace schedhost::config {

enum class ConfigExtensionPoint : std::uint8_t {
  PreEnqueue,
  QueueSort,
  PreFilter,
  Filter,
  PostFilter,
  PreScore,
  Score,
  Reserve,
  Permit,
  PreBind,
  Bind,
  PostBind,
  MultiPoint,
};

inline constexpr std::size_t kConfigExtensionPointCount = 13;

// Every field of `plugins:` but multiPoint, in the order of the scheduling cycle.
inline constexpr std::array<ConfigExtensionPoint, 12> kConcreteConfigExtensionPoints = {
    ConfigExtensionPoint::PreEnqueue, ConfigExtensionPoint::QueueSort,
    ConfigExtensionPoint::PreFilter,  ConfigExtensionPoint::Filter,
    ConfigExtensionPoint::PostFilter, ConfigExtensionPoint::PreScore,
    ConfigExtensionPoint::Score,      ConfigExtensionPoint::Reserve,
    ConfigExtensionPoint::Permit,     ConfigExtensionPoint::PreBind,
    ConfigExtensionPoint::Bind,       ConfigExtensionPoint::PostBind,
};

// The YAML field name: "preEnqueue", ..., "multiPoint".
std::string_view field_name(ConfigExtensionPoint point);

// The point named by a YAML field of `plugins:`; nullopt for an unknown field.
std::optional<ConfigExtensionPoint> config_extension_point_from_field(std::string_view field);

// The cycle point a plugin listed there must implement; nullopt for multiPoint.
std::optional<ExtensionPoint> to_extension_point(ConfigExtensionPoint point);

}  // namespace schedhost::config
