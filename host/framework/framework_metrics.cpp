#include "framework/framework_metrics.hpp"

namespace schedhost::framework {

std::string_view metric_label(std::string_view hook) {
  if (hook == "AddPod") return "PreFilterExtensionAddPod";
  if (hook == "RemovePod") return "PreFilterExtensionRemovePod";
  if (hook == "NormalizeScore") return "ScoreExtensionNormalize";
  return hook;
}

}  // namespace schedhost::framework
