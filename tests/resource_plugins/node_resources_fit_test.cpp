// NodeResourcesFit (plugins/node_resources_fit), the real built-in .so: the cases of upstream
// v1.35's fit_test.go (v1.28's cases and the pod-level ones), least_allocated_test.go,
// most_allocated_test.go and requested_to_capacity_ratio_test.go (inputs and expected verdicts,
// reasons and scores), and every args validation message of NewFit / ValidateNodeResourcesFitArgs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "case_name.hpp"
#include "resource_harness.hpp"

namespace schedhost {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::IsEmpty;
using testing::node;
using testing::NodePtr;
using testing::Outcome;
using testing::PodBuilder;
using testing::PodPtr;
using J = nlohmann::json;

constexpr const char* kPlugin = "NodeResourcesFit";
constexpr const char* kExtA = "example.com/aaa";
constexpr const char* kExtB = "example.com/bbb";
constexpr const char* kK8sIoA = "kubernetes.io/something";
constexpr const char* kK8sIoB = "subdomain.kubernetes.io/something";
constexpr const char* kHugePageA = "hugepages-2Mi";

// A container's requests: cpu in millicores, memory in bytes, plus other resources as counts.
J res(std::int64_t milli_cpu, std::int64_t memory, const J& others = J::object()) {
  J out = {{"cpu", std::to_string(milli_cpu) + "m"}, {"memory", std::to_string(memory)}};
  for (const auto& [name, value] : others.items())
    out[name] = std::to_string(value.get<std::int64_t>());
  return out;
}
J scalar(const char* name, std::int64_t value) {
  return J{{name, value}};
}

class FitTest : public ::testing::Test {
 protected:
  testing::PluginHarness harness_{"node_resources_fit.so"};

  std::unique_ptr<framework::PluginInstance> create(const std::string& args = "{}") const {
    return harness_.create(kPlugin, args);
  }
  std::string error(const std::string& args) const { return harness_.create_error(kPlugin, args); }
};

TEST_F(FitTest, ImplementsUpstreamsExtensionPointsAndNoNormalizeScore) {
  const auto& vtable = harness_.definition(kPlugin).vtable;
  EXPECT_NE(vtable.pre_filter, nullptr);
  EXPECT_NE(vtable.filter, nullptr);
  EXPECT_NE(vtable.pre_score, nullptr);
  EXPECT_NE(vtable.score, nullptr);
  EXPECT_EQ(vtable.normalize_score, nullptr);
  EXPECT_EQ(vtable.add_pod, nullptr);
  EXPECT_EQ(vtable.remove_pod, nullptr);
}

// ---- Filter (upstream TestEnoughRequests, TestNotEnoughRequests, TestStorageRequests) ----

struct FilterCase {
  std::string name;
  PodPtr pod;
  J existing;        // requests of the one pod already on the node
  J allocatable;     // the node's allocatable
  std::string args;  // NodeResourcesFitArgs
  schedhost_code_t code;
  std::vector<std::string> reasons;
};

// upstream makeAllocatableResources(10, 20, 32, 5, 20, 5)
J enough_allocatable() {
  return {
      {"cpu", "10m"},   {"memory", "20"}, {"pods", "32"}, {kExtA, "5"}, {"ephemeral-storage", "20"},
      {kHugePageA, "5"}};
}
// upstream makeAllocatableResources(10, 20, 1, 0, 0, 0)
J one_pod_allocatable() {
  return {{"cpu", "10m"}, {"memory", "20"},           {"pods", "1"},
          {kExtA, "0"},   {"ephemeral-storage", "0"}, {kHugePageA, "0"}};
}

PodBuilder pod() {
  return PodBuilder("incoming");
}

FilterCase fits(std::string name, PodPtr pod, J existing, std::string args = "{}") {
  return {std::move(name),
          std::move(pod),
          std::move(existing),
          enough_allocatable(),
          std::move(args),
          SCHEDHOST_SUCCESS,
          {}};
}
FilterCase fails(std::string name, PodPtr pod, J existing, std::vector<std::string> reasons,
                 std::string args = "{}") {
  return {std::move(name), std::move(pod),          std::move(existing), enough_allocatable(),
          std::move(args), SCHEDHOST_UNSCHEDULABLE, std::move(reasons)};
}

// v1.35: a request larger than the node's whole allocatable cannot be helped by preemption.
FilterCase unresolvable(std::string name, PodPtr pod, J existing, std::vector<std::string> reasons,
                        std::string args = "{}") {
  FilterCase c = fails(std::move(name), std::move(pod), std::move(existing), std::move(reasons),
                       std::move(args));
  c.code = SCHEDHOST_UNSCHEDULABLE_AND_UNRESOLVABLE;
  return c;
}

std::vector<FilterCase> filter_cases() {
  std::vector<FilterCase> cases = {
      fits("no resources requested always fits", pod().build(), res(10, 20)),
      fails("too many resources fails", pod().container(res(1, 1)).build(), res(10, 20),
            {"Insufficient cpu", "Insufficient memory"}),
      fails("too many resources fails due to init container cpu",
            pod().container(res(1, 1)).init_container(res(3, 1)).build(), res(8, 19),
            {"Insufficient cpu"}),
      fails("too many resources fails due to highest init container cpu",
            pod().container(res(1, 1)).init_container(res(3, 1)).init_container(res(2, 1)).build(),
            res(8, 19), {"Insufficient cpu"}),
      fails("too many resources fails due to init container memory",
            pod().container(res(1, 1)).init_container(res(1, 3)).build(), res(9, 19),
            {"Insufficient memory"}),
      fails("too many resources fails due to highest init container memory",
            pod().container(res(1, 1)).init_container(res(1, 3)).init_container(res(1, 2)).build(),
            res(9, 19), {"Insufficient memory"}),
      fits("init container fits because it's the max, not sum, of containers and init containers",
           pod().container(res(1, 1)).init_container(res(1, 1)).build(), res(9, 19)),
      fits("multiple init containers fit because it's the max, not sum, of containers and init "
           "containers",
           pod().container(res(1, 1)).init_container(res(1, 1)).init_container(res(1, 1)).build(),
           res(9, 19)),
      fits("both resources fit", pod().container(res(1, 1)).build(), res(5, 5)),
      fails("one resource memory fits", pod().container(res(2, 1)).build(), res(9, 5),
            {"Insufficient cpu"}),
      fails("one resource cpu fits", pod().container(res(1, 2)).build(), res(5, 19),
            {"Insufficient memory"}),
      fits("equal edge case", pod().container(res(5, 1)).build(), res(5, 19)),
      // Pod-level resources (v1.35): the pod's own cpu and memory requests stand for its
      // containers' total, whatever that is.
      fits("pod-level requests fit where the containers' total would not",
           pod().container(res(9, 9)).pod_requests(res(1, 2)).build(), res(5, 5)),
      fails("pod-level cpu does not fit", pod().container().pod_requests(res(7, 2)).build(),
            res(5, 5), {"Insufficient cpu"}),
      fails("pod-level memory does not fit", pod().container().pod_requests(res(1, 17)).build(),
            res(5, 5), {"Insufficient memory"}),
      fails("pod-level cpu and memory do not fit",
            pod().container(res(1, 1)).pod_requests(res(7, 17)).build(), res(5, 5),
            {"Insufficient cpu", "Insufficient memory"}),
      fits("equal edge case for init container",
           pod().container(res(4, 1)).init_container(res(5, 1)).build(), res(5, 19)),
      fits("extended resource fits", pod().container(res(0, 0, scalar(kExtA, 1))).build(),
           res(0, 0)),
      fits("extended resource fits for init container",
           pod().container(res(0, 0)).init_container(res(0, 0, scalar(kExtA, 1))).build(),
           res(0, 0)),
      unresolvable("extended resource capacity enforced",
                   pod().container(res(1, 1, scalar(kExtA, 10))).build(),
                   res(0, 0, scalar(kExtA, 0)), {"Insufficient example.com/aaa"}),
      unresolvable("extended resource capacity enforced for init container",
                   pod().container(res(0, 0)).init_container(res(1, 1, scalar(kExtA, 10))).build(),
                   res(0, 0, scalar(kExtA, 0)), {"Insufficient example.com/aaa"}),
      fails("extended resource allocatable enforced",
            pod().container(res(1, 1, scalar(kExtA, 1))).build(), res(0, 0, scalar(kExtA, 5)),
            {"Insufficient example.com/aaa"}),
      fails("extended resource allocatable enforced for init container",
            pod().container(res(0, 0)).init_container(res(1, 1, scalar(kExtA, 1))).build(),
            res(0, 0, scalar(kExtA, 5)), {"Insufficient example.com/aaa"}),
      unresolvable("extended resource allocatable enforced for multiple containers",
                   pod()
                       .container(res(1, 1, scalar(kExtA, 3)))
                       .container(res(1, 1, scalar(kExtA, 3)))
                       .build(),
                   res(0, 0, scalar(kExtA, 2)), {"Insufficient example.com/aaa"}),
      fits("extended resource allocatable admits multiple init containers",
           pod()
               .container(res(0, 0))
               .init_container(res(1, 1, scalar(kExtA, 3)))
               .init_container(res(1, 1, scalar(kExtA, 3)))
               .build(),
           res(0, 0, scalar(kExtA, 2))),
      unresolvable("extended resource allocatable enforced for multiple init containers",
                   pod()
                       .container(res(0, 0))
                       .init_container(res(1, 1, scalar(kExtA, 6)))
                       .init_container(res(1, 1, scalar(kExtA, 3)))
                       .build(),
                   res(0, 0, scalar(kExtA, 2)), {"Insufficient example.com/aaa"}),
      unresolvable("extended resource allocatable enforced for unknown resource",
                   pod().container(res(1, 1, scalar(kExtB, 1))).build(), res(0, 0),
                   {"Insufficient example.com/bbb"}),
      unresolvable("extended resource allocatable enforced for unknown resource for init container",
                   pod().container(res(0, 0)).init_container(res(1, 1, scalar(kExtB, 1))).build(),
                   res(0, 0), {"Insufficient example.com/bbb"}),
      unresolvable("kubernetes.io resource capacity enforced",
                   pod().container(res(1, 1, scalar(kK8sIoA, 10))).build(), res(0, 0),
                   {"Insufficient kubernetes.io/something"}),
      unresolvable(
          "kubernetes.io resource capacity enforced for init container",
          pod().container(res(0, 0)).init_container(res(1, 1, scalar(kK8sIoB, 10))).build(),
          res(0, 0), {"Insufficient subdomain.kubernetes.io/something"}),
      unresolvable("hugepages resource capacity enforced",
                   pod().container(res(1, 1, scalar(kHugePageA, 10))).build(),
                   res(0, 0, scalar(kHugePageA, 0)), {"Insufficient hugepages-2Mi"}),
      unresolvable(
          "hugepages resource capacity enforced for init container",
          pod().container(res(0, 0)).init_container(res(1, 1, scalar(kHugePageA, 10))).build(),
          res(0, 0, scalar(kHugePageA, 0)), {"Insufficient hugepages-2Mi"}),
      unresolvable("hugepages resource allocatable enforced for multiple containers",
                   pod()
                       .container(res(1, 1, scalar(kHugePageA, 3)))
                       .container(res(1, 1, scalar(kHugePageA, 3)))
                       .build(),
                   res(0, 0, scalar(kHugePageA, 2)), {"Insufficient hugepages-2Mi"}),
      fits("skip checking ignored extended resource",
           pod().container(res(1, 1, scalar(kExtB, 1))).build(), res(0, 0),
           R"({"ignoredResources": ["example.com/bbb"]})"),
      fits("resources + pod overhead fits",
           pod().container(res(1, 1)).overhead({{"cpu", "3m"}, {"memory", "13"}}).build(),
           res(5, 5)),
      fails("requests + overhead does not fit for memory",
            pod().container(res(1, 1)).overhead({{"cpu", "1m"}, {"memory", "15"}}).build(),
            res(5, 5), {"Insufficient memory"}),
      unresolvable("skip checking ignored extended resource via resource groups",
                   pod().container(res(1, 1, {{kExtB, 1}, {kK8sIoA, 1}})).build(), res(0, 0),
                   {"Insufficient kubernetes.io/something"},
                   R"({"ignoredResourceGroups": ["example.com"]})"),
      fits("skip checking extended resource request with quantity zero via resource groups",
           pod().container(res(1, 1, scalar(kExtA, 0))).build(), res(0, 0, scalar(kExtA, 6))),
      fits("skip checking resource request with quantity zero",
           pod().container(J{{kExtA, "1"}}).build(), res(20, 30, scalar(kExtA, 1))),
      // upstream TestStorageRequests
      fits("empty storage requested, and pod fits", pod().container(res(1, 1)).build(), res(2, 10)),
      unresolvable("storage ephemeral local storage request exceeds allocatable",
                   pod().container(J{{"ephemeral-storage", "25"}}).build(), res(2, 2),
                   {"Insufficient ephemeral-storage"}),
      fits("ephemeral local storage is sufficient",
           pod().container(J{{"ephemeral-storage", "5"}}).build(),
           res(2, 2, scalar("ephemeral-storage", 10))),
      fits("storage pod fits", pod().container(J{{"ephemeral-storage", "10"}}).build(), res(2, 2)),
      // Beyond upstream's table: every reason at once, in upstream's order.
      unresolvable("every reason at once",
                   pod().container(res(11, 21, {{"ephemeral-storage", 21}, {kExtA, 6}})).build(),
                   res(0, 0),
                   {"Insufficient cpu", "Insufficient memory", "Insufficient ephemeral-storage",
                    "Insufficient example.com/aaa"}),
      unresolvable(
          "native kubernetes.io resources cannot be ignored",
          pod().container(res(1, 1, scalar(kK8sIoA, 1))).build(), res(0, 0),
          {"Insufficient kubernetes.io/something"},
          R"({"ignoredResources": ["kubernetes.io/something"], "ignoredResourceGroups": ["kubernetes.io"]})"),
      // Sidecars (restartable init containers) run next to the containers (1 + 2), and an init
      // container after a sidecar runs next to it (8 + 2): the pod needs the larger, 10.
      fits("sidecar requests are accounted, fits",
           pod().container(res(1, 1)).sidecar(res(2, 1)).init_container(res(8, 1)).build(),
           res(0, 0)),
      unresolvable("sidecar requests are accounted, does not fit",
                   pod().sidecar(res(2, 1)).init_container(res(9, 1)).build(), res(0, 0),
                   {"Insufficient cpu"}),
  };
  // upstream TestNotEnoughRequests: allocatable pods 1 and one pod already there.
  auto too_many = [](std::string name, PodPtr p, J existing,
                     std::vector<std::string> reasons = {"Too many pods"}) {
    return FilterCase{std::move(name),       std::move(p), std::move(existing),
                      one_pod_allocatable(), "{}",         SCHEDHOST_UNSCHEDULABLE,
                      std::move(reasons)};
  };
  cases.push_back(too_many(
      "even without specified resources, predicate fails when there's no space for additional pod",
      pod().build(), res(10, 20)));
  cases.push_back(too_many(
      "even if both resources fit, predicate fails when there's no space for additional pod",
      pod().container(res(1, 1)).build(), res(5, 5)));
  cases.push_back(
      too_many("even for equal edge case, predicate fails when there's no space for additional pod",
               pod().container(res(5, 1)).build(), res(5, 19)));
  cases.push_back(
      too_many("even for equal edge case, predicate fails when there's no space for "
               "additional pod due to init container",
               pod().container(res(5, 1)).init_container(res(5, 1)).build(), res(5, 19)));
  cases.push_back(too_many("too many pods comes first, then the resources",
                           pod().container(res(6, 2)).build(), res(5, 19),
                           {"Too many pods", "Insufficient cpu", "Insufficient memory"}));
  return cases;
}

class FitFilterTest : public FitTest, public ::testing::WithParamInterface<FilterCase> {};

TEST_P(FitFilterTest, Filter) {
  const FilterCase& c = GetParam();
  const cluster::Snapshot snapshot(
      {node("node", c.allocatable)},
      {PodBuilder("existing").container(c.existing).on("node").build()});
  const auto plugin = create(c.args);
  const Outcome out = testing::prefilter_and_filter(*plugin, snapshot, *c.pod, "node");
  EXPECT_EQ(out.code, c.code);
  EXPECT_THAT(out.reasons, ElementsAreArray(c.reasons));
}

INSTANTIATE_TEST_SUITE_P(Upstream, FitFilterTest, ::testing::ValuesIn(filter_cases()),
                         [](const auto& info) { return testing::case_name(info.param.name); });

TEST_F(FitTest, FilterWithoutPreFilterStateIsAnError) {
  const cluster::Snapshot snapshot({node("node", enough_allocatable())}, {});
  const auto plugin = create();
  const Outcome out =
      testing::prefilter_and_filter(*plugin, snapshot, *pod().build(), "node", false);
  EXPECT_EQ(out.code, SCHEDHOST_ERROR);
  EXPECT_THAT(
      out.reasons,
      ElementsAre("error reading \"PreFilterNodeResourcesFit\" from cycleState: not found"));
}

TEST_F(FitTest, ANodeWithoutAllocatablePodsHasRoomForNone) {
  const cluster::Snapshot snapshot({node("node", {{"cpu", "1"}})}, {});
  const auto plugin = create();
  const Outcome out = testing::prefilter_and_filter(*plugin, snapshot, *pod().build(), "node");
  EXPECT_EQ(out.code, SCHEDHOST_UNSCHEDULABLE);
  EXPECT_THAT(out.reasons, ElementsAre("Too many pods"));
}

// ---- Score ----

struct ScoreCase {
  std::string name;
  std::string args;
  PodPtr pod;
  std::vector<NodePtr> nodes;
  std::vector<PodPtr> existing;
  std::vector<std::int64_t> scores;
};

// upstream st.MakeNode().Capacity(...): capacity and allocatable.
NodePtr cap_node(const std::string& name, const J& allocatable) {
  return node(name, allocatable);
}
J cores(const char* cpu, const char* memory, const J& others = J::object()) {
  J out = {{"cpu", cpu}, {"memory", memory}};
  for (const auto& [k, v] : others.items())
    out[k] = v;
  return out;
}
// upstream st.MakePod().Req(...): one container per Req.
PodPtr req_pod(const std::string& name, const std::vector<J>& containers,
               const std::string& node_name = "") {
  PodBuilder b(name);
  for (const J& c : containers)
    b.container(c);
  if (!node_name.empty()) b.on(node_name);
  return b.build();
}
J creq(const char* cpu, const char* memory, const J& others = J::object()) {
  return cores(cpu, memory, others);
}

const char* const kLeast = R"({"scoringStrategy": {"type": "LeastAllocated"}})";
const char* const kMost = R"({"scoringStrategy": {"type": "MostAllocated"}})";
const char* const kExtRes = "abc.com/xyz";
const char* const kExtendedSet =
    R"([{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}, {"name": "abc.com/xyz", "weight": 1}])";

std::string strategy(const std::string& type, const std::string& resources,
                     const std::string& shape = "") {
  std::string out = R"({"scoringStrategy": {"type": ")" + type + R"(", "resources": )" + resources;
  if (!shape.empty()) out += R"(, "requestedToCapacityRatio": {"shape": )" + shape + "}";
  return out + "}}";
}

std::vector<ScoreCase> score_cases() {
  const std::vector<NodePtr> n4_6 = {cap_node("node1", cores("4000", "10000")),
                                     cap_node("node2", cores("6000", "10000"))};
  const std::vector<NodePtr> n4_4 = {cap_node("node1", cores("4000", "10000")),
                                     cap_node("node2", cores("4000", "10000"))};
  const std::vector<NodePtr> n10_10 = {cap_node("node1", cores("10000", "20000")),
                                       cap_node("node2", cores("10000", "20000"))};
  const std::vector<PodPtr> fit_existing = {req_pod("e1", {creq("2000", "4000")}, "node1"),
                                            req_pod("e2", {creq("1000", "2000")}, "node2")};
  const PodPtr p3000_5000 = req_pod("p", {creq("3000", "5000")});
  const PodPtr p1000_2000 = req_pod("p", {creq("1000", "2000")});
  const PodPtr two_containers = req_pod("p", {creq("1000", "2000"), creq("2000", "3000")});
  const PodPtr empty = PodBuilder("p").build();
  const std::vector<PodPtr> empty_pods_on_both = {
      PodBuilder("e1").on("node1").build(), PodBuilder("e2").on("node1").build(),
      PodBuilder("e3").on("node2").build(), PodBuilder("e4").on("node2").build()};
  const std::vector<PodPtr> cpu_heavy_existing = {
      req_pod("e1", {creq("3000", "0")}, "node1"), req_pod("e2", {creq("3000", "0")}, "node1"),
      req_pod("e3", {creq("3000", "0")}, "node2"), req_pod("e4", {creq("3000", "5000")}, "node2")};
  const std::vector<PodPtr> one_each = {req_pod("e1", {creq("3000", "0")}, "node1"),
                                        req_pod("e2", {creq("3000", "5000")}, "node2")};
  const std::vector<NodePtr> ext_bypass = {
      cap_node("node1", cores("6000", "10000")),
      cap_node("node2", cores("6000", "10000", {{kExtRes, "4"}}))};
  const std::vector<NodePtr> ext_honor = {
      cap_node("node1", cores("6000", "10000", {{kExtRes, "4"}})),
      cap_node("node2", cores("6000", "10000", {{kExtRes, "10"}}))};
  const PodPtr ext_pod = req_pod("p", {creq("3000", "5000", {{kExtRes, "2"}})});
  const std::string ext_weighted =
      R"([{"name": "abc.com/xyz", "weight": 2}, {"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}])";
  const std::string mem2_cpu1 =
      R"([{"name": "memory", "weight": 2}, {"name": "cpu", "weight": 1}])";
  const std::string default_shape =
      R"([{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}])";

  return {
      // upstream TestFitScore
      {"RequestedToCapacityRatio case1",
       strategy("RequestedToCapacityRatio", "[]", default_shape),
       p3000_5000,
       n4_6,
       fit_existing,
       {10, 32}},
      {"RequestedToCapacityRatio case2",
       strategy("RequestedToCapacityRatio", "[]",
                R"([{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}])"),
       p3000_5000,
       n4_6,
       fit_existing,
       {95, 68}},
      {"MostAllocated", kMost, p1000_2000, n4_6, fit_existing, {67, 36}},
      {"LeastAllocated", kLeast, p1000_2000, n4_6, fit_existing, {32, 63}},
      {"LeastAllocated is the default", "{}", p1000_2000, n4_6, fit_existing, {32, 63}},
      // upstream TestLeastAllocatedScoringStrategy
      {"least nothing scheduled, nothing requested", kLeast, empty, n4_4, {}, {100, 100}},
      {"least nothing scheduled, resources requested, differently sized nodes",
       kLeast,
       two_containers,
       n4_6,
       {},
       {37, 50}},
      {"least no resources requested, pods scheduled",
       kLeast,
       empty,
       n4_4,
       empty_pods_on_both,
       {100, 100}},
      {"least no resources requested, pods scheduled with resources",
       kLeast,
       empty,
       n10_10,
       cpu_heavy_existing,
       {70, 57}},
      {"least resources requested, pods scheduled with resources",
       kLeast,
       two_containers,
       n10_10,
       one_each,
       {57, 45}},
      {"least resources requested, pods scheduled with resources, differently sized nodes",
       kLeast,
       two_containers,
       {cap_node("node1", cores("10000", "20000")), cap_node("node2", cores("10000", "50000"))},
       one_each,
       {57, 60}},
      {"least requested resources exceed node capacity",
       kLeast,
       req_pod("p", {creq("3000", "0")}),
       n4_4,
       one_each,
       {50, 25}},
      {"least zero node resources, pods scheduled with resources",
       kLeast,
       empty,
       {cap_node("node1", J::object()), cap_node("node2", J::object())},
       one_each,
       {0, 0}},
      {"least different weight on CPU and memory",
       strategy("LeastAllocated", mem2_cpu1),
       two_containers,
       n4_6,
       {},
       {41, 50}},
      {"least a weight of 0 is defaulted to 1",
       strategy("LeastAllocated",
                R"([{"name": "memory", "weight": 1}, {"name": "cpu", "weight": 0}])"),
       two_containers,
       n4_6,
       {},
       {37, 50}},
      {"least bypass extended resource if the pod does not request",
       strategy("LeastAllocated", kExtendedSet),
       two_containers,
       ext_bypass,
       {},
       {50, 50}},
      {"least honor extended resource if the pod requests",
       strategy("LeastAllocated", kExtendedSet),
       ext_pod,
       ext_honor,
       {},
       {50, 60}},
      {"least if the node doesn't have a resource",
       strategy("LeastAllocated", ext_weighted),
       req_pod("p", {creq("3000", "4000")}),
       ext_bypass,
       {},
       {55, 55}},
      // upstream TestMostAllocatedScoringStrategy
      {"most nothing scheduled, nothing requested", kMost, empty, n4_4, {}, {0, 0}},
      {"most nothing scheduled, resources requested, differently sized nodes",
       kMost,
       two_containers,
       n4_6,
       {},
       {62, 50}},
      {"most no resources requested, pods scheduled with resources",
       kMost,
       empty,
       n10_10,
       cpu_heavy_existing,
       {30, 42}},
      {"most resources requested, pods scheduled with resources",
       kMost,
       two_containers,
       n10_10,
       one_each,
       {42, 55}},
      {"most resources requested equal node capacity",
       kMost,
       req_pod("p", {creq("2000", "4000"), creq("3000", "5000")}),
       {cap_node("node1", cores("5000", "10000")), cap_node("node2", cores("10000", "9000"))},
       {},
       {95, 75}},
      {"most different weight on CPU and memory",
       strategy("MostAllocated", mem2_cpu1),
       two_containers,
       n4_6,
       {},
       {58, 50}},
      {"most no resources requested, pods scheduled, nonzero request for resource",
       kMost,
       PodBuilder("p").container().build(),
       {cap_node("node1", cores("250m", "1000Mi")), cap_node("node2", cores("250m", "1000Mi"))},
       {PodBuilder("e1").container().on("node1").build(),
        PodBuilder("e2").container().on("node1").build()},
       {80, 30}},
      {"most bypass extended resource if the pod does not request",
       strategy("MostAllocated", kExtendedSet),
       two_containers,
       ext_bypass,
       {},
       {50, 50}},
      {"most honor extended resource if the pod request",
       strategy("MostAllocated", kExtendedSet),
       ext_pod,
       ext_honor,
       {},
       {50, 40}},
      {"most if the node doesn't have a resource",
       strategy("MostAllocated", ext_weighted),
       req_pod("p", {creq("3000", "4000")}),
       ext_bypass,
       {},
       {45, 45}},
      // upstream TestRequestedToCapacityRatioScoringStrategy
      {"ratio nothing scheduled, nothing requested",
       strategy("RequestedToCapacityRatio", "[]", default_shape),
       empty,
       n4_4,
       {PodBuilder("e1").on("node1").build(), PodBuilder("e2").on("node1").build()},
       {100, 100}},
      {"ratio nothing scheduled, resources requested, differently sized nodes",
       strategy("RequestedToCapacityRatio", "[]", default_shape),
       two_containers,
       n4_6,
       {PodBuilder("e1").on("node1").build(), PodBuilder("e2").on("node1").build()},
       {38, 50}},
      {"ratio no resources requested, pods scheduled with resources",
       strategy("RequestedToCapacityRatio", "[]", default_shape),
       empty,
       n4_6,
       {req_pod("e1", {creq("3000", "5000")}, "node1"),
        req_pod("e2", {creq("3000", "5000")}, "node2")},
       {38, 50}},
  };
}

class FitScoreTest : public FitTest, public ::testing::WithParamInterface<ScoreCase> {};

TEST_P(FitScoreTest, ScoreAfterPreScore) {
  const ScoreCase& c = GetParam();
  const cluster::Snapshot snapshot(c.nodes, c.existing);
  const auto plugin = create(c.args);
  EXPECT_THAT(testing::prescore_and_score(*plugin, snapshot, *c.pod), ElementsAreArray(c.scores));
}

TEST_P(FitScoreTest, ScoreWithoutPreScore) {
  const ScoreCase& c = GetParam();
  const cluster::Snapshot snapshot(c.nodes, c.existing);
  const auto plugin = create(c.args);
  EXPECT_THAT(testing::prescore_and_score(*plugin, snapshot, *c.pod, false),
              ElementsAreArray(c.scores));
}

INSTANTIATE_TEST_SUITE_P(Upstream, FitScoreTest, ::testing::ValuesIn(score_cases()),
                         [](const auto& info) { return testing::case_name(info.param.name); });

// upstream TestResourceBinPackingSingleExtended: one extended resource, shape (0,0) (100,1).
TEST_F(FitTest, RequestedToCapacityRatioSingleExtendedResource) {
  const auto plugin =
      create(strategy("RequestedToCapacityRatio", R"([{"name": "intel.com/foo", "weight": 1}])",
                      R"([{"utilization": 0, "score": 0}, {"utilization": 100, "score": 1}])"));
  const std::vector<NodePtr> nodes = {
      node("node1", {{"cpu", "4"}, {"memory", "10000Mi"}, {"intel.com/foo", "8"}}),
      node("node2", {{"cpu", "4"}, {"memory", "10000Mi"}, {"intel.com/foo", "4"}})};
  const auto foo = [](const char* n) { return J{{"intel.com/foo", n}}; };
  {
    const cluster::Snapshot snapshot(nodes, {});
    EXPECT_THAT(testing::prescore_and_score(*plugin, snapshot, *PodBuilder("p").build()),
                ElementsAre(0, 0));
    EXPECT_THAT(testing::prescore_and_score(*plugin, snapshot,
                                            *PodBuilder("p").container(foo("2")).build()),
                ElementsAre(2, 5));
    EXPECT_THAT(testing::prescore_and_score(*plugin, snapshot,
                                            *PodBuilder("p").container(foo("4")).build()),
                ElementsAre(5, 10));
  }
  const cluster::Snapshot busy(nodes, {PodBuilder("e").container(foo("2")).on("node2").build()});
  EXPECT_THAT(
      testing::prescore_and_score(*plugin, busy, *PodBuilder("p").container(foo("2")).build()),
      ElementsAre(2, 10));
}

// Broken-linear interpolation truncates toward zero, as Go's int64 division (upstream
// TestBrokenLinearFunction's second shape: (0,2) (40,10) (100,0)).
TEST_F(FitTest, RequestedToCapacityRatioInterpolatesWithGoIntegerDivision) {
  const auto plugin = create(strategy(
      "RequestedToCapacityRatio", R"([{"name": "intel.com/foo", "weight": 1}])",
      R"([{"utilization": 0, "score": 2}, {"utilization": 40, "score": 10}, {"utilization": 100, "score": 0}])"));
  const cluster::Snapshot snapshot(
      {node("u20", {{"intel.com/foo", "10"}}), node("u50", {{"intel.com/foo", "4"}}),
       node("u70", {{"intel.com/foo", "20"}}), node("over", {{"intel.com/foo", "1"}})},
      {PodBuilder("e").container(J{{"intel.com/foo", "12"}}).on("u70").build()});
  // 20% -> 20 + 80*20/40 = 60; 50% -> 100 + (-100)*10/60 = 84 (-16.67 truncated); 70% -> 50;
  // over capacity -> f(100) = 0, which counts for nothing.
  EXPECT_THAT(testing::prescore_and_score(
                  *plugin, snapshot, *PodBuilder("p").container(J{{"intel.com/foo", "2"}}).build()),
              ElementsAre(60, 84, 50, 0));
}

// ---- Args ----

TEST_F(FitTest, AcceptsValidArgs) {
  EXPECT_EQ(error("{}"), "<no error>");
  EXPECT_EQ(
      error(
          R"({"ignoredResources": ["example.com/aaa", "foo"], "ignoredResourceGroups": ["example.com"]})"),
      "<no error>");
  EXPECT_EQ(error(R"({"scoringStrategy": null})"), "<no error>");
  EXPECT_EQ(
      error(
          R"({"apiVersion": "kubescheduler.config.k8s.io/v1beta3", "kind": "NodeResourcesFitArgs"})"),
      "<no error>");
  EXPECT_EQ(error(strategy("MostAllocated", R"([{"name": "cpu", "weight": 100}])")), "<no error>");
}

const std::string kQualifiedNameRegex =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

TEST_F(FitTest, RefusesInvalidIgnoredResources) {
  const std::string p = "plugin \"NodeResourcesFit\": ";
  EXPECT_EQ(error(R"({"ignoredResources": ["example.com/bbb", "example.com/aaa/bbb"]})"),
            p + "ignoredResources[1]: Invalid value: \"example.com/aaa/bbb\": a qualified name " +
                kQualifiedNameRegex +
                " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
  const std::string long_name(64, 'a');
  EXPECT_EQ(error(R"({"ignoredResources": [")" + long_name + "\"]}"),
            p + "ignoredResources[0]: Invalid value: \"" + long_name +
                "\": name part must be no more than 63 characters");
  EXPECT_EQ(error(R"({"ignoredResources": [""]})"),
            p +
                "[ignoredResources[0]: Invalid value: \"\": name part must be non-empty, "
                "ignoredResources[0]: Invalid value: \"\": name part " +
                kQualifiedNameRegex + "]");
  EXPECT_EQ(
      error(R"({"ignoredResources": ["Example.com/aaa"]})"),
      p + "ignoredResources[0]: Invalid value: \"Example.com/aaa\": prefix part a lowercase "
          "RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
          "and must start and end with an alphanumeric character (e.g. 'example.com', regex "
          "used for validation is "
          "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
}

TEST_F(FitTest, RefusesInvalidIgnoredResourceGroups) {
  const std::string p = "plugin \"NodeResourcesFit\": ";
  EXPECT_EQ(error(R"({"ignoredResourceGroups": ["example.com/aa"]})"),
            p + "ignoredResourceGroups[0]: Invalid value: \"example.com/aa\": resource group name "
                "can't contain '/'");
  EXPECT_EQ(error(R"({"ignoredResourceGroups": ["example.com/aaa/bbb"]})"),
            p +
                "[ignoredResourceGroups[0]: Invalid value: \"example.com/aaa/bbb\": resource group "
                "name can't contain '/', ignoredResourceGroups[0]: Invalid value: "
                "\"example.com/aaa/bbb\": a qualified name " +
                kQualifiedNameRegex +
                " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')]");
  const std::string long_name(64, 'a');
  EXPECT_EQ(error(R"({"ignoredResourceGroups": [")" + long_name + "\"]}"),
            p + "ignoredResourceGroups[0]: Invalid value: \"" + long_name +
                "\": name part must be no more than 63 characters");
}

TEST_F(FitTest, RefusesAnUnsupportedScoringStrategy) {
  EXPECT_EQ(
      error(R"({"scoringStrategy": {"type": "Invalid"}})"),
      "plugin \"NodeResourcesFit\": scoringStrategy.type: Unsupported value: \"Invalid\": "
      "supported values: \"LeastAllocated\", \"MostAllocated\", \"RequestedToCapacityRatio\"");
  EXPECT_EQ(
      error(R"({"scoringStrategy": {}})"),
      "plugin \"NodeResourcesFit\": scoringStrategy.type: Unsupported value: \"\": "
      "supported values: \"LeastAllocated\", \"MostAllocated\", \"RequestedToCapacityRatio\"");
}

TEST_F(FitTest, RefusesResourceWeightsOutsideOneToHundred) {
  EXPECT_EQ(error(strategy("LeastAllocated",
                           R"([{"name": "memory", "weight": -1}, {"name": "cpu", "weight": 1}])")),
            "plugin \"NodeResourcesFit\": scoringStrategy.resources[0].weight: Invalid value: -1: "
            "resource weight of memory not in valid range (0, 100]");
  EXPECT_EQ(error(strategy("MostAllocated",
                           R"([{"name": "memory", "weight": 1}, {"name": "cpu", "weight": 101}])")),
            "plugin \"NodeResourcesFit\": scoringStrategy.resources[1].weight: Invalid value: 101: "
            "resource weight of cpu not in valid range (0, 100]");
}

TEST_F(FitTest, RefusesInvalidShapes) {
  const std::string p = "plugin \"NodeResourcesFit\": ";
  EXPECT_EQ(error(strategy("RequestedToCapacityRatio", "[]", "[]")),
            p + "scoringStrategy.shape: Required value: at least one point must be specified");
  // Upstream dereferences the missing requestedToCapacityRatio; refused like an empty shape.
  EXPECT_EQ(error(strategy("RequestedToCapacityRatio", "[]")),
            p + "scoringStrategy.shape: Required value: at least one point must be specified");
  EXPECT_EQ(
      error(strategy("RequestedToCapacityRatio", "[]",
                     R"([{"utilization": 10, "score": 1}, {"utilization": 10, "score": 2}])")),
      p + "scoringStrategy.shape[1].utilization: Invalid value: 10: utilization values must "
          "be sorted in increasing order");
  EXPECT_EQ(
      error(strategy("RequestedToCapacityRatio", "[]",
                     R"([{"utilization": 0, "score": 1}, {"utilization": 101, "score": 2}])")),
      p + "scoringStrategy.shape[1].utilization: Invalid value: 101: not in valid range "
          "[0, 100]");
  EXPECT_EQ(
      error(strategy("RequestedToCapacityRatio", "[]", R"([{"utilization": 0, "score": 11}])")),
      p + "scoringStrategy.shape[0].score: Invalid value: 11: not in valid range [0, 10]");
  // Validated whatever the type, as upstream does when requestedToCapacityRatio is set.
  EXPECT_EQ(error(strategy("LeastAllocated", "[]", R"([{"utilization": -1, "score": -1}])")),
            p + "[scoringStrategy.shape[0].utilization: Invalid value: -1: not in valid range "
                "[0, 100], scoringStrategy.shape[0].score: Invalid value: -1: not in valid range "
                "[0, 10]]");
}

TEST_F(FitTest, ReportsEveryErrorAtOnceInUpstreamsOrder) {
  EXPECT_EQ(error(R"({"ignoredResourceGroups": ["a/b"], "scoringStrategy": {"type": "X",
                      "resources": [{"name": "cpu", "weight": 200}],
                      "requestedToCapacityRatio": {"shape": []}}})"),
            "plugin \"NodeResourcesFit\": [ignoredResourceGroups[0]: Invalid value: \"a/b\": "
            "resource group name can't contain '/', scoringStrategy.type: Unsupported value: "
            "\"X\": supported values: \"LeastAllocated\", \"MostAllocated\", "
            "\"RequestedToCapacityRatio\", scoringStrategy.resources[0].weight: Invalid value: "
            "200: resource weight of cpu not in valid range (0, 100], scoringStrategy.shape: "
            "Required value: at least one point must be specified]");
}

TEST_F(FitTest, RefusesUnknownFieldsAndWrongTypes) {
  const std::string p = "plugin \"NodeResourcesFit\": ";
  EXPECT_EQ(error(R"({"ignoredResource": []})"),
            p + "strict decoding error: unknown field \"ignoredResource\"");
  EXPECT_EQ(error(R"({"scoringStrategy": {"type": "LeastAllocated", "shape": []}})"),
            p + "strict decoding error: unknown field \"scoringStrategy.shape\"");
  EXPECT_EQ(error(R"({"scoringStrategy": {"resources": [{"name": "cpu", "weigth": 1}]}})"),
            p + "strict decoding error: unknown field \"scoringStrategy.resources[0].weigth\"");
  EXPECT_EQ(error(R"({"ignoredResources": "example.com/a"})"),
            p + "ignoredResources: must be a list, got \"example.com/a\"");
  EXPECT_EQ(error(R"({"scoringStrategy": {"type": 1}})"),
            p + "scoringStrategy.type: must be a string, got 1");
  EXPECT_EQ(error(strategy("LeastAllocated", R"([{"name": "cpu", "weight": 1.5}])")),
            p + "scoringStrategy.resources[0].weight: must be an integer, got 1.5");
  EXPECT_EQ(error(strategy("RequestedToCapacityRatio", "[]",
                           R"([{"utilization": 4294967296, "score": 1}])")),
            p + "scoringStrategy.requestedToCapacityRatio.shape[0].utilization: 4294967296 does "
                "not fit its integer type");
  EXPECT_EQ(error("[]"), p + "args must be an object (NodeResourcesFitArgs), got []");
}

}  // namespace
}  // namespace schedhost
