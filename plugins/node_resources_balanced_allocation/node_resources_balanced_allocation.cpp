// NodeResourcesBalancedAllocation: upstream kube-scheduler v1.35's plugin of that name
// (pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go), decision for decision.
//
// PreScore  stores the pod's actual request (no 100m / 200Mi defaults: upstream's useRequested)
//           per configured resource under "PreScoreNodeResourcesBalancedAllocation"; Score
//           recomputes it when PreScore did not run. A pod that requests none of them (best
//           effort) is skipped: Skip, no score (v1.35; Score without PreScore gives it 0).
// Score     for every configured resource that is scored on the node (allocatable != 0; a scalar
//           resource only when the pod requests it; names the scheduler does not account never),
//           fraction = min(1, (node requested + pod request) / allocatable) as float64, with the
//           node's actual requests. std = 0 for fewer than 2 fractions, |f0 - f1| / 2 for 2, the
//           population standard deviation otherwise; score = int64((1 - std) * 100) (truncated).
//           No NormalizeScore.
//
// Args (NodeResourcesBalancedAllocationArgs v1beta3): resources [{name, weight}], default cpu and
// memory; a weight of 0 means 1. Validated as upstream: a name twice is
// `resources[i].name: Duplicate value: "cpu"`, a weight other than 1 is
// `resources[i].weight: Invalid value: 2: must be 1`.
#include <schedhost/k8s/signers.hpp>
#include <schedhost/plugin.hpp>

#include <algorithm>

#include "noderesources_common.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace nr = schedhost_noderesources;

constexpr std::string_view kPreScoreStateKey = "PreScoreNodeResourcesBalancedAllocation";
constexpr double kMaxNodeScore = 100;

std::vector<nr::ResourceSpec> parse_args(const nlohmann::json& json) {
  if (!json.is_object()) {
    nr::refuse("args must be an object (NodeResourcesBalancedAllocationArgs), got " + json.dump());
  }
  nr::check_fields(json, "", {"resources"});
  std::vector<nr::ResourceSpec> resources =
      nr::read_resources(nr::member(json, "resources"), "resources");
  nr::FieldErrors errors;
  std::set<std::string, std::less<>> seen;
  for (std::size_t i = 0; i < resources.size(); ++i) {
    const std::string path = "resources[" + std::to_string(i) + "]";
    if (!seen.insert(resources[i].name).second) {
      errors.duplicate(path + ".name", nr::go_quote(resources[i].name));
    }
    if (resources[i].weight != 1) {
      errors.invalid(path + ".weight", std::to_string(resources[i].weight), "must be 1");
    }
  }
  errors.throw_if_any();
  return resources;
}

struct PreScoreState {
  std::vector<std::int64_t> pod_requests;  // per configured resource
};

class NodeResourcesBalancedAllocation {
 public:
  schedhost::Status SignPod(schedhost::Context&, const schedhost::Pod& pod,
                            schedhost::PodSignature& signature) const {
    schedhost::k8s::sign_requests(pod, signature);
    return {};
  }
  explicit NodeResourcesBalancedAllocation(const nlohmann::json& args)
      : resources_(parse_args(args)) {}

  schedhost::Status PreScore(schedhost::Context&, schedhost::CycleState& state,
                             const schedhost::Pod& pod, const schedhost::NodeList&) const {
    std::vector<std::int64_t> requests = nr::pod_requests(pod, resources_, false);
    // v1.35: a best-effort pod is not scored here, or they would all pile onto one node
    // (kubernetes/kubernetes#129138).
    if (best_effort(requests)) return schedhost::Status::Skip();
    state.emplace<PreScoreState>(kPreScoreStateKey, PreScoreState{std::move(requests)});
    return {};
  }

  schedhost::Status Score(schedhost::Context&, const schedhost::CycleState& state,
                          const schedhost::Pod& pod, const schedhost::NodeInfo& node,
                          std::int64_t& score) const {
    // PreScore's state, or the same computation when PreScore did not run (as upstream).
    const auto* s = state.read<PreScoreState>(kPreScoreStateKey);
    std::vector<std::int64_t> computed;
    if (s == nullptr) {
      computed = nr::pod_requests(pod, resources_, false);
      if (best_effort(computed)) {
        score = 0;
        return {};
      }
    }
    score = score_node(node, s != nullptr ? s->pod_requests : computed);
    return {};
  }

 private:
  static bool best_effort(const std::vector<std::int64_t>& requests) {
    return std::all_of(requests.begin(), requests.end(), [](std::int64_t r) { return r == 0; });
  }

  std::int64_t score_node(const schedhost::NodeInfo& node,
                          const std::vector<std::int64_t>& pod_requests) const {
    // The fractions, in configuration order; no allocation for the usual handful of resources.
    constexpr std::size_t kInline = 8;
    std::array<double, kInline> inline_fractions{};
    std::vector<double> more_fractions;
    std::size_t count = 0;
    double total = 0;
    nr::for_each_scored_resource(
        node, resources_, pod_requests, true,
        [&](std::size_t, std::int64_t allocatable, std::int64_t requested) {
          double fraction = static_cast<double>(requested) / static_cast<double>(allocatable);
          if (fraction > 1) fraction = 1;
          total += fraction;
          if (count < kInline) {
            inline_fractions[count] = fraction;
          } else {
            more_fractions.push_back(fraction);
          }
          ++count;
        });
    auto fraction_at = [&](std::size_t i) {
      return i < kInline ? inline_fractions[i] : more_fractions[i - kInline];
    };
    double std_dev = 0;
    if (count == 2) {
      std_dev = std::abs((fraction_at(0) - fraction_at(1)) / 2);
    } else if (count > 2) {
      const double mean = total / static_cast<double>(count);
      double sum = 0;
      for (std::size_t i = 0; i < count; ++i) {
        const double d = fraction_at(i) - mean;
        sum = sum + d * d;
      }
      std_dev = std::sqrt(sum / static_cast<double>(count));
    }
    return static_cast<std::int64_t>((1 - std_dev) * kMaxNodeScore);
  }

  const std::vector<nr::ResourceSpec> resources_;
};

}  // namespace

SCHEDHOST_LIBRARY("node-resources-balanced-allocation", "1.0.0",
                  schedhost::plugin<NodeResourcesBalancedAllocation, schedhost::hook::PreScore,
                                    schedhost::hook::Score, schedhost::hook::SignPod>(
                      "NodeResourcesBalancedAllocation",
                      "Upstream NodeResourcesBalancedAllocation (v1.28): prefers nodes whose "
                      "resource usage fractions stay close to each other"))
