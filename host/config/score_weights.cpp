#include "config/score_weights.hpp"

#include <cstdint>
#include <limits>

#include "common/input_error.hpp"

namespace schedhost::config {
namespace {

constexpr std::int64_t kMaxNodeScore = 100;
constexpr std::int64_t kMaxTotalScore = std::numeric_limits<std::int64_t>::max();

}  // namespace

std::map<std::string, int, std::less<>> score_weights(const PluginSets& merged,
                                                      const PluginCatalog& catalog,
                                                      const std::string& profile_label,
                                                      const SourceLocation& profile_location) {
  std::map<std::string, int, std::less<>> weights;
  std::int64_t total = 0;
  for (auto point : {ConfigExtensionPoint::Score, ConfigExtensionPoint::MultiPoint}) {
    for (const auto& plugin : merged[point].enabled) {
      auto installed = catalog.find(plugin.name);
      if (installed == catalog.end() || !installed->second.contains(ExtensionPoint::Score))
        continue;
      if (weights.contains(plugin.name)) continue;  // the explicit Score entry came first
      // A weight of 0 is not allowed: plugins are disabled explicitly, not by weight.
      const int weight = plugin.weight.value_or(0) == 0 ? 1 : *plugin.weight;
      if (static_cast<std::int64_t>(weight) * kMaxNodeScore > kMaxTotalScore - total) {
        throw InputError(profile_location.to_string() + ": " + profile_label +
                         ": the total score of Score plugins could overflow: lower the weights");
      }
      total += static_cast<std::int64_t>(weight) * kMaxNodeScore;
      weights.emplace(plugin.name, weight);
    }
  }
  return weights;
}

}  // namespace schedhost::config
