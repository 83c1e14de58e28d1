// PodTopologySpread PreScore / Score / NormalizeScore, with the cases of upstream's
// scoring_test.go (kubernetes 1.28 pkg/scheduler/framework/plugins/podtopologyspread, and the
// 1.35 case whose constraints share a topology key): exact normalized scores over the feasible
// nodes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "topology_spread_runner.hpp"

namespace schedhost {
namespace {

using namespace testing::pts;  // NOLINT(google-build-using-namespace)
using ::testing::ElementsAre;
using testing::Json;
using testing::PluginHarness;

// `count` pods labelled `labels` on each node, named p-<node>-<i>.
struct On {
  std::string node;
  int count;
  std::vector<std::string> labels = {"foo"};
};
std::vector<PodPtr> pods_on(const std::vector<On>& spec) {
  std::vector<PodPtr> pods;
  for (const On& on : spec) {
    for (int i = 1; i <= on.count; ++i) {
      PodBuilder b =
          make_pod("p-" + on.node + "-" + std::to_string(i) + "-" + std::to_string(pods.size()));
      b.node(on.node);
      for (const std::string& l : on.labels)
        b.label(l);
      pods.push_back(b.obj());
    }
  }
  return pods;
}

std::vector<NodePtr> host_nodes(const std::vector<std::string>& names,
                                const std::string& key = kHostname) {
  std::vector<NodePtr> nodes;
  nodes.reserve(names.size());
  for (const std::string& n : names)
    nodes.push_back(make_node(n, {{key, n}}));
  return nodes;
}

std::vector<NodePtr> zoned(const std::vector<std::pair<std::string, std::string>>& node_zone) {
  std::vector<NodePtr> nodes;
  nodes.reserve(node_zone.size());
  for (const auto& [n, z] : node_zone)
    nodes.push_back(make_node(n, {{"zone", z}, {kHostname, n}}));
  return nodes;
}

struct ScoreCase {
  const char* name;
  PodPtr pod;
  std::vector<NodePtr> nodes;  // all nodes of the snapshot
  std::vector<PodPtr> existing;
  std::vector<std::string> feasible;  // empty: every node
  std::vector<std::int64_t> want;     // per feasible node
};

class PodTopologySpreadScore : public ::testing::Test {
 protected:
  ScoresOutcome run(const ScoreCase& c, const std::string& args = "{}") {
    auto plugin = harness_.create("PodTopologySpread", args);
    Runner runner(*plugin, c.nodes, c.existing, c.pod);
    return runner.scores(c.feasible);
  }
  PluginHarness harness_{"pod_topology_spread.so"};
};

PodPtr soft(int max_skew, const std::string& key, const Json& selector = kFoo,
            Json extra = Json::object()) {
  return make_pod("p")
      .label("foo")
      .constraint(spread(max_skew, key, "ScheduleAnyway", selector, std::move(extra)))
      .obj();
}

TEST_F(PodTopologySpreadScore, UpstreamCases) {
  const std::vector<std::string> abcd = {"node-a", "node-b", "node-c", "node-d"};
  const std::vector<std::string> abxy = {"node-a", "node-b", "node-x", "node-y"};
  // 4/2/1/3 over a, b, x, y.
  const std::vector<PodPtr> spread4213 =
      pods_on({{"node-a", 4}, {"node-b", 2}, {"node-x", 1}, {"node-y", 3}});
  const Json no_taint_key =
      Json::array({{{"key", "k1"}, {"value", "v1"}, {"effect", "NoSchedule"}}});
  const std::vector<ScoreCase> cases = {
      {"one constraint on node, no existing pods",
       soft(1, kHostname),
       host_nodes({"node-a", "node-b"}),
       {},
       {},
       {100, 100}},
      {"one constraint on node, only one node is candidate",
       soft(1, kHostname),
       host_nodes({"node-a", "node-b"}),
       pods_on({{"node-a", 2}, {"node-b", 1}}),
       {"node-a"},
       {100}},
      {"one constraint on node, all nodes have the same number of matching pods",
       soft(1, kHostname),
       host_nodes({"node-a", "node-b"}),
       pods_on({{"node-a", 1}, {"node-b", 1}}),
       {},
       {100, 100}},
      {"one constraint on node, all 4 nodes are candidates (2/1/0/3)",
       soft(1, kHostname),
       host_nodes(abcd),
       pods_on({{"node-a", 2}, {"node-b", 1}, {"node-d", 3}}),
       {},
       {20, 60, 100, 0}},
      {"one constraint on node, null selector",
       soft(1, kHostname, Json()),
       host_nodes(abcd),
       pods_on({{"node-a", 2}, {"node-b", 1}, {"node-d", 3}}),
       {},
       {100, 100, 100, 100}},
      {"one constraint on node, all 4 nodes are candidates, maxSkew=2",
       soft(2, kHostname),
       host_nodes(abcd),
       pods_on({{"node-a", 2}, {"node-b", 1}, {"node-d", 3}}),
       {},
       {33, 66, 100, 16}},
      {"one constraint on node, all 4 nodes are candidates, maxSkew=3 (4/3/2/1)",
       soft(3, kHostname),
       host_nodes(abcd),
       pods_on({{"node-a", 4}, {"node-b", 3}, {"node-c", 2}, {"node-d", 1}}),
       {},
       {44, 66, 77, 100}},
      {"one constraint on node, 3 out of 4 nodes are candidates (4/2/1/~3~)",
       soft(1, kHostname),
       host_nodes(abxy),
       spread4213,
       {"node-a", "node-b", "node-x"},
       {33, 83, 100}},
      {"one constraint on node, 3 out of 4 candidates, one node doesn't match topology key",
       soft(1, kHostname),
       {make_node("node-a", {{kHostname, "node-a"}}), make_node("node-b", {{"n", "node-b"}}),
        make_node("node-x", {{kHostname, "node-x"}}), make_node("node-y", {{kHostname, "node-y"}})},
       spread4213,
       {"node-a", "node-b", "node-x"},
       {16, 0, 100}},
      {"one constraint on zone, 3 out of 4 nodes are candidates",
       soft(1, "zone"),
       zoned({{"node-a", "zone1"}, {"node-b", "zone1"}, {"node-x", "zone2"}, {"node-y", "zone2"}}),
       spread4213,
       {"node-a", "node-b", "node-x"},
       {75, 75, 100}},
      {"two constraints on zone and node, 2 out of 4 nodes are candidates (2/~1~/2/~4~)",
       make_pod("p")
           .label("foo")
           .constraint(spread(1, "zone", "ScheduleAnyway", kFoo))
           .constraint(spread(1, kHostname, "ScheduleAnyway", kFoo))
           .obj(),
       zoned({{"node-a", "zone1"}, {"node-b", "zone1"}, {"node-x", "zone2"}, {"node-y", "zone2"}}),
       pods_on({{"node-a", 2}, {"node-b", 1}, {"node-x", 2}, {"node-y", 4}}),
       {"node-a", "node-x"},
       {100, 63}},
      {"two constraints on zone and node, with different labelSelectors",
       make_pod("p")
           .label("foo")
           .label("bar")
           .constraint(spread(1, "zone", "ScheduleAnyway", kFoo))
           .constraint(spread(1, kHostname, "ScheduleAnyway", kBar))
           .obj(),
       zoned({{"node-a", "zone1"}, {"node-b", "zone1"}, {"node-x", "zone2"}, {"node-y", "zone2"}}),
       pods_on({{"node-a", 1, {"foo"}},
                {"node-b", 1, {"foo", "bar"}},
                {"node-y", 1, {"foo"}},
                {"node-y", 1, {"bar"}}}),
       {},
       {60, 20, 100, 60}},
      {"two constraints on zone and node, with different labelSelectors, some nodes have 0 pods",
       make_pod("p")
           .label("foo")
           .label("bar")
           .constraint(spread(1, "zone", "ScheduleAnyway", kFoo))
           .constraint(spread(1, kHostname, "ScheduleAnyway", kBar))
           .obj(),
       zoned({{"node-a", "zone1"}, {"node-b", "zone1"}, {"node-x", "zone2"}, {"node-y", "zone2"}}),
       pods_on({{"node-b", 1, {"bar"}}, {"node-x", 1, {"foo"}}, {"node-y", 1, {"foo", "bar"}}}),
       {},
       {100, 60, 40, 0}},
      {"two constraints on zone and node, with different labelSelectors, 3 out of 4 candidates",
       make_pod("p")
           .label("foo")
           .label("bar")
           .constraint(spread(1, "zone", "ScheduleAnyway", kFoo))
           .constraint(spread(1, kHostname, "ScheduleAnyway", kBar))
           .obj(),
       zoned({{"node-a", "zone1"}, {"node-b", "zone1"}, {"node-x", "zone2"}, {"node-y", "zone2"}}),
       pods_on({{"node-a", 1, {"foo"}},
                {"node-b", 1, {"foo", "bar"}},
                {"node-y", 1, {"foo"}},
                {"node-y", 1, {"bar"}}}),
       {"node-a", "node-b", "node-x"},
       {50, 25, 100}},
      // upstream 1.35 (scoring_test.go): the counts are per constraint, upstream's
      // TopologyValueToPodCounts[i]: foo 3/3 and bar 2/1, each weighted ln(2 domains + 2) = w,
      // raw node-a 3w + 2w = 6.9 -> 7 and node-x 3w + 1w = 5.5 -> 6: 85, 100.
      // (This case used to expect 1.28's 80, 100: 1.28 kept one count per topology pair, which
      // both constraints added to, zone1 5 and zone2 4, and weighted the second constraint
      // ln(0 + 2), raw 10 and 8.)
      {"two constraints on zone, 2 out of 4 nodes are candidates",
       make_pod("p")
           .label("foo")
           .label("bar")
           .constraint(spread(1, "zone", "ScheduleAnyway", kFoo))
           .constraint(spread(1, "zone", "ScheduleAnyway", kBar))
           .obj(),
       {make_node("node-a", {{"zone", "zone1"}}), make_node("node-b", {{"zone", "zone1"}}),
        make_node("node-x", {{"zone", "zone2"}}), make_node("node-y", {{"zone", "zone2"}})},
       pods_on({{"node-a", 1, {"foo", "bar"}},
                {"node-a", 1, {"foo"}},
                {"node-b", 1, {"foo", "bar"}},
                {"node-y", 1, {"foo"}},
                {"node-y", 1, {"foo", "bar"}},
                {"node-y", 1, {"foo"}}}),
       {"node-a", "node-x"},
       {85, 100}},
      // Two constraints on zone with their own selectors and maxSkew over three zones: foo 2/1/0
      // (maxSkew 1), bar 1/0/3 (maxSkew 3), both weighted ln(3 + 2) = w: raw zone1 2w + 1w + 2 =
      // 6.8 -> 7, zone2 1w + 2 = 3.6 -> 4, zone3 3w + 2 = 6.8 -> 7. (1.28: one count 3/1/3 for
      // both, weights ln 5 and ln 2: raw 9, 4, 9 -> 44, 44, 100, 44.)
      {"two constraints on zone with different maxSkew, all nodes are candidates",
       make_pod("p")
           .label("foo")
           .label("bar")
           .constraint(spread(1, "zone", "ScheduleAnyway", kFoo))
           .constraint(spread(3, "zone", "ScheduleAnyway", kBar))
           .obj(),
       zoned({{"node-a", "zone1"}, {"node-b", "zone1"}, {"node-x", "zone2"}, {"node-y", "zone3"}}),
       pods_on({{"node-a", 2, {"foo"}},
                {"node-x", 1, {"foo"}},
                {"node-b", 1, {"bar"}},
                {"node-y", 3, {"bar"}}}),
       {},
       {57, 57, 100, 57}},
      {"existing pods in a different namespace do not count",
       soft(1, kHostname),
       host_nodes({"node-a", "node-b"}),
       {make_pod("p-a1").ns("ns1").node("node-a").label("foo").obj(),
        make_pod("p-a2").node("node-a").label("foo").obj(),
        make_pod("p-b1").node("node-b").label("foo").obj(),
        make_pod("p-b2").node("node-b").label("foo").obj()},
       {},
       {100, 33}},
      {"terminating Pods should be excluded",
       soft(1, kHostname),
       host_nodes({"node-a", "node-b"}),
       {make_pod("p-a").node("node-a").label("foo").terminating().obj(),
        make_pod("p-b").node("node-b").label("foo").obj()},
       {},
       {100, 0}},
      {"minDomains has no effect when ScheduleAnyway",
       soft(2, "node", kFoo, {{"minDomains", 10}}),
       host_nodes({"node-a", "node-b", "node-c"}, "node"),
       pods_on({{"node-a", 2}, {"node-b", 2}, {"node-c", 1}}),
       {},
       {75, 75, 100}},
  };
  for (const ScoreCase& c : cases) {
    SCOPED_TRACE(c.name);
    const ScoresOutcome out = run(c);
    EXPECT_EQ(out.code, kSuccess) << (out.reasons.empty() ? "" : out.reasons[0]);
    EXPECT_EQ(out.scores, c.want);
  }
}

TEST_F(PodTopologySpreadScore, NodeInclusionPolicies) {
  // node-a (foo), node-b (foo), node-c (no foo, tainted); matching pods 2/1/1.
  const Json taints = Json::array({{{"key", "k1"}, {"value", "v1"}, {"effect", "NoSchedule"}}});
  const std::vector<NodePtr> nodes = {make_node("node-a", {{"node", "node-a"}, {"foo", ""}}),
                                      make_node("node-b", {{"node", "node-b"}, {"foo", ""}}),
                                      make_node("node-c", {{"node", "node-c"}}, taints)};
  const std::vector<PodPtr> pods = pods_on({{"node-a", 2}, {"node-b", 1}, {"node-c", 1}});
  auto pod = [](Json extra, Json spec_field = Json(), const char* field = nullptr) {
    PodBuilder b = make_pod("p");
    b.label("foo").constraint(spread(1, "node", "ScheduleAnyway", kFoo, std::move(extra)));
    if (field != nullptr) b.spec(field, std::move(spec_field));
    return b.obj();
  };
  const Json affinity = {
      {"nodeAffinity",
       {{"requiredDuringSchedulingIgnoredDuringExecution",
         {{"nodeSelectorTerms",
           Json::array(
               {{{"matchExpressions",
                  Json::array({{{"key", "foo"}, {"operator", "In"}, {"values", {""}}}})}}})}}}}}};
  const std::vector<ScoreCase> cases = {
      {"NodeAffinityPolicy honored with nodeSelector",
       pod({}, {{"foo", ""}}, "nodeSelector"),
       nodes,
       pods,
       {},
       {0, 33, 100}},
      {"NodeAffinityPolicy ignored with nodeSelector",
       pod({{"nodeAffinityPolicy", "Ignore"}}, {{"foo", ""}}, "nodeSelector"),
       nodes,
       pods,
       {},
       {66, 100, 100}},
      {"NodeAffinityPolicy honored with nodeAffinity",
       pod({}, affinity, "affinity"),
       nodes,
       pods,
       {},
       {0, 33, 100}},
      {"NodeAffinityPolicy ignored with nodeAffinity",
       pod({{"nodeAffinityPolicy", "Ignore"}}, affinity, "affinity"),
       nodes,
       pods,
       {},
       {66, 100, 100}},
      {"NodeTaintsPolicy honored",
       pod({{"nodeTaintsPolicy", "Honor"}}),
       nodes,
       pods,
       {},
       {0, 33, 100}},
      {"NodeTaintsPolicy ignored", pod({}), nodes, pods, {}, {66, 100, 100}},
  };
  for (const ScoreCase& c : cases) {
    SCOPED_TRACE(c.name);
    const ScoresOutcome out = run(c);
    EXPECT_EQ(out.code, kSuccess);
    EXPECT_EQ(out.scores, c.want);
  }
}

TEST_F(PodTopologySpreadScore, MatchLabelKeys) {
  // hostname spreading of foo pods 2/1/1 over a, b, c; only node-c's pod has version v1.
  const std::vector<PodPtr> pods =
      pods_on({{"node-a", 2, {"foo"}}, {"node-b", 1, {"foo"}}, {"node-c", 1, {"foo", "version"}}});
  const PodPtr keyed = make_pod("p")
                           .label("foo")
                           .label("version")
                           .constraint(spread(1, kHostname, "ScheduleAnyway", kFoo,
                                              {{"matchLabelKeys", {"version"}}}))
                           .obj();
  // With the key only node-c counts (1): raw 0/0/1 (+0) -> 100, 100, 0.
  EXPECT_EQ(run({"matchLabelKeys", keyed, host_nodes({"node-a", "node-b", "node-c"}), pods, {}, {}})
                .scores,
            (std::vector<std::int64_t>{100, 100, 0}));
}

TEST_F(PodTopologySpreadScore, SkipsAndErrors) {
  auto plugin = harness_.create("PodTopologySpread", "{}");
  {  // no ScheduleAnyway constraint
    Runner runner(*plugin, host_nodes({"node-a"}), {},
                  make_pod("p").constraint(spread(1, kHostname, "DoNotSchedule", kFoo)).obj());
    EXPECT_EQ(runner.pre_score({"node-a"}).code, kSkip);
  }
  {  // no constraints, and the system defaults select nothing without Services / ReplicaSets
    Runner runner(*plugin, host_nodes({"node-a"}), {}, make_pod("p").label("foo").obj());
    EXPECT_EQ(runner.pre_score({"node-a"}).code, kSkip);
  }
  {  // no feasible nodes
    Runner runner(*plugin, host_nodes({"node-a"}), {}, soft(1, kHostname));
    EXPECT_EQ(runner.pre_score({}).code, kSkip);
  }
  {  // Score / NormalizeScore without PreScore's state
    Runner runner(*plugin, host_nodes({"node-a"}), {}, soft(1, kHostname));
    framework::Call call;
    std::int64_t score = -1;
    auto snapshot = cluster::Snapshot(host_nodes({"node-a"}), {});
    framework::Call score_call(&snapshot);
    const PodPtr pod = soft(1, kHostname);
    const schedhost_code_t code = plugin->vtable().score(
        plugin->self(), score_call.handle(), runner.state().handle(), testing::pod_handle(*pod),
        testing::node_handle(snapshot, "node-a"), &score);
    EXPECT_EQ(code, kError);
    EXPECT_THAT(score_call.reasons(),
                ElementsAre("error reading \"PreScorePodTopologySpread\" from cycleState: not "
                            "found"));
  }
}

// Nodes that lack a key are ignored (0) with the pod's own constraints; with the system default
// constraints they would still be scored (upstream's requireAllTopologies), which needs a Service
// or a controller selecting the pod: the host has none, so system defaults never apply here.
TEST_F(PodTopologySpreadScore, IgnoredNodesScoreZeroAndDoNotCountForMinimum) {
  const PodPtr pod = make_pod("p")
                         .label("foo")
                         .constraint(spread(1, "zone", "ScheduleAnyway", kFoo))
                         .constraint(spread(1, kHostname, "ScheduleAnyway", kFoo))
                         .obj();
  const std::vector<NodePtr> nodes = {
      make_node("node-a", {{"zone", "zone1"}, {kHostname, "node-a"}}),
      make_node("node-b", {{kHostname, "node-b"}}),
      make_node("node-x", {{"zone", "zone2"}, {kHostname, "node-x"}})};
  // zone1 2 (on node-a), zone2 0; node-b's pods are not counted anywhere.
  const std::vector<PodPtr> pods = pods_on({{"node-a", 2}, {"node-b", 5}});
  // weights: zone ln 4, hostname ln 4 (two non-ignored nodes); node-a 2 ln4 + 2 ln4 = 5.5 -> 6.
  EXPECT_EQ(run({"ignored node-b", pod, nodes, pods, {}, {}}).scores,
            (std::vector<std::int64_t>{0, 0, 100}));
}

}  // namespace
}  // namespace schedhost
