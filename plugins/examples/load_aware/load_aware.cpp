// LoadAware: a Score that prefers nodes with low measured utilisation.
//
// Per resource (cpu, memory), a node's utilisation in percent is
//   - its annotation schedhost.io/cpu-utilization / schedhost.io/memory-utilization (what a
//     metrics agent measured: a decimal from 0 to 100, e.g. "37.5"; digits past the third decimal
//     are ignored), plus the requests of the pods this plugin placed on the node during the run
//     (a measurement cannot see pods placed after it), as a percentage of allocatable;
//   - without the annotation (or when it is not a number from 0 to 100, with a warning): the
//     node's requested / allocatable * 100, counting requests as scoring does (cpu 100m and
//     memory 200Mi for a container that sets none), so pods placed during the run count too.
// A node without allocatable of a resource counts as 100% used. Values above 100 count as 100.
//
//   score = floor(100 - (sum of weight[r] * utilisation[r]) / (sum of weight[r]))
//
// computed in thousandths of a percent, so "37.5" is exact. 100 is an idle node, 0 a full one.
// The incoming pod's own request is not added: the score ranks nodes as they are.
//
// Args, optional:
//   resourceWeights  map of cpu and/or memory to an integer weight 0..100, default
//                    {cpu: 1, memory: 1}; a resource not in the map weighs 0; at least one > 0.
//
// Filter-free and cheap: Score reads two annotations and two resources per node. Score runs
// concurrently; Reserve/Unreserve (the pods placed during the run) take a mutex.
#include <schedhost/plugin.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace {

constexpr std::int64_t kFull = 100'000;  // 100% in thousandths of a percent

struct Resource {
  std::string_view name;        // as in resource lists
  std::string_view annotation;  // the measured utilisation
};
constexpr Resource kResources[] = {
    {"cpu", "schedhost.io/cpu-utilization"},
    {"memory", "schedhost.io/memory-utilization"},
};
constexpr std::size_t kCount = sizeof(kResources) / sizeof(kResources[0]);

[[noreturn]] void refuse(const std::string& message) {
  throw std::invalid_argument(message);
}

struct Args {
  std::int64_t weights[kCount] = {1, 1};
};

Args parse_args(const nlohmann::json& json) {
  if (!json.is_object()) refuse("args must be an object, got " + json.dump());
  Args args;
  for (const auto& [key, value] : json.items()) {
    if (key != "resourceWeights") refuse("unknown arg \"" + key + "\": the arg is resourceWeights");
  }
  const auto it = json.find("resourceWeights");
  if (it == json.end()) return args;
  if (!it->is_object()) {
    refuse("resourceWeights must be a map of cpu and memory to weights, got " + it->dump());
  }
  std::int64_t total = 0;
  for (std::size_t r = 0; r < kCount; ++r) {
    args.weights[r] = 0;
    const auto w = it->find(std::string(kResources[r].name));
    if (w == it->end()) continue;
    if (!w->is_number_integer() || w->get<std::int64_t>() < 0 || w->get<std::int64_t>() > 100) {
      refuse("resourceWeights." + std::string(kResources[r].name) +
             " must be an integer from 0 to 100, got " + w->dump());
    }
    args.weights[r] = w->get<std::int64_t>();
    total += args.weights[r];
  }
  for (const auto& [key, value] : it->items()) {
    if (key != "cpu" && key != "memory") {
      refuse("resourceWeights: unknown resource \"" + key + "\": only cpu and memory are measured");
    }
  }
  if (total == 0) refuse("resourceWeights: at least one weight must be greater than 0");
  return args;
}

// "37.5" -> 37500; nullopt unless a decimal from 0 to 100.
std::optional<std::int64_t> parse_percent(std::string_view s) {
  std::int64_t whole = 0, frac = 0, scale = 1000;
  std::size_t i = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    whole = whole * 10 + (s[i] - '0');
    if (whole > 100) return std::nullopt;
  }
  if (i == 0) return std::nullopt;
  if (i < s.size()) {
    if (s[i] != '.' || i + 1 == s.size()) return std::nullopt;
    for (++i; i < s.size(); ++i) {
      if (s[i] < '0' || s[i] > '9') return std::nullopt;
      if (scale > 1) frac += (s[i] - '0') * (scale /= 10);
    }
  }
  const std::int64_t value = whole * 1000 + frac;
  if (value > kFull) return std::nullopt;
  return value;
}

// "37.5%" from 37500, for the debug log.
std::string percent_text(std::int64_t milli) {
  std::string text = std::to_string(milli / 1000);
  if (std::int64_t frac = milli % 1000; frac != 0) {
    std::string digits = std::to_string(1000 + frac).substr(1);
    while (digits.back() == '0')
      digits.pop_back();
    text += "." + digits;
  }
  return text + "%";
}

// An amount in thousandths of a percent of allocatable; a node without allocatable is full.
std::int64_t share(std::int64_t amount, std::int64_t allocatable) {
  if (allocatable <= 0) return kFull;
  // Split to stay in range for large memory values (bytes * 100000 may overflow).
  return amount / allocatable * kFull + amount % allocatable * kFull / allocatable;
}

class LoadAware {
 public:
  LoadAware(const nlohmann::json& args, const schedhost::Host& host)
      : args_(parse_args(args)), host_(host) {}

  schedhost::Status Score(schedhost::Context&, const schedhost::CycleState&, const schedhost::Pod&,
                          const schedhost::NodeInfo& node, std::int64_t& score) const {
    const Placed placed = placed_on(node.name());
    const bool debug = host_.log_enabled(schedhost::LogLevel::Debug);
    std::int64_t weighted = 0, total_weight = 0;
    std::string detail;  // for the debug log only
    for (std::size_t r = 0; r < kCount; ++r) {
      if (args_.weights[r] == 0) continue;
      const Resource& res = kResources[r];
      const std::int64_t allocatable = node.allocatable(res.name);
      std::int64_t used = 0;
      const char* source = "measured";
      const auto annotation = node.annotation(res.annotation);
      const auto measured = annotation ? parse_percent(*annotation) : std::nullopt;
      if (measured) {
        used = *measured + share(placed.amount[r], allocatable);
        if (placed.amount[r] != 0) source = "measured + placed";
      } else {
        if (annotation) {
          host_.warn("node " + std::string(node.name()) + ": annotation " +
                     std::string(res.annotation) + "=\"" + std::string(*annotation) +
                     "\" is not a percentage from 0 to 100: using its requests");
        }
        used = share(node.nonzero_requested(res.name), allocatable);
        source = "requested";
      }
      used = std::clamp<std::int64_t>(used, 0, kFull);
      weighted += args_.weights[r] * used;
      total_weight += args_.weights[r];
      if (debug) {
        if (!detail.empty()) detail += ", ";
        detail += std::string(res.name) + " " + percent_text(used) + " (" + source + ")";
      }
    }
    score = (kFull - weighted / total_weight) / 1000;
    if (debug) {
      host_.debug("node " + std::string(node.name()) + ": " + detail + ", score " +
                  std::to_string(score));
    }
    return {};
  }

  // Remembers what the pod adds to its node until the next measurement (the end of the run).
  schedhost::Status Reserve(schedhost::Context&, schedhost::CycleState&, const schedhost::Pod& pod,
                            std::string_view node) {
    Reservation res{std::string(node), {}};
    for (std::size_t r = 0; r < kCount; ++r)
      res.amount[r] = pod.nonzero_request(kResources[r].name);
    std::lock_guard<std::mutex> lock(mutex_);
    release(std::string(pod.uid()));  // a pod reserved again replaces its old reservation
    Placed& on_node = placed_[res.node];
    for (std::size_t r = 0; r < kCount; ++r)
      on_node.amount[r] += res.amount[r];
    reserved_.emplace(std::string(pod.uid()), std::move(res));
    return {};
  }

  void Unreserve(schedhost::Context&, schedhost::CycleState&, const schedhost::Pod& pod,
                 std::string_view) {
    std::lock_guard<std::mutex> lock(mutex_);
    release(std::string(pod.uid()));
  }

 private:
  struct Placed {
    std::int64_t amount[kCount] = {};
  };
  struct Reservation {
    std::string node;
    std::int64_t amount[kCount];
  };

  // Forgets the pod's reservation, if any (so Unreserve is idempotent). The caller holds mutex_.
  void release(const std::string& uid) {
    const auto it = reserved_.find(uid);
    if (it == reserved_.end()) return;
    Placed& on_node = placed_[it->second.node];
    for (std::size_t r = 0; r < kCount; ++r)
      on_node.amount[r] -= it->second.amount[r];
    reserved_.erase(it);
  }

  Placed placed_on(std::string_view node) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = placed_.find(node);
    return it == placed_.end() ? Placed{} : it->second;
  }

  const Args args_;
  const schedhost::Host host_;
  mutable std::mutex mutex_;
  std::map<std::string, Placed, std::less<>> placed_;  // node -> requests placed this run
  std::map<std::string, Reservation> reserved_;        // pod uid -> its reservation
};

}  // namespace

SCHEDHOST_LIBRARY("load-aware", "1.0.0",
                  schedhost::plugin<LoadAware, schedhost::hook::Score, schedhost::hook::Reserve,
                                    schedhost::hook::Unreserve>(
                      "LoadAware",
                      "Example: prefers nodes with low measured cpu/memory utilisation "
                      "(node annotations), else low requests"))
