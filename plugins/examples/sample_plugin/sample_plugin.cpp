// SamplePlugin: an example Filter + Score plugin built with the C++ SDK wrapper only.
//
// Filter: a node passes when it is labelled gpu-type=nvidia and has a free nvidia.com/gpu:
//   - no gpu-type=nvidia label           -> UnschedulableAndUnresolvable
//                                            "node(s) didn't have label gpu-type=nvidia"
//   - allocatable - requested nvidia.com/gpu < max(1, the pod's own nvidia.com/gpu request)
//                                         -> Unschedulable "Insufficient nvidia.com/gpu"
// Score (0..100): 100 - the node's requested CPU percentage (requested * 100 / allocatable, integer
//   division; 100 when the node has no allocatable cpu), + 20 when the pod's namespace is `prod`
//   and the node's topology.kubernetes.io/zone is one of args.whitelistZones, clamped to 0..100. A
//   node whose requested CPU percentage is at or above args.threshold scores 0 (no bonus): a "too
//   busy" cut-off, so the default threshold 100 only zeroes nodes whose CPU is fully requested.
//
// Args (pluginConfig[].args), every key optional:
//   threshold       integer 0..100, default 100
//   whitelistZones  list of non-empty strings, default []
//   enableDebugLog  boolean, default false: one debug line per Filter rejection and per Score
// An unknown key or a wrong type refuses the args; the host prints `plugin "SamplePlugin": <why>`.
//
// Filter and Score run concurrently on one instance: the instance is immutable after
// construction. The per-node work is a label lookup and two resource lookups, so there is no
// PreFilter/PreScore (and no CycleState): nothing per pod is worth caching.
#include <schedhost/plugin.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>

namespace {

constexpr std::string_view kGpuTypeLabel = "gpu-type";
constexpr std::string_view kGpuTypeValue = "nvidia";
constexpr std::string_view kGpuResource = "nvidia.com/gpu";
constexpr std::string_view kZoneLabel = "topology.kubernetes.io/zone";
constexpr std::string_view kBonusNamespace = "prod";
constexpr std::int64_t kZoneBonus = 20;
constexpr std::int64_t kMaxScore = 100;

constexpr const char* kMissingLabel = "node(s) didn't have label gpu-type=nvidia";
constexpr const char* kInsufficientGpu = "Insufficient nvidia.com/gpu";

// The validated args.
struct Args {
  std::int64_t threshold = 100;
  std::set<std::string, std::less<>> whitelist_zones;
  bool enable_debug_log = false;
};

[[noreturn]] void refuse(const std::string& message) {
  throw std::invalid_argument(message);
}

Args parse_args(const nlohmann::json& json) {
  if (!json.is_object()) {
    refuse("args must be an object with threshold, whitelistZones and enableDebugLog, got " +
           json.dump());
  }
  for (const auto& [key, value] : json.items()) {
    if (key != "threshold" && key != "whitelistZones" && key != "enableDebugLog") {
      refuse("unknown arg \"" + key +
             "\": the args are threshold, whitelistZones and enableDebugLog");
    }
  }
  Args args;
  if (const auto it = json.find("threshold"); it != json.end()) {
    if (!it->is_number_integer()) refuse("threshold must be an integer, got " + it->dump());
    const bool in_range = it->is_number_unsigned()
                              ? it->get<std::uint64_t>() <= 100
                              : it->get<std::int64_t>() >= 0 && it->get<std::int64_t>() <= 100;
    if (!in_range) refuse("threshold must be between 0 and 100, got " + it->dump());
    args.threshold = it->get<std::int64_t>();
  }
  if (const auto it = json.find("whitelistZones"); it != json.end()) {
    if (!it->is_array()) refuse("whitelistZones must be a list of strings, got " + it->dump());
    for (std::size_t i = 0; i < it->size(); ++i) {
      const nlohmann::json& zone = (*it)[i];
      const std::string where = "whitelistZones[" + std::to_string(i) + "]";
      if (!zone.is_string()) refuse(where + " must be a string, got " + zone.dump());
      if (zone.get_ref<const std::string&>().empty()) refuse(where + " must not be empty");
      args.whitelist_zones.insert(zone.get<std::string>());
    }
  }
  if (const auto it = json.find("enableDebugLog"); it != json.end()) {
    if (!it->is_boolean()) refuse("enableDebugLog must be a boolean, got " + it->dump());
    args.enable_debug_log = it->get<bool>();
  }
  return args;
}

std::string pod_key(const schedhost::Pod& pod) {
  std::string key(pod.namespace_name());
  key += '/';
  key += pod.name();
  return key;
}

class SamplePlugin {
 public:
  SamplePlugin(const nlohmann::json& args, const schedhost::Host& host)
      : args_(parse_args(args)), host_(host) {}

  schedhost::Status Filter(schedhost::Context&, const schedhost::CycleState&,
                           const schedhost::Pod& pod, const schedhost::NodeInfo& node) const {
    const auto gpu_type = node.label(kGpuTypeLabel);
    if (!gpu_type || *gpu_type != kGpuTypeValue) {
      debug_rejection(pod, node, kMissingLabel);
      return schedhost::Status::UnschedulableAndUnresolvable(kMissingLabel);
    }
    const std::int64_t free = node.allocatable(kGpuResource) - node.requested(kGpuResource);
    if (free < std::max<std::int64_t>(1, pod.request(kGpuResource))) {
      debug_rejection(pod, node, kInsufficientGpu);
      return schedhost::Status::Unschedulable(kInsufficientGpu);
    }
    return {};
  }

  schedhost::Status Score(schedhost::Context&, const schedhost::CycleState&,
                          const schedhost::Pod& pod, const schedhost::NodeInfo& node,
                          std::int64_t& score) const {
    const std::int64_t allocatable = node.allocatable("cpu");
    const std::int64_t percent = allocatable <= 0 ? 100 : node.requested("cpu") * 100 / allocatable;
    bool bonus = false;
    if (percent >= args_.threshold) {
      score = 0;
    } else {
      const auto zone = node.label(kZoneLabel);
      bonus = pod.namespace_name() == kBonusNamespace && zone &&
              args_.whitelist_zones.find(*zone) != args_.whitelist_zones.end();
      score =
          std::clamp<std::int64_t>(kMaxScore - percent + (bonus ? kZoneBonus : 0), 0, kMaxScore);
    }
    if (debug_enabled()) {
      std::string line = "Score " + pod_key(pod) + " on " + std::string(node.name()) +
                         ": cpu requested " + std::to_string(percent) + "%";
      if (percent >= args_.threshold) {
        line += " (at or above threshold " + std::to_string(args_.threshold) + ")";
      }
      if (bonus) line += ", zone bonus +" + std::to_string(kZoneBonus);
      line += ", score " + std::to_string(score);
      host_.debug(line);
    }
    return {};
  }

 private:
  bool debug_enabled() const {
    return args_.enable_debug_log && host_.log_enabled(schedhost::LogLevel::Debug);
  }

  void debug_rejection(const schedhost::Pod& pod, const schedhost::NodeInfo& node,
                       std::string_view reason) const {
    if (!debug_enabled()) return;
    host_.debug("Filter " + pod_key(pod) + " on " + std::string(node.name()) + ": " +
                std::string(reason));
  }

  const Args args_;
  const schedhost::Host host_;
};

}  // namespace

SCHEDHOST_LIBRARY("sample-plugin", "1.0.0",
                  schedhost::plugin<SamplePlugin, schedhost::hook::Filter, schedhost::hook::Score>(
                      "SamplePlugin",
                      "Sample: keeps pods on gpu-type=nvidia nodes with a free nvidia.com/gpu; "
                      "prefers idle CPU, +20 in whitelisted zones for prod pods"))
