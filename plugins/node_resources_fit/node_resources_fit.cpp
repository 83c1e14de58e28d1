// NodeResourcesFit: upstream kube-scheduler v1.35's plugin of that name (pkg/scheduler/framework/
// plugins/noderesources/fit.go), decision for decision.
//
// PreFilter  stores the pod's request (init containers' peak vs. the sum of the containers and
//            sidecars, plus overhead; no defaults) under "PreFilterNodeResourcesFit".
// Filter     Unschedulable with every reason that applies, in this order: "Too many pods" (the
//            node's pods + 1 > allocatable pods, even for a pod requesting nothing), then, for a
//            pod requesting something, "Insufficient cpu", "Insufficient memory",
//            "Insufficient ephemeral-storage" (request > allocatable - requested, each only when
//            requested), and "Insufficient <name>" for each scalar resource (extended, hugepages-*,
//            *kubernetes.io/*, attachable-volumes-*) with a non-zero request, skipping extended
//            resources named in ignoredResources or whose prefix before '/' is in
//            ignoredResourceGroups. UnschedulableAndUnresolvable instead when one of those
//            requests is larger than the node's allocatable (v1.35: preemption cannot help
//            there). Without the PreFilter state: Error
//            `error reading "PreFilterNodeResourcesFit" from cycleState: not found`.
// PreScore   stores the pod's request per scoring resource (cpu 100m / memory 200Mi for each
//            container missing them) under "PreScoreNodeResourcesFit"; Score recomputes it when
//            PreScore did not run.
// Score      per scoringStrategy.resources entry r with weight w (skipped: allocatable 0, a scalar
//            resource the pod does not request, names the scheduler does not account), with
//            req = node non-zero requested (cpu, memory) or requested (others) + pod request:
//              LeastAllocated  s = req > alloc ? 0 : (alloc - req) * 100 / alloc
//              MostAllocated   s = min(req, alloc) * 100 / alloc
//              RequestedToCapacityRatio  s = f(req > alloc ? 100 : req * 100 / alloc), f the
//                              broken-linear shape (scores x10), only s > 0 counted
//            score = sum(s * w) / sum(w) (int64 division; math.Round for
//            RequestedToCapacityRatio), 0 when nothing is scored. No NormalizeScore.
// EnqueueExtensions (v1.35: queueing hints and InPlacePodVerticalScaling on, DRAExtendedResource
//            off): a pod delete (queues unless the pod was neither scheduled nor nominated), a
//            pod scale-down (queues for the pending pod itself, or when a scheduled pod's request
//            for something the pending pod requests shrank), a node add or allocatable update
//            (queues when the pod fits the empty node and, for an update, the node's allocatable
//            pods or a resource the pod requests grew).
//
// Args (NodeResourcesFitArgs v1beta3), defaulted and validated as upstream (NewFit), with
// upstream's field error messages:
//   ignoredResources       list of resource names (label-name syntax)
//   ignoredResourceGroups  list of prefixes (label-name syntax, no '/')
//   scoringStrategy        {type: LeastAllocated (default) | MostAllocated |
//                           RequestedToCapacityRatio, resources: [{name, weight}] (default cpu
//                           and memory, weight 1; weight 0 means 1; else 1..100),
//                           requestedToCapacityRatio: {shape: [{utilization 0..100 increasing,
//                           score 0..10}]}}
//
// Choices where upstream panics or depends on a feature gate: RequestedToCapacityRatio without
// requestedToCapacityRatio is refused like an empty shape (upstream dereferences nil); pods with
// sidecar (restartable init) containers are admitted and accounted (SidecarContainers on, as the
// host's request model is).
#include <schedhost/k8s/signers.hpp>
#include <schedhost/plugin.hpp>

#include "noderesources_common.hpp"

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

namespace nr = schedhost_noderesources;

constexpr std::string_view kPreFilterStateKey = "PreFilterNodeResourcesFit";
constexpr std::string_view kPreScoreStateKey = "PreScoreNodeResourcesFit";
constexpr std::int64_t kMaxNodeScore = 100;
constexpr std::int64_t kMaxUtilization = 100;
constexpr std::int64_t kMaxCustomPriorityScore = 10;

enum class Strategy { LeastAllocated, MostAllocated, RequestedToCapacityRatio };

struct ShapePoint {
  std::int64_t utilization;
  std::int64_t score;  // scaled to 0..100
};

struct FitArgs {
  std::set<std::string, std::less<>> ignored_resources;
  std::set<std::string, std::less<>> ignored_resource_groups;
  Strategy strategy = Strategy::LeastAllocated;
  std::vector<nr::ResourceSpec> resources;
  std::vector<ShapePoint> shape;
};

struct RawShapePoint {
  std::int64_t utilization = 0;
  std::int64_t score = 0;
};

void validate_shape(const std::vector<RawShapePoint>& shape, nr::FieldErrors& errors) {
  const std::string path = "scoringStrategy.shape";
  if (shape.empty()) {
    errors.required(path, "at least one point must be specified");
    return;
  }
  for (std::size_t i = 1; i < shape.size(); ++i) {
    if (shape[i - 1].utilization >= shape[i].utilization) {
      errors.invalid(path + "[" + std::to_string(i) + "].utilization",
                     std::to_string(shape[i].utilization),
                     "utilization values must be sorted in increasing order");
      break;
    }
  }
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const std::string point = path + "[" + std::to_string(i) + "]";
    if (shape[i].utilization < 0 || shape[i].utilization > kMaxUtilization) {
      errors.invalid(point + ".utilization", std::to_string(shape[i].utilization),
                     "not in valid range [0, 100]");
    }
    if (shape[i].score < 0 || shape[i].score > kMaxCustomPriorityScore) {
      errors.invalid(point + ".score", std::to_string(shape[i].score),
                     "not in valid range [0, 10]");
    }
  }
}

std::vector<std::string> read_string_list(const nlohmann::json* list, const std::string& path) {
  std::vector<std::string> out;
  if (list == nullptr) return out;
  nr::expect_array(*list, path);
  for (std::size_t i = 0; i < list->size(); ++i) {
    out.push_back(nr::expect_string((*list)[i], path + "[" + std::to_string(i) + "]"));
  }
  return out;
}

FitArgs parse_args(const nlohmann::json& json) {
  if (!json.is_object()) {
    nr::refuse("args must be an object (NodeResourcesFitArgs), got " + json.dump());
  }
  nr::check_fields(json, "", {"ignoredResources", "ignoredResourceGroups", "scoringStrategy"});
  const std::vector<std::string> ignored =
      read_string_list(nr::member(json, "ignoredResources"), "ignoredResources");
  const std::vector<std::string> groups =
      read_string_list(nr::member(json, "ignoredResourceGroups"), "ignoredResourceGroups");

  // scoringStrategy, defaulted as SetDefaults_NodeResourcesFitArgs.
  std::string type = "LeastAllocated";
  const nlohmann::json* resources = nullptr;
  bool has_ratio = false;
  std::vector<RawShapePoint> raw_shape;
  if (const nlohmann::json* strategy = nr::member(json, "scoringStrategy")) {
    nr::expect_object(*strategy, "scoringStrategy");
    nr::check_fields(*strategy, "scoringStrategy",
                     {"type", "resources", "requestedToCapacityRatio"});
    type.clear();
    if (const auto* t = nr::member(*strategy, "type")) {
      type = nr::expect_string(*t, "scoringStrategy.type");
    }
    resources = nr::member(*strategy, "resources");
    if (const auto* ratio = nr::member(*strategy, "requestedToCapacityRatio")) {
      const std::string ratio_path = "scoringStrategy.requestedToCapacityRatio";
      nr::expect_object(*ratio, ratio_path);
      nr::check_fields(*ratio, ratio_path, {"shape"});
      has_ratio = true;
      if (const auto* shape = nr::member(*ratio, "shape")) {
        nr::expect_array(*shape, ratio_path + ".shape");
        for (std::size_t i = 0; i < shape->size(); ++i) {
          const std::string point_path = ratio_path + ".shape[" + std::to_string(i) + "]";
          const nlohmann::json& point = nr::expect_object((*shape)[i], point_path);
          nr::check_fields(point, point_path, {"utilization", "score"});
          RawShapePoint raw;
          constexpr std::int64_t kInt32Min = std::numeric_limits<std::int32_t>::min();
          constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();
          if (const auto* u = nr::member(point, "utilization")) {
            raw.utilization =
                nr::expect_integer(*u, point_path + ".utilization", kInt32Min, kInt32Max);
          }
          if (const auto* s = nr::member(point, "score")) {
            raw.score = nr::expect_integer(*s, point_path + ".score", kInt32Min, kInt32Max);
          }
          raw_shape.push_back(raw);
        }
      }
    }
  }

  FitArgs args;
  args.resources = nr::read_resources(resources, "scoringStrategy.resources");

  // ValidateNodeResourcesFitArgs, in upstream's order.
  nr::FieldErrors errors;
  for (std::size_t i = 0; i < ignored.size(); ++i) {
    for (const std::string& msg : nr::qualified_name_errors(ignored[i])) {
      errors.invalid("ignoredResources[" + std::to_string(i) + "]", nr::go_quote(ignored[i]), msg);
    }
  }
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const std::string path = "ignoredResourceGroups[" + std::to_string(i) + "]";
    if (groups[i].find('/') != std::string::npos) {
      errors.invalid(path, nr::go_quote(groups[i]), "resource group name can't contain '/'");
    }
    for (const std::string& msg : nr::qualified_name_errors(groups[i])) {
      errors.invalid(path, nr::go_quote(groups[i]), msg);
    }
  }
  if (type == "LeastAllocated") {
    args.strategy = Strategy::LeastAllocated;
  } else if (type == "MostAllocated") {
    args.strategy = Strategy::MostAllocated;
  } else if (type == "RequestedToCapacityRatio") {
    args.strategy = Strategy::RequestedToCapacityRatio;
  } else {
    errors.unsupported("scoringStrategy.type", nr::go_quote(type),
                       {"LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"});
  }
  for (std::size_t i = 0; i < args.resources.size(); ++i) {
    const nr::ResourceSpec& r = args.resources[i];
    if (r.weight <= 0 || r.weight > 100) {
      errors.invalid("scoringStrategy.resources[" + std::to_string(i) + "].weight",
                     std::to_string(r.weight),
                     "resource weight of " + r.name + " not in valid range (0, 100]");
    }
  }
  if (has_ratio || args.strategy == Strategy::RequestedToCapacityRatio) {
    validate_shape(raw_shape, errors);
  }
  errors.throw_if_any();

  args.ignored_resources.insert(ignored.begin(), ignored.end());
  args.ignored_resource_groups.insert(groups.begin(), groups.end());
  for (const RawShapePoint& p : raw_shape) {
    args.shape.push_back({p.utilization, p.score * (kMaxNodeScore / kMaxCustomPriorityScore)});
  }
  return args;
}

// What Filter needs of the pod, computed once per pod by PreFilter.
struct PreFilterState {
  std::int64_t milli_cpu = 0;
  std::int64_t memory = 0;
  std::int64_t ephemeral_storage = 0;
  bool has_scalar = false;  // any scalar resource in the request, even at 0
  // The scalar resources Filter checks: non-zero and not ignored, in the host's order.
  std::vector<std::pair<std::string, std::int64_t>> scalars;
};

struct PreScoreState {
  std::vector<std::int64_t> pod_requests;  // per scoringStrategy.resources entry
};

// upstream computePodResourceRequest: the pod's request, every non-zero scalar resource kept.
PreFilterState request_of(const schedhost::Pod& pod) {
  PreFilterState s;
  for (const schedhost::ResourceAmount r : pod.requests()) {
    if (r.name == nr::kCpu) {
      s.milli_cpu = r.value;
    } else if (r.name == nr::kMemory) {
      s.memory = r.value;
    } else if (r.name == nr::kEphemeralStorage) {
      s.ephemeral_storage = r.value;
    } else if (nr::is_scalar_resource_name(r.name)) {
      s.has_scalar = true;
      if (r.value != 0) s.scalars.emplace_back(std::string(r.name), r.value);
    }
  }
  return s;
}

bool requests_nothing(const PreFilterState& s) {
  return s.milli_cpu == 0 && s.memory == 0 && s.ephemeral_storage == 0 && !s.has_scalar;
}

// upstream isFit: whether the pod fits the node with none of its pods (what the Node alone
// offers), ignoring no resource.
bool fits_empty_node(const PreFilterState& s, const schedhost::NodeInfo& node) {
  if (node.allocatable(nr::kPods) < 1) return false;
  if (requests_nothing(s)) return true;
  if (s.milli_cpu > node.allocatable(nr::kCpu)) return false;
  if (s.memory > node.allocatable(nr::kMemory)) return false;
  if (s.ephemeral_storage > node.allocatable(nr::kEphemeralStorage)) return false;
  for (const auto& [name, quantity] : s.scalars) {
    if (quantity > node.allocatable(name)) return false;
  }
  return true;
}

// upstream haveAnyRequestedResourcesIncreased: more pods allowed, or more of something the pod
// requests.
bool requested_resources_increased(const PreFilterState& s, const schedhost::NodeInfo& before,
                                   const schedhost::NodeInfo& after) {
  const auto grew = [&](std::string_view name) {
    return after.allocatable(name) > before.allocatable(name);
  };
  if (grew(nr::kPods)) return true;
  if (requests_nothing(s)) return false;
  if ((s.milli_cpu > 0 && grew(nr::kCpu)) || (s.memory > 0 && grew(nr::kMemory)) ||
      (s.ephemeral_storage > 0 && grew(nr::kEphemeralStorage))) {
    return true;
  }
  for (const auto& scalar : s.scalars) {
    if (grew(scalar.first)) return true;
  }
  return false;
}

// upstream isSchedulableAfterPodScaleDown: the pending pod itself shrank, or a scheduled pod's
// request for something the pending pod requests went down.
bool scaled_down_for(const schedhost::Pod& pod, const schedhost::Pod& before,
                     const schedhost::Pod& after) {
  if (after.uid() == pod.uid()) return true;
  if (after.node_name().empty()) return false;
  for (const schedhost::ResourceAmount r : pod.requests()) {
    if (r.value == 0) continue;
    const bool accounted = r.name == nr::kCpu || r.name == nr::kMemory ||
                           r.name == nr::kEphemeralStorage || nr::is_scalar_resource_name(r.name);
    if (accounted && before.request(r.name) > after.request(r.name)) return true;
  }
  return false;
}

class NodeResourcesFit {
 public:
  // Opportunistic batching: the pod's requests are all Filter and Score read of it.
  schedhost::Status SignPod(schedhost::Context&, const schedhost::Pod& pod,
                            schedhost::PodSignature& signature) const {
    schedhost::k8s::sign_requests(pod, signature);
    return {};
  }
  // Upstream's EventsToRegister (v1.35: queueing hints and InPlacePodVerticalScaling on; no
  // DeviceClass events, DRAExtendedResource being off).
  void EventsToRegister(schedhost::EventRegistry& events) const {
    events.add(schedhost::resource::kPod,
               schedhost::action::kDelete | schedhost::action::kUpdatePodScaleDown);
    events.add(schedhost::resource::kNode,
               schedhost::action::kAdd | schedhost::action::kUpdateNodeAllocatable);
  }

  schedhost::QueueingHint IsSchedulableAfter(const schedhost::Pod& pod,
                                             const schedhost::ClusterEvent& event) const {
    if (event.resource == schedhost::resource::kPod) return after_pod_event(pod, event);
    return after_node_change(pod, event);
  }

  explicit NodeResourcesFit(const nlohmann::json& args) : args_(parse_args(args)) {}

  schedhost::Status PreFilter(schedhost::Context&, schedhost::CycleState& state,
                              const schedhost::Pod& pod, schedhost::PreFilterResult&) const {
    auto s = std::make_unique<PreFilterState>(request_of(pod));
    std::erase_if(s->scalars, [&](const auto& scalar) { return ignored(scalar.first); });
    state.write(kPreFilterStateKey, std::move(s));
    return {};
  }

  schedhost::Status Filter(schedhost::Context&, const schedhost::CycleState& state,
                           const schedhost::Pod&, const schedhost::NodeInfo& node) const {
    const auto* s = state.read<PreFilterState>(kPreFilterStateKey);
    if (s == nullptr) {
      return schedhost::Status::Error(
          "error reading \"PreFilterNodeResourcesFit\" from cycleState: not found");
    }
    std::vector<std::string> reasons;
    // v1.35: a request larger than the node's whole allocatable makes the node
    // UnschedulableAndUnresolvable (no preemption can make room there).
    bool unresolvable = false;
    auto insufficient = [&](std::string reason, std::int64_t request, std::string_view resource) {
      reasons.push_back(std::move(reason));
      if (request > node.allocatable(resource)) unresolvable = true;
    };
    const auto pods = static_cast<std::int64_t>(node.pods().size());
    if (pods + 1 > node.allocatable(nr::kPods)) reasons.emplace_back("Too many pods");
    if (!requests_nothing(*s)) {
      if (s->milli_cpu > 0 && s->milli_cpu > free(node, nr::kCpu)) {
        insufficient("Insufficient cpu", s->milli_cpu, nr::kCpu);
      }
      if (s->memory > 0 && s->memory > free(node, nr::kMemory)) {
        insufficient("Insufficient memory", s->memory, nr::kMemory);
      }
      if (s->ephemeral_storage > 0 && s->ephemeral_storage > free(node, nr::kEphemeralStorage)) {
        insufficient("Insufficient ephemeral-storage", s->ephemeral_storage, nr::kEphemeralStorage);
      }
      for (const auto& [name, quantity] : s->scalars) {
        if (quantity > free(node, name)) insufficient("Insufficient " + name, quantity, name);
      }
    }
    if (reasons.empty()) return {};
    return {unresolvable ? schedhost::Code::UnschedulableAndUnresolvable
                         : schedhost::Code::Unschedulable,
            std::move(reasons)};
  }

  schedhost::Status PreScore(schedhost::Context&, schedhost::CycleState& state,
                             const schedhost::Pod& pod, const schedhost::NodeList&) const {
    state.emplace<PreScoreState>(kPreScoreStateKey,
                                 PreScoreState{nr::pod_requests(pod, args_.resources, true)});
    return {};
  }

  schedhost::Status Score(schedhost::Context&, const schedhost::CycleState& state,
                          const schedhost::Pod& pod, const schedhost::NodeInfo& node,
                          std::int64_t& score) const {
    // PreScore's state, or the same computation when PreScore did not run (as upstream).
    const auto* s = state.read<PreScoreState>(kPreScoreStateKey);
    std::vector<std::int64_t> computed;
    if (s == nullptr) computed = nr::pod_requests(pod, args_.resources, true);
    score = score_node(node, s != nullptr ? s->pod_requests : computed);
    return {};
  }

 private:
  // upstream isSchedulableAfterPodEvent: a deleted pod frees room only if it was scheduled or
  // nominated; an update counts only as scaleDownFor says.
  static schedhost::QueueingHint after_pod_event(const schedhost::Pod& pod,
                                                 const schedhost::ClusterEvent& event) {
    using schedhost::QueueingHint;
    if (!event.new_pod) {
      if (!event.old_pod) return QueueingHint::kQueue;
      const bool unscheduled =
          event.old_pod->node_name().empty() && event.old_pod->nominated_node_name().empty();
      return unscheduled ? QueueingHint::kSkip : QueueingHint::kQueue;
    }
    if (!event.old_pod) return QueueingHint::kQueue;
    return scaled_down_for(pod, *event.old_pod, *event.new_pod) ? QueueingHint::kQueue
                                                                : QueueingHint::kSkip;
  }

  // upstream isSchedulableAfterNodeChange.
  static schedhost::QueueingHint after_node_change(const schedhost::Pod& pod,
                                                   const schedhost::ClusterEvent& event) {
    using schedhost::QueueingHint;
    if (!event.new_node) return QueueingHint::kQueue;
    const PreFilterState request = request_of(pod);
    if (!fits_empty_node(request, *event.new_node)) return QueueingHint::kSkip;
    if (!event.old_node) return QueueingHint::kQueue;  // added
    return requested_resources_increased(request, *event.old_node, *event.new_node)
               ? QueueingHint::kQueue
               : QueueingHint::kSkip;
  }

  bool ignored(std::string_view name) const {
    if (!nr::is_extended_resource_name(name)) return false;  // native names are never ignored
    if (args_.ignored_resources.count(name) != 0) return true;
    if (args_.ignored_resource_groups.empty()) return false;
    return args_.ignored_resource_groups.count(name.substr(0, name.find('/'))) != 0;
  }

  static std::int64_t free(const schedhost::NodeInfo& node, std::string_view resource) {
    return nr::go_sub(node.allocatable(resource), node.requested(resource));
  }

  // helper.BuildBrokenLinearFunction over the scaled shape.
  std::int64_t shape_score(std::int64_t p) const {
    const std::vector<ShapePoint>& shape = args_.shape;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      if (p <= shape[i].utilization) {
        if (i == 0) return shape[0].score;
        return shape[i - 1].score + (shape[i].score - shape[i - 1].score) *
                                        (p - shape[i - 1].utilization) /
                                        (shape[i].utilization - shape[i - 1].utilization);
      }
    }
    return shape.back().score;
  }

  std::int64_t resource_score(std::int64_t requested, std::int64_t capacity) const {
    switch (args_.strategy) {
      case Strategy::LeastAllocated:
        if (requested > capacity) return 0;
        return nr::go_div(nr::go_mul(nr::go_sub(capacity, requested), kMaxNodeScore), capacity);
      case Strategy::MostAllocated:
        if (requested > capacity) requested = capacity;
        return nr::go_div(nr::go_mul(requested, kMaxNodeScore), capacity);
      case Strategy::RequestedToCapacityRatio:
        if (requested > capacity) return shape_score(kMaxUtilization);
        return shape_score(nr::go_div(nr::go_mul(requested, kMaxUtilization), capacity));
    }
    return 0;
  }

  std::int64_t score_node(const schedhost::NodeInfo& node,
                          const std::vector<std::int64_t>& pod_requests) const {
    std::int64_t node_score = 0;
    std::int64_t weight_sum = 0;
    const bool ratio = args_.strategy == Strategy::RequestedToCapacityRatio;
    nr::for_each_scored_resource(
        node, args_.resources, pod_requests, false,
        [&](std::size_t i, std::int64_t allocatable, std::int64_t requested) {
          const std::int64_t s = resource_score(requested, allocatable);
          if (ratio && s <= 0) return;  // RequestedToCapacityRatio counts positive scores only
          const std::int64_t weight = args_.resources[i].weight;
          node_score = nr::go_add(node_score, nr::go_mul(s, weight));
          weight_sum = nr::go_add(weight_sum, weight);
        });
    if (weight_sum == 0) return 0;
    if (ratio) {
      return static_cast<std::int64_t>(
          std::round(static_cast<double>(node_score) / static_cast<double>(weight_sum)));
    }
    return nr::go_div(node_score, weight_sum);
  }

  const FitArgs args_;
};

}  // namespace

SCHEDHOST_LIBRARY(
    "node-resources-fit", "1.0.0",
    schedhost::plugin<NodeResourcesFit, schedhost::hook::PreFilter, schedhost::hook::Filter,
                      schedhost::hook::PreScore, schedhost::hook::Score,
                      schedhost::hook::EnqueueExtensions, schedhost::hook::SignPod>(
        "NodeResourcesFit",
        "Upstream NodeResourcesFit (v1.35): filters nodes without room for the "
        "pod's requests; scores by LeastAllocated, MostAllocated or "
        "RequestedToCapacityRatio"))
