// The extension points of the scheduling framework, as the host names them: in listings, in
// validation messages and in --explain output. Upstream's names, in upstream's cycle order.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace schedhost {

enum class ExtensionPoint : std::uint8_t {
  PreEnqueue,
  QueueSort,
  PreFilter,
  PreFilterExtensions,  // AddPod / RemovePod
  Filter,
  PostFilter,
  PreScore,
  Score,
  NormalizeScore,  // Score's ScoreExtensions
  Reserve,
  Unreserve,
  Permit,
  PreBind,
  Bind,
  PostBind,
};

inline constexpr std::size_t kExtensionPointCount = 15;

inline constexpr std::array<ExtensionPoint, kExtensionPointCount> kAllExtensionPoints = {
    ExtensionPoint::PreEnqueue,     ExtensionPoint::QueueSort,
    ExtensionPoint::PreFilter,      ExtensionPoint::PreFilterExtensions,
    ExtensionPoint::Filter,         ExtensionPoint::PostFilter,
    ExtensionPoint::PreScore,       ExtensionPoint::Score,
    ExtensionPoint::NormalizeScore, ExtensionPoint::Reserve,
    ExtensionPoint::Unreserve,      ExtensionPoint::Permit,
    ExtensionPoint::PreBind,        ExtensionPoint::Bind,
    ExtensionPoint::PostBind,
};

constexpr std::string_view to_string(ExtensionPoint point) {
  constexpr std::array<std::string_view, kExtensionPointCount> names = {
      "PreEnqueue",     "QueueSort",  "PreFilter", "PreFilterExtensions",
      "Filter",         "PostFilter", "PreScore",  "Score",
      "NormalizeScore", "Reserve",    "Unreserve", "Permit",
      "PreBind",        "Bind",       "PostBind",
  };
  return names[static_cast<std::size_t>(point)];
}

// A small set of extension points (one bit each).
class ExtensionPointSet {
 public:
  constexpr void insert(ExtensionPoint p) { bits_ |= bit(p); }
  constexpr bool contains(ExtensionPoint p) const { return (bits_ & bit(p)) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr bool operator==(const ExtensionPointSet&) const = default;

 private:
  static constexpr std::uint32_t bit(ExtensionPoint p) {
    return std::uint32_t{1} << static_cast<unsigned>(p);
  }
  std::uint32_t bits_ = 0;
};

}  // namespace schedhost
