// PodTopologySpread PreFilter / AddPod / RemovePod / Filter, with the cases of upstream's
// filtering_test.go (kubernetes 1.28 pkg/scheduler/framework/plugins/podtopologyspread, and the
// 1.35 cases whose constraints share a topology key): exact codes and reasons per node.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "topology_spread_runner.hpp"

namespace schedhost {
namespace {

using namespace testing::pts;  // NOLINT(google-build-using-namespace)
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::Json;
using testing::PluginHarness;
using ::testing::StartsWith;

const std::string kOk = "Success";
const std::string kSkew = std::to_string(kU) + ":" + kNotMatch;
const std::string kNoLabel = std::to_string(kUU) + ":" + kMissingLabel;

// node-a, node-b in zone1; node-x, node-y in zone2; each with its hostname.
std::vector<NodePtr> four_nodes() {
  return {make_node("node-a", {{"zone", "zone1"}, {kHostname, "node-a"}}),
          make_node("node-b", {{"zone", "zone1"}, {kHostname, "node-b"}}),
          make_node("node-x", {{"zone", "zone2"}, {kHostname, "node-x"}}),
          make_node("node-y", {{"zone", "zone2"}, {kHostname, "node-y"}})};
}

// `n` pods labelled foo on `node`, named <prefix>1..n.
std::vector<PodPtr> foo_pods(const std::string& node, const std::string& prefix, int n,
                             const std::string& label = "foo") {
  std::vector<PodPtr> pods;
  for (int i = 1; i <= n; ++i)
    pods.push_back(make_pod(prefix + std::to_string(i)).node(node).label(label).obj());
  return pods;
}

std::vector<PodPtr> concat(std::vector<std::vector<PodPtr>> parts) {
  std::vector<PodPtr> out;
  for (auto& p : parts)
    out.insert(out.end(), p.begin(), p.end());
  return out;
}

struct FilterCase {
  const char* name;
  PodPtr pod;
  std::vector<NodePtr> nodes;
  std::vector<PodPtr> existing;
  std::vector<std::string> want;  // per node, in node order
};

class PodTopologySpreadFilter : public ::testing::Test {
 protected:
  std::vector<std::string> run(const FilterCase& c, const std::string& args = "{}") {
    auto plugin = harness_.create("PodTopologySpread", args);
    Runner runner(*plugin, c.nodes, c.existing, c.pod);
    const PreFilterOutcome pre = runner.pre_filter();
    EXPECT_EQ(pre.code, kSuccess) << c.name;
    return runner.filter_all();
  }
  PluginHarness harness_{"pod_topology_spread.so"};
};

TEST_F(PodTopologySpreadFilter, SingleConstraint) {
  const Json zone_foo = spread(1, "zone", "DoNotSchedule", kFoo);
  const Json host_foo = spread(1, kHostname, "DoNotSchedule", kFoo);
  const std::vector<FilterCase> cases = {
      {"no existing pods",
       make_pod("p").label("foo").constraint(zone_foo).obj(),
       four_nodes(),
       {},
       {kOk, kOk, kOk, kOk}},
      {"no existing pods, incoming pod doesn't match itself",
       make_pod("p").label("foo").constraint(spread(1, "zone", "DoNotSchedule", kBar)).obj(),
       four_nodes(),
       {},
       {kOk, kOk, kOk, kOk}},
      {"existing pods in a different namespace do not count",
       make_pod("p").label("foo").constraint(zone_foo).obj(),
       four_nodes(),
       {make_pod("p-a1").ns("ns1").node("node-a").label("foo").obj(),
        make_pod("p-b1").node("node-b").label("foo").obj(),
        make_pod("p-x1").node("node-x").label("foo").obj(),
        make_pod("p-y1").node("node-y").label("foo").obj()},
       {kOk, kOk, kSkew, kSkew}},
      {"pods spread across zones as 3/3, all nodes fit",
       make_pod("p").label("foo").constraint(zone_foo).obj(),
       four_nodes(),
       concat({foo_pods("node-a", "p-a", 1), foo_pods("node-b", "p-b", 2),
               foo_pods("node-x", "p-x", 1), foo_pods("node-y", "p-y", 2)}),
       {kOk, kOk, kOk, kOk}},
      {"pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
       make_pod("p").label("foo").constraint(zone_foo).obj(),
       {make_node("node-a", {{"zone", "zone1"}, {kHostname, "node-a"}}),
        make_node("node-b", {{kHostname, "node-b"}}),
        make_node("node-x", {{"zone", "zone2"}, {kHostname, "node-x"}}),
        make_node("node-y", {{"zone", "zone2"}, {kHostname, "node-y"}})},
       concat({foo_pods("node-a", "p-a", 1), foo_pods("node-b", "p-b", 1),
               foo_pods("node-x", "p-x", 1), foo_pods("node-y", "p-y", 2)}),
       {kOk, kNoLabel, kSkew, kSkew}},
      {"pod cannot be scheduled as all nodes don't have label 'rack'",
       make_pod("p").label("foo").constraint(spread(1, "rack", "DoNotSchedule", kFoo)).obj(),
       {make_node("node-a", {{"zone", "zone1"}}), make_node("node-x", {{"zone", "zone2"}})},
       {},
       {kNoLabel, kNoLabel}},
      {"pods spread across nodes as 2/1/0/3, only node-x fits",
       make_pod("p").label("foo").constraint(host_foo).obj(),
       four_nodes(),
       concat({foo_pods("node-a", "p-a", 2), foo_pods("node-b", "p-b", 1),
               foo_pods("node-y", "p-y", 3)}),
       {kSkew, kSkew, kOk, kSkew}},
      {"pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
       make_pod("p").label("foo").constraint(spread(2, kHostname, "DoNotSchedule", kFoo)).obj(),
       four_nodes(),
       concat({foo_pods("node-a", "p-a", 2), foo_pods("node-b", "p-b", 1),
               foo_pods("node-y", "p-y", 3)}),
       {kSkew, kOk, kOk, kSkew}},
      {"pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
       make_pod("p").label("bar").constraint(host_foo).obj(),
       four_nodes(),
       concat({foo_pods("node-a", "p-a", 2), foo_pods("node-b", "p-b", 1),
               foo_pods("node-y", "p-y", 3)}),
       {kSkew, kOk, kOk, kSkew}},
      // Only node-a and node-y pass the pod's node affinity, so the minimum is node-a's 2; Filter
      // alone lets node-b and node-x through (NodeAffinity rejects them in a real cycle).
      {"incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
       make_pod("p")
           .label("foo")
           .constraint(host_foo)
           .spec("affinity",
                 {{"nodeAffinity",
                   {{"requiredDuringSchedulingIgnoredDuringExecution",
                     {{"nodeSelectorTerms",
                       Json::array({{{"matchExpressions",
                                      Json::array({{{"key", kHostname},
                                                    {"operator", "In"},
                                                    {"values", {"node-a", "node-y"}}}})}}})}}}}}})
           .obj(),
       four_nodes(),
       concat({foo_pods("node-a", "p-a", 2), foo_pods("node-b", "p-b", 1),
               foo_pods("node-y", "p-y", 3)}),
       {kOk, kOk, kOk, kSkew}},
      {"terminating Pods should be excluded",
       make_pod("p").label("foo").constraint(host_foo).obj(),
       {make_node("node-a", {{kHostname, "node-a"}}), make_node("node-b", {{kHostname, "node-b"}})},
       {make_pod("p-a").node("node-a").label("foo").terminating().obj(),
        make_pod("p-b").node("node-b").label("foo").obj()},
       {kOk, kSkew}},
      {"labelSelector missing (nil): matches nothing, so nothing is counted and the pod does "
       "not match itself",
       make_pod("p").label("foo").constraint(spread(1, kHostname, "DoNotSchedule", Json())).obj(),
       four_nodes(),
       foo_pods("node-a", "p-a", 3),
       {kOk, kOk, kOk, kOk}},
      {"empty labelSelector {}: upstream counts no existing pod but the pod matches itself",
       make_pod("p")
           .label("foo")
           .constraint(spread(1, kHostname, "DoNotSchedule", Json::object()))
           .obj(),
       four_nodes(),
       foo_pods("node-a", "p-a", 3),
       {kOk, kOk, kOk, kOk}},
      {"ScheduleAnyway constraints are not filtered",
       make_pod("p")
           .label("foo")
           .constraint(zone_foo)
           .constraint(spread(1, kHostname, "ScheduleAnyway", kFoo))
           .obj(),
       four_nodes(),
       foo_pods("node-a", "p-a", 3),
       {kSkew, kSkew, kOk, kOk}},
  };
  for (const FilterCase& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(run(c), c.want);
  }
}

TEST_F(PodTopologySpreadFilter, MinDomains) {
  // zone1 has 2 matching pods, zone2 has 1: two domains.
  const std::vector<PodPtr> pods =
      concat({foo_pods("node-a", "p-a", 2), foo_pods("node-x", "p-x", 1)});
  auto pod = [](int max_skew, int min_domains) {
    return make_pod("p")
        .label("foo")
        .constraint(spread(max_skew, "zone", "DoNotSchedule", kFoo, {{"minDomains", min_domains}}))
        .obj();
  };
  // minDomains 3 > 2 domains: the global minimum is 0.
  EXPECT_EQ(run({"minDomains 3, maxSkew 2", pod(2, 3), four_nodes(), pods, {}}),
            (std::vector<std::string>{kSkew, kSkew, kOk, kOk}));
  // minDomains 2 = 2 domains: the global minimum is zone2's 1.
  EXPECT_EQ(run({"minDomains 2, maxSkew 2", pod(2, 2), four_nodes(), pods, {}}),
            (std::vector<std::string>{kOk, kOk, kOk, kOk}));
  // minDomains 3 with 1/1: 1 + 1 - 0 = 2 > maxSkew 1 everywhere.
  EXPECT_EQ(run({"minDomains 3, 1/1",
                 pod(1, 3),
                 four_nodes(),
                 concat({foo_pods("node-a", "p-a", 1), foo_pods("node-x", "p-x", 1)}),
                 {}}),
            (std::vector<std::string>{kSkew, kSkew, kSkew, kSkew}));
}

TEST_F(PodTopologySpreadFilter, NodeInclusionPolicies) {
  // node-a (zone1, foo=""), node-x (zone2, no foo, tainted); one matching pod on node-a.
  const std::vector<NodePtr> nodes = {
      make_node("node-a", {{"zone", "zone1"}, {"foo", ""}}),
      make_node("node-x", {{"zone", "zone2"}},
                Json::array({{{"key", "k1"}, {"value", "v1"}, {"effect", "NoSchedule"}}}))};
  const std::vector<PodPtr> pods = foo_pods("node-a", "p-a", 1);
  auto pod = [](Json extra, bool node_selector) {
    PodBuilder b = make_pod("p");
    b.label("foo").constraint(spread(1, "zone", "DoNotSchedule", kFoo, std::move(extra)));
    if (node_selector) b.spec("nodeSelector", {{"foo", ""}});
    return b.obj();
  };
  // Honor (default): node-x fails the nodeSelector, so zone2 is no domain: min is 1.
  EXPECT_EQ(run({"NodeAffinityPolicy honored", pod({}, true), nodes, pods, {}}),
            (std::vector<std::string>{kOk, kOk}));
  // Ignore: zone2 counts with 0: node-a's 1 + 1 - 0 > 1.
  EXPECT_EQ(run({"NodeAffinityPolicy ignored",
                 pod({{"nodeAffinityPolicy", "Ignore"}}, true),
                 nodes,
                 pods,
                 {}}),
            (std::vector<std::string>{kSkew, kOk}));
  // Taints ignored (default): zone2 counts.
  EXPECT_EQ(run({"NodeTaintsPolicy ignored", pod({}, false), nodes, pods, {}}),
            (std::vector<std::string>{kSkew, kOk}));
  // Taints honored: node-x's taint is not tolerated, so zone2 is no domain.
  EXPECT_EQ(run({"NodeTaintsPolicy honored",
                 pod({{"nodeTaintsPolicy", "Honor"}}, false),
                 nodes,
                 pods,
                 {}}),
            (std::vector<std::string>{kOk, kOk}));
  // Taints honored but tolerated: zone2 counts again.
  PodPtr tolerating =
      make_pod("p")
          .label("foo")
          .constraint(spread(1, "zone", "DoNotSchedule", kFoo, {{"nodeTaintsPolicy", "Honor"}}))
          .spec("tolerations", Json::array({{{"key", "k1"}, {"operator", "Exists"}}}))
          .obj();
  EXPECT_EQ(run({"NodeTaintsPolicy honored, tolerated", tolerating, nodes, pods, {}}),
            (std::vector<std::string>{kSkew, kOk}));
}

TEST_F(PodTopologySpreadFilter, MatchLabelKeysNarrowTheSelector) {
  // zone1 holds two foo pods of version v2, zone2 one foo pod of version v1.
  const std::vector<PodPtr> pods = {
      make_pod("p-a1").node("node-a").label("foo").label("version", "v2").obj(),
      make_pod("p-a2").node("node-a").label("foo").label("version", "v2").obj(),
      make_pod("p-x1").node("node-x").label("foo").label("version", "v1").obj()};
  const PodPtr plain = make_pod("p")
                           .label("foo")
                           .label("version", "v1")
                           .constraint(spread(1, "zone", "DoNotSchedule", kFoo))
                           .obj();
  EXPECT_EQ(run({"without matchLabelKeys", plain, four_nodes(), pods, {}}),
            (std::vector<std::string>{kSkew, kSkew, kOk, kOk}));
  const PodPtr keyed = make_pod("p")
                           .label("foo")
                           .label("version", "v1")
                           .constraint(spread(1, "zone", "DoNotSchedule", kFoo,
                                              {{"matchLabelKeys", {"version", "absent"}}}))
                           .obj();
  EXPECT_EQ(run({"matchLabelKeys [version]", keyed, four_nodes(), pods, {}}),
            (std::vector<std::string>{kOk, kOk, kSkew, kSkew}));
  // A nil selector stays nil: matchLabelKeys cannot make it match anything.
  const PodPtr nil_selector =
      make_pod("p")
          .label("foo")
          .label("version", "v1")
          .constraint(spread(1, "zone", "DoNotSchedule", Json(), {{"matchLabelKeys", {"version"}}}))
          .obj();
  EXPECT_EQ(run({"matchLabelKeys with a nil selector", nil_selector, four_nodes(), pods, {}}),
            (std::vector<std::string>{kOk, kOk, kOk, kOk}));
}

TEST_F(PodTopologySpreadFilter, MultipleConstraints) {
  const Json zone_foo = spread(1, "zone", "DoNotSchedule", kFoo);
  const Json host_foo = spread(1, kHostname, "DoNotSchedule", kFoo);
  // zones 3/3, nodes 2/1/0/3: only node-x satisfies both.
  EXPECT_EQ(run({"two constraints on zone and node, spread = [3/3, 2/1/0/3]",
                 make_pod("p").label("foo").constraint(zone_foo).constraint(host_foo).obj(),
                 four_nodes(),
                 concat({foo_pods("node-a", "p-a", 2), foo_pods("node-b", "p-b", 1),
                         foo_pods("node-y", "p-y", 3)}),
                 {}}),
            (std::vector<std::string>{kSkew, kSkew, kOk, kSkew}));
  // zones 1/4 (foo), nodes 0/1/2/2 (bar): the zone constraint rules out zone2, the node one
  // node-b.
  EXPECT_EQ(run({"two constraints with different selectors",
                 make_pod("p")
                     .label("foo")
                     .label("bar")
                     .constraint(zone_foo)
                     .constraint(spread(1, kHostname, "DoNotSchedule", kBar))
                     .obj(),
                 four_nodes(),
                 {make_pod("p-a1").node("node-a").label("foo").obj(),
                  make_pod("p-b1").node("node-b").label("bar").obj(),
                  make_pod("p-x1").node("node-x").label("foo").label("bar").obj(),
                  make_pod("p-x2").node("node-x").label("foo").label("bar").obj(),
                  make_pod("p-y1").node("node-y").label("foo").label("bar").obj(),
                  make_pod("p-y2").node("node-y").label("foo").label("bar").obj()},
                 {}}),
            (std::vector<std::string>{kOk, kSkew, kSkew, kSkew}));
  // A node missing one of the keys is UnschedulableAndUnresolvable, and does not count.
  EXPECT_EQ(run({"node-b lacks the hostname key",
                 make_pod("p").label("foo").constraint(zone_foo).constraint(host_foo).obj(),
                 {make_node("node-a", {{"zone", "zone1"}, {kHostname, "node-a"}}),
                  make_node("node-b", {{"zone", "zone1"}}),
                  make_node("node-x", {{"zone", "zone2"}, {kHostname, "node-x"}})},
                 foo_pods("node-b", "p-b", 3),
                 {}}),
            (std::vector<std::string>{kOk, kNoLabel, kOk}));
}

// Upstream 1.35 keeps the Filter state per constraint (TpValueToMatchNum[i], CriticalPaths[i]):
// two constraints on one topology key are counted and checked each with its own selector. 1.28
// kept one count per key (the last constraint's), which the expectations below would not meet.
TEST_F(PodTopologySpreadFilter, ConstraintsSharingATopologyKey) {
  // node-a, node-b in zone1; node-x, node-y in zone2; hostnames under the key "node".
  const std::vector<NodePtr> nodes = {make_node("node-a", {{"zone", "zone1"}, {"node", "node-a"}}),
                                      make_node("node-b", {{"zone", "zone1"}, {"node", "node-b"}}),
                                      make_node("node-x", {{"zone", "zone2"}, {"node", "node-x"}}),
                                      make_node("node-y", {{"zone", "zone2"}, {"node", "node-y"}})};
  const Json zone_foo = spread(1, "zone", "DoNotSchedule", kFoo);
  const Json zone_bar = spread(1, "zone", "DoNotSchedule", kBar);
  const std::vector<FilterCase> cases = {
      // upstream TestPreFilterState "two spreadConstraints with the same topologyKey": the state
      // is TpValueToMatchNum [{zone1: 2, zone2: 1}, {zone1: 1, zone2: 3}], CriticalPaths
      // [{zone2 1, zone1 2}, {zone1 1, zone2 3}]. So foo rules out zone1 (2 + 1 - 1) and bar
      // zone2 (3 + 1 - 1). (1.28, counting bar for both: node-a and node-b fit.)
      {"two spreadConstraints with the same topologyKey",
       make_pod("p").label("foo").label("bar").constraint(zone_foo).constraint(zone_bar).obj(),
       nodes,
       {make_pod("p-a1").node("node-a").label("foo").label("bar").obj(),
        make_pod("p-b1").node("node-b").label("foo").obj(),
        make_pod("p-x1").node("node-x").label("bar").obj(),
        make_pod("p-y1").node("node-y").label("foo").label("bar").obj(),
        make_pod("p-y2").node("node-y").label("bar").obj()},
       {kSkew, kSkew, kSkew, kSkew}},
      // upstream TestPreFilterState "soft spreadConstraints should be bypassed": a ScheduleAnyway
      // constraint on the same key as a DoNotSchedule one does not count. State: zone
      // {zone1: 3, zone2: 4}, node {node-a: 2, node-b: 1, node-y: 4}.
      {"soft spreadConstraints should be bypassed",
       make_pod("p")
           .label("foo")
           .constraint(spread(1, "zone", "ScheduleAnyway", kFoo))
           .constraint(zone_foo)
           .constraint(spread(1, "node", "ScheduleAnyway", kFoo))
           .constraint(spread(1, "node", "DoNotSchedule", kFoo))
           .obj(),
       {nodes[0], nodes[1], nodes[3]},
       concat({foo_pods("node-a", "p-a", 2), foo_pods("node-b", "p-b", 1),
               foo_pods("node-y", "p-y", 4)}),
       {kSkew, kOk, kSkew}},
      // upstream TestMultipleConstraints "two Constraints on zone, spreads = [3/3, 2/1]": bar
      // (2/1) allows zone2 only, foo (3/3) any zone. (1.28, counting foo for both: all fit.)
      {"two Constraints on zone, spreads = [3/3, 2/1]",
       make_pod("p").label("foo").label("bar").constraint(zone_bar).constraint(zone_foo).obj(),
       nodes,
       {make_pod("p-a1").node("node-a").label("foo").label("bar").obj(),
        make_pod("p-a2").node("node-a").label("foo").obj(),
        make_pod("p-b1").node("node-b").label("foo").label("bar").obj(),
        make_pod("p-y1").node("node-y").label("foo").obj(),
        make_pod("p-y2").node("node-y").label("foo").label("bar").obj(),
        make_pod("p-y3").node("node-y").label("foo").obj()},
       {kSkew, kSkew, kOk, kOk}},
      // upstream TestMultipleConstraints "two Constraints on zone, spreads = [3/4, 2/1]": bar
      // allows zone2 only, foo (3/4) zone1 only: no node. (1.28: node-a and node-b fit.)
      {"two Constraints on zone, spreads = [3/4, 2/1]",
       make_pod("p").label("foo").label("bar").constraint(zone_bar).constraint(zone_foo).obj(),
       nodes,
       {make_pod("p-a1").node("node-a").label("foo").label("bar").obj(),
        make_pod("p-a2").node("node-a").label("foo").obj(),
        make_pod("p-b1").node("node-b").label("foo").label("bar").obj(),
        make_pod("p-y1").node("node-y").label("foo").obj(),
        make_pod("p-y2").node("node-y").label("foo").label("bar").obj(),
        make_pod("p-y3").node("node-y").label("foo").obj(),
        make_pod("p-y4").node("node-y").label("foo").obj()},
       {kSkew, kSkew, kSkew, kSkew}},
  };
  for (const FilterCase& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(run(c), c.want);
  }
}

// minDomains compares with the constraint's own number of domains (upstream 1.35
// len(TpValueToMatchNum[i])): two constraints on zone whose node inclusion policies count
// different nodes have different numbers of domains.
TEST_F(PodTopologySpreadFilter, MinDomainsPerConstraintOnASharedKey) {
  // node-a, node-b (zone1) are in the pool the pod's nodeSelector asks for; node-x, node-y
  // (zone2) are not.
  const std::vector<NodePtr> nodes = {make_node("node-a", {{"zone", "zone1"}, {"pool", "p"}}),
                                      make_node("node-b", {{"zone", "zone1"}, {"pool", "p"}}),
                                      make_node("node-x", {{"zone", "zone2"}}),
                                      make_node("node-y", {{"zone", "zone2"}})};
  // foo, nodeAffinityPolicy Honor: counts zone1 only, {zone1: 1}: 1 domain < minDomains 2, so
  // the global minimum is 0 and zone1 is out (1 + 1 - 0 > 1). bar, Ignore: {zone1: 1, zone2:
  // 1}, every zone fits. (1.28 counted 2 domains for the key zone, minimum 1: every node fit.)
  const PodPtr pod =
      make_pod("p")
          .label("foo")
          .label("bar")
          .spec("nodeSelector", {{"pool", "p"}})
          .constraint(spread(1, "zone", "DoNotSchedule", kFoo, {{"minDomains", 2}}))
          .constraint(spread(1, "zone", "DoNotSchedule", kBar, {{"nodeAffinityPolicy", "Ignore"}}))
          .obj();
  const std::vector<PodPtr> existing = {make_pod("p-a1").node("node-a").label("foo").obj(),
                                        make_pod("p-a2").node("node-a").label("bar").obj(),
                                        make_pod("p-x1").node("node-x").label("foo").obj(),
                                        make_pod("p-x2").node("node-x").label("bar").obj()};
  EXPECT_EQ(run({"minDomains per constraint", pod, nodes, existing, {}}),
            (std::vector<std::string>{kSkew, kSkew, kOk, kOk}));
}

TEST_F(PodTopologySpreadFilter, PreFilterSkipsWithoutHardConstraints) {
  auto plugin = harness_.create("PodTopologySpread", "{}");
  {
    Runner runner(*plugin, four_nodes(), {}, make_pod("p").label("foo").obj());
    EXPECT_EQ(runner.pre_filter().code, kSkip) << "no constraints; system defaults without "
                                                  "Services/ReplicaSets select nothing";
  }
  {
    Runner runner(
        *plugin, four_nodes(), {},
        make_pod("p").label("foo").constraint(spread(1, "zone", "ScheduleAnyway", kFoo)).obj());
    EXPECT_EQ(runner.pre_filter().code, kSkip);
  }
  auto listed = harness_.create(
      "PodTopologySpread",
      R"({"defaultingType":"List","defaultConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule"}]})");
  Runner runner(*listed, four_nodes(), {}, make_pod("p").label("foo").obj());
  EXPECT_EQ(runner.pre_filter().code, kSkip) << "List defaults, but nothing selects the pod";
}

TEST_F(PodTopologySpreadFilter, ErrorsWithUpstreamMessages) {
  auto plugin = harness_.create("PodTopologySpread", "{}");
  Runner no_prefilter(*plugin, four_nodes(), {},
                      make_pod("p").constraint(spread(1, "zone", "DoNotSchedule", kFoo)).obj());
  const Outcome filter = no_prefilter.filter("node-a");
  EXPECT_EQ(filter.code, kError);
  EXPECT_THAT(filter.reasons,
              ElementsAre("reading \"PreFilterPodTopologySpread\" from cycleState: not found"));
  const PodPtr other = make_pod("q").label("foo").obj();
  const Outcome add = no_prefilter.update(no_prefilter.state(), *other, "node-a", true);
  EXPECT_EQ(add.code, kError);
  EXPECT_THAT(add.reasons,
              ElementsAre("reading \"PreFilterPodTopologySpread\" from cycleState: not found"));

  const Json bad = {{"matchExpressions", Json::array({{{"key", "foo"}, {"operator", "Near"}}})}};
  Runner bad_selector(*plugin, four_nodes(), {},
                      make_pod("p").constraint(spread(1, "zone", "DoNotSchedule", bad)).obj());
  const PreFilterOutcome pre = bad_selector.pre_filter();
  EXPECT_EQ(pre.code, kError);
  ASSERT_EQ(pre.reasons.size(), 1U);
  EXPECT_THAT(pre.reasons[0], StartsWith("get constraints from pod: obtaining pod's hard topology "
                                         "spread constraints: "));
  EXPECT_THAT(pre.reasons[0], HasSubstr("\"Near\" is not a valid label selector operator"));
}

// AddPod / RemovePod change only the copy of the state they are given (preemption and
// nominated-pod dry runs), with upstream's rules: same namespace, selector match, node has every
// key and passes the inclusion policies.
TEST_F(PodTopologySpreadFilter, AddPodAndRemovePodUpdateAClonedState) {
  auto plugin = harness_.create("PodTopologySpread", "{}");
  const PodPtr pod = make_pod("p")
                         .label("foo")
                         .constraint(spread(1, "zone", "DoNotSchedule", kFoo))
                         .constraint(spread(1, kHostname, "DoNotSchedule", kFoo))
                         .obj();
  // zones 1/1, nodes 1/0/1/0.
  const std::vector<PodPtr> existing =
      concat({foo_pods("node-a", "p-a", 1), foo_pods("node-x", "p-x", 1)});
  Runner runner(*plugin, four_nodes(), existing, pod);
  ASSERT_EQ(runner.pre_filter().code, kSuccess);
  const std::vector<std::string> before = {kSkew, kOk, kSkew, kOk};
  ASSERT_EQ(runner.filter_all(), before);

  {  // a matching pod added on node-b: zones 2/1, so zone1 is out; nodes 1/1/1/0.
    auto copy = runner.state().clone();
    ASSERT_NE(copy, nullptr);
    const PodPtr added = make_pod("new").label("foo").obj();
    EXPECT_EQ(runner.update(*copy, *added, "node-b", true).code, kSuccess);
    EXPECT_EQ(runner.filter_all(*copy), (std::vector<std::string>{kSkew, kSkew, kSkew, kOk}));
    EXPECT_EQ(runner.filter_all(), before) << "the original state is unchanged";
  }
  {  // node-a's pod removed: zones 0/1, nodes 0/0/1/0.
    auto copy = runner.state().clone();
    EXPECT_EQ(runner.update(*copy, *existing[0], "node-a", false).code, kSuccess);
    EXPECT_EQ(runner.filter_all(*copy), (std::vector<std::string>{kOk, kOk, kSkew, kSkew}));
  }
  {  // a pod of another namespace, or not matching, or on a node without the keys: no change.
    auto copy = runner.state().clone();
    const PodPtr other_ns = make_pod("n1").ns("ns1").label("foo").obj();
    const PodPtr unmatched = make_pod("n2").label("bar").obj();
    EXPECT_EQ(runner.update(*copy, *other_ns, "node-b", true).code, kSuccess);
    EXPECT_EQ(runner.update(*copy, *unmatched, "node-b", true).code, kSuccess);
    EXPECT_EQ(runner.filter_all(*copy), before);
  }
  {  // added then removed: back to where it was.
    auto copy = runner.state().clone();
    const PodPtr added = make_pod("new").label("foo").obj();
    EXPECT_EQ(runner.update(*copy, *added, "node-y", true).code, kSuccess);
    EXPECT_EQ(runner.filter_all(*copy), (std::vector<std::string>{kSkew, kOk, kSkew, kSkew}));
    EXPECT_EQ(runner.update(*copy, *added, "node-y", false).code, kSuccess);
    EXPECT_EQ(runner.filter_all(*copy), before);
  }
}

// AddPod / RemovePod move only the counts of the constraints whose selector matches the pod
// (upstream 1.35 updateWithPod: TpValueToMatchNum[i], CriticalPaths[i]), also when two
// constraints share the topology key.
TEST_F(PodTopologySpreadFilter, AddPodAndRemovePodPerConstraintOnASharedKey) {
  auto plugin = harness_.create("PodTopologySpread", "{}");
  const PodPtr pod = make_pod("p")
                         .label("foo")
                         .label("bar")
                         .constraint(spread(1, "zone", "DoNotSchedule", kFoo))
                         .constraint(spread(1, "zone", "DoNotSchedule", kBar))
                         .obj();
  // As "two spreadConstraints with the same topologyKey": foo {zone1: 2, zone2: 1}, bar
  // {zone1: 1, zone2: 3}, so no node fits.
  const std::vector<PodPtr> existing = {
      make_pod("p-a1").node("node-a").label("foo").label("bar").obj(),
      make_pod("p-b1").node("node-b").label("foo").obj(),
      make_pod("p-x1").node("node-x").label("bar").obj(),
      make_pod("p-y1").node("node-y").label("foo").label("bar").obj(),
      make_pod("p-y2").node("node-y").label("bar").obj()};
  Runner runner(*plugin, four_nodes(), existing, pod);
  ASSERT_EQ(runner.pre_filter().code, kSuccess);
  const std::vector<std::string> none = {kSkew, kSkew, kSkew, kSkew};
  ASSERT_EQ(runner.filter_all(), none);

  {  // a foo pod added on node-x: foo {2, 2} fits anywhere; bar still rules out zone2.
    auto copy = runner.state().clone();
    const PodPtr added = make_pod("new").label("foo").obj();
    EXPECT_EQ(runner.update(*copy, *added, "node-x", true).code, kSuccess);
    EXPECT_EQ(runner.filter_all(*copy), (std::vector<std::string>{kOk, kOk, kSkew, kSkew}));
    EXPECT_EQ(runner.filter_all(), none) << "the original state is unchanged";
  }
  {  // the bar-only pods of zone2 removed: bar {1, 1} fits anywhere; foo rules out zone1.
    auto copy = runner.state().clone();
    EXPECT_EQ(runner.update(*copy, *existing[2], "node-x", false).code, kSuccess);
    EXPECT_EQ(runner.filter_all(*copy), none) << "bar {1, 2}: zone2 still out";
    EXPECT_EQ(runner.update(*copy, *existing[4], "node-y", false).code, kSuccess);
    EXPECT_EQ(runner.filter_all(*copy), (std::vector<std::string>{kSkew, kSkew, kOk, kOk}));
  }
  {  // a pod matching both, removed from zone1: foo {1, 1}, bar {0, 3}: bar rules out zone2.
    auto copy = runner.state().clone();
    EXPECT_EQ(runner.update(*copy, *existing[0], "node-a", false).code, kSuccess);
    EXPECT_EQ(runner.filter_all(*copy), (std::vector<std::string>{kOk, kOk, kSkew, kSkew}));
  }
}

TEST_F(PodTopologySpreadFilter, AddPodOnANodeWithoutTheKeysChangesNothing) {
  auto plugin = harness_.create("PodTopologySpread", "{}");
  const PodPtr pod =
      make_pod("p").label("foo").constraint(spread(1, "zone", "DoNotSchedule", kFoo)).obj();
  const std::vector<NodePtr> nodes = {make_node("node-a", {{"zone", "zone1"}}),
                                      make_node("node-b", Json::object()),
                                      make_node("node-x", {{"zone", "zone2"}})};
  Runner runner(*plugin, nodes, foo_pods("node-a", "p-a", 1), pod);
  ASSERT_EQ(runner.pre_filter().code, kSuccess);
  auto copy = runner.state().clone();
  const PodPtr added = make_pod("new").label("foo").obj();
  EXPECT_EQ(runner.update(*copy, *added, "node-b", true).code, kSuccess);
  EXPECT_EQ(runner.filter_all(*copy), (std::vector<std::string>{kSkew, kNoLabel, kOk}));
}

}  // namespace
}  // namespace schedhost
