// What the framework reports for /metrics: how long each extension point and each plugin hook
// took, and the plugins' faults. `serve` gives the frameworks a sink (serving/
// scheduler_metrics.hpp); `run` gives none and pays nothing.
#pragma once

#include <schedhost/abi.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace schedhost::framework {

// A plugin broke the ABI's rules at run time; the pod concerned gets an Error, the host goes on.
enum class PluginFault : std::uint8_t {
  BadCode,      // a status code the ABI does not define
  BadScore,     // a score outside 0..100 after NormalizeScore
  BadNodeList,  // NormalizeScore changed the node list
  Exception,    // a C++ plugin's hook threw (reported by the SDK, ABI 1.4)
  Timeout,      // a scheduling-cycle hook ran past serve's --plugin-hook-timeout
};

constexpr std::string_view to_string(PluginFault fault) {
  switch (fault) {
    case PluginFault::BadCode:
      return "bad_code";
    case PluginFault::BadScore:
      return "bad_score";
    case PluginFault::BadNodeList:
      return "bad_node_list";
    case PluginFault::Exception:
      return "exception";
    case PluginFault::Timeout:
      return "timeout";
  }
  return "unknown";
}

// Upstream's extension_point label of a hook as CallSite names it ("AddPod" is
// "PreFilterExtensionAddPod", "NormalizeScore" is "ScoreExtensionNormalize").
std::string_view metric_label(std::string_view hook);

class FrameworkMetrics {
 public:
  virtual ~FrameworkMetrics() = default;
  // One run of an extension point, with the code it ended with (its name is upstream's status
  // label: framework::code_name). point_label is upstream's extension_point label. Scheduling or
  // binding thread.
  virtual void extension_point(const std::string& profile, std::string_view point_label,
                               schedhost_code_t code, double seconds) = 0;
  // One plugin hook, on the sampled cycles only (upstream samples 10%). [concurrent]
  virtual void plugin_execution(const std::string& plugin, std::string_view point_label,
                                schedhost_code_t code, double seconds) = 0;
  // One fault of a plugin. [concurrent]
  virtual void plugin_fault(const std::string& plugin, PluginFault fault) = 0;
};

}  // namespace schedhost::framework
