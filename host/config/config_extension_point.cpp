#include "config/config_extension_point.hpp"

namespace schedhost::config {
namespace {

struct PointNames {
  ConfigExtensionPoint point;
  std::string_view field;
  std::optional<ExtensionPoint> cycle_point;
};

constexpr std::array<PointNames, kConfigExtensionPointCount> kPoints = {{
    {ConfigExtensionPoint::PreEnqueue, "preEnqueue", ExtensionPoint::PreEnqueue},
    {ConfigExtensionPoint::QueueSort, "queueSort", ExtensionPoint::QueueSort},
    {ConfigExtensionPoint::PreFilter, "preFilter", ExtensionPoint::PreFilter},
    {ConfigExtensionPoint::Filter, "filter", ExtensionPoint::Filter},
    {ConfigExtensionPoint::PostFilter, "postFilter", ExtensionPoint::PostFilter},
    {ConfigExtensionPoint::PreScore, "preScore", ExtensionPoint::PreScore},
    {ConfigExtensionPoint::Score, "score", ExtensionPoint::Score},
    {ConfigExtensionPoint::Reserve, "reserve", ExtensionPoint::Reserve},
    {ConfigExtensionPoint::Permit, "permit", ExtensionPoint::Permit},
    {ConfigExtensionPoint::PreBind, "preBind", ExtensionPoint::PreBind},
    {ConfigExtensionPoint::Bind, "bind", ExtensionPoint::Bind},
    {ConfigExtensionPoint::PostBind, "postBind", ExtensionPoint::PostBind},
    {ConfigExtensionPoint::MultiPoint, "multiPoint", std::nullopt},
}};

const PointNames& names_of(ConfigExtensionPoint point) {
  return kPoints[static_cast<std::size_t>(point)];
}

}  // namespace

std::string_view field_name(ConfigExtensionPoint point) {
  return names_of(point).field;
}

std::optional<ConfigExtensionPoint> config_extension_point_from_field(std::string_view field) {
  for (const auto& names : kPoints) {
    if (names.field == field) return names.point;
  }
  return std::nullopt;
}

std::optional<ExtensionPoint> to_extension_point(ConfigExtensionPoint point) {
  return names_of(point).cycle_point;
}

}  // namespace schedhost::config
