// The scheduling cycle's semantics, point by point, with real plugins: Filter verdicts and the
// FitError message, PreFilter Skip/narrowing/rejection, PostFilter, PreScore Skip, Score with
// NormalizeScore and weights, the range check, early stop and the seeded tie-break.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "framework/hook_activity.hpp"
#include "scheduler_harness.hpp"

namespace schedhost {
namespace {

using scheduler::PodResult;
using scheduler::RunResult;
using ::testing::ElementsAre;
using testing::node_yaml;
using ::testing::Pair;
using testing::pod_yaml;
using testing::profile_with;

std::string nodes(std::initializer_list<const char*> names) {
  std::string out;
  for (const char* n : names)
    out += node_yaml(n);
  return out;
}

const PodResult& only(const RunResult& r) {
  EXPECT_EQ(r.pods.size(), 1u);
  return r.pods.front();
}

std::vector<std::string> verdict_codes(const PodResult& p) {
  std::vector<std::string> out;
  for (const auto& [name, e] : p.explain->nodes)
    out.push_back(name + ":" + e.filter.code);
  return out;
}

class Cycle : public ::testing::Test {
 protected:
  testing::SchedulerHarness harness_;
};

TEST_F(Cycle, FilterVerdictsMakeUpstreamsFitErrorMessage) {
  const std::string profile = profile_with(R"(    filter:
      enabled: [{name: FilterRules}]
  pluginConfig:
  - name: FilterRules
    args:
      nodes:
        node-a: {code: Unschedulable, reasons: [Insufficient cpu]}
        node-b: {code: UnschedulableAndUnresolvable, reasons: ["node(s) had untolerated taint {k: v}"]}
        node-c: {code: Unschedulable, reasons: [Insufficient cpu, Insufficient memory]}
)");
  const RunResult r =
      harness_.run(profile, nodes({"node-a", "node-b", "node-c"}) + pod_yaml("web"));
  const PodResult& p = only(r);
  EXPECT_EQ(p.pod, "default/web");
  EXPECT_EQ(p.profile, "default-scheduler");
  EXPECT_EQ(p.result, "Unschedulable");
  EXPECT_EQ(p.node, "");
  EXPECT_EQ(p.message,
            "0/3 nodes are available: 1 Insufficient memory, 1 node(s) had untolerated taint "
            "{k: v}, 2 Insufficient cpu.");
  ASSERT_TRUE(p.explain.has_value());
  ASSERT_EQ(p.explain->nodes.size(), 3u);
  const auto& b = p.explain->nodes[1];
  EXPECT_EQ(b.first, "node-b");
  EXPECT_EQ(b.second.filter.code, "UnschedulableAndUnresolvable");
  EXPECT_EQ(b.second.filter.plugin, "FilterRules");
  EXPECT_THAT(b.second.filter.reasons, ElementsAre("node(s) had untolerated taint {k: v}"));
  EXPECT_THAT(p.explain->nodes[2].second.filter.reasons,
              ElementsAre("Insufficient cpu", "Insufficient memory"));
}

TEST_F(Cycle, ScoresAreNormalizedWeightedAndSummed) {
  const std::string profile = profile_with(R"(    score:
      enabled: [{name: ScoreRules, weight: 2}, {name: NormalizedRules, weight: 3}]
  pluginConfig:
  - name: ScoreRules
    args: {scores: {node-a: 10, node-b: 40, node-c: 20}}
  - name: NormalizedRules
    args: {scores: {node-a: 8, node-b: 2, node-c: 4}}
)");
  const RunResult r =
      harness_.run(profile, nodes({"node-a", "node-b", "node-c"}) + pod_yaml("web"));
  const PodResult& p = only(r);
  EXPECT_EQ(p.result, "Scheduled");
  // node-a: 10*2 + 100*3 = 320; node-b: 40*2 + 25*3 = 155; node-c: 20*2 + 50*3 = 190.
  EXPECT_EQ(p.node, "node-a");
  const auto& a = p.explain->nodes[0].second;
  EXPECT_EQ(a.filter.code, "Success");
  EXPECT_THAT(a.scores, ElementsAre(Pair("ScoreRules", 10), Pair("NormalizedRules", 100)));
  EXPECT_EQ(a.total, 320);
  EXPECT_EQ(p.explain->nodes[1].second.total, 155);
  EXPECT_EQ(p.explain->nodes[2].second.total, 190);
}

TEST_F(Cycle, ASingleFeasibleNodeIsChosenWithoutScoring) {
  const std::string profile = profile_with(R"(    filter:
      enabled: [{name: FilterRules}]
    score:
      enabled: [{name: ScoreRules}]
  pluginConfig:
  - name: FilterRules
    args: {nodes: {node-a: {code: Unschedulable, reasons: [full]}}}
  - name: ScoreRules
    args: {default: 500}
)");
  const RunResult r = harness_.run(profile, nodes({"node-a", "node-b"}) + pod_yaml("web"));
  const PodResult& p = only(r);
  EXPECT_EQ(p.result, "Scheduled");  // a 500 score would be an error, had Score run
  EXPECT_EQ(p.node, "node-b");
  EXPECT_TRUE(p.explain->nodes[1].second.scores.empty());
  EXPECT_FALSE(p.explain->nodes[1].second.total.has_value());
}

TEST_F(Cycle, AScoreOutsideZeroToHundredIsAnErrorNamingPluginAndNode) {
  const std::string profile = profile_with(R"(    score:
      enabled: [{name: ScoreRules}]
  pluginConfig:
  - name: ScoreRules
    args: {scores: {node-a: 50, node-b: 150}}
)");
  const RunResult r = harness_.run(profile, nodes({"node-a", "node-b"}) + pod_yaml("web"));
  const PodResult& p = only(r);
  EXPECT_EQ(p.result, "Error");
  EXPECT_EQ(p.message,
            "plugin \"ScoreRules\" returns an invalid score 150 for node \"node-b\", it should in "
            "the range of [0, 100] after normalizing");
}

TEST_F(Cycle, PreFilterSkipRemovesThatPluginsFilter) {
  const std::string profile = profile_with(R"(    preFilter:
      enabled: [{name: PreFilterRules}]
    filter:
      enabled: [{name: PreFilterRules}]
  pluginConfig:
  - name: PreFilterRules
    args: {code: Skip}
)");
  const RunResult r = harness_.run(profile, nodes({"node-a"}) + pod_yaml("web"));
  const PodResult& p = only(r);
  EXPECT_EQ(p.result, "Scheduled");
  EXPECT_EQ(p.node, "node-a");
}

TEST_F(Cycle, PreFilterNarrowsTheNodesToFilter) {
  const std::string profile = profile_with(R"(    preFilter:
      enabled: [{name: PreFilterRules}]
  pluginConfig:
  - name: PreFilterRules
    args: {nodes: [node-c, node-zz]}
)");
  const RunResult r =
      harness_.run(profile, nodes({"node-a", "node-b", "node-c"}) + pod_yaml("web"));
  const PodResult& p = only(r);
  EXPECT_EQ(p.node, "node-c");
  EXPECT_THAT(verdict_codes(p),
              ElementsAre("node-a:NotEvaluated", "node-b:NotEvaluated", "node-c:Success"));
  EXPECT_THAT(p.explain->nodes[0].second.filter.reasons,
              ElementsAre("not in the PreFilter result"));
}

TEST_F(Cycle, AnEmptyPreFilterResultLeavesNoNode) {
  const std::string profile = profile_with(R"(    preFilter:
      enabled: [{name: PreFilterRules}]
  pluginConfig:
  - name: PreFilterRules
    args: {nodes: []}
)");
  const RunResult r = harness_.run(profile, nodes({"node-a", "node-b"}) + pod_yaml("web"));
  const PodResult& p = only(r);
  EXPECT_EQ(p.result, "Unschedulable");
  EXPECT_EQ(p.message, "0/2 nodes are available: node(s) didn't satisfy plugin PreFilterRules.");
}

TEST_F(Cycle, PreFilterRejectionThenPostFilterMessage) {
  const std::string profile = profile_with(R"(    preFilter:
      enabled: [{name: PreFilterRules}]
    postFilter:
      enabled: [{name: PostFilterRules}]
  pluginConfig:
  - name: PreFilterRules
    args: {code: UnschedulableAndUnresolvable, reasons: [pod is too big]}
  - name: PostFilterRules
    args: {code: Unschedulable, reasons: ["preemption: not helpful"]}
)");
  const RunResult r = harness_.run(profile, nodes({"node-a", "node-b"}) + pod_yaml("web"));
  const PodResult& p = only(r);
  EXPECT_EQ(p.result, "Unschedulable");
  EXPECT_EQ(p.message,
            "0/2 nodes are available: pod is too big. preemption: not helpful, saw 2 failed nodes");
  EXPECT_THAT(verdict_codes(p), ElementsAre("node-a:UnschedulableAndUnresolvable",
                                            "node-b:UnschedulableAndUnresolvable"));
}

TEST_F(Cycle, PreFilterErrorIsAnError) {
  const std::string profile = profile_with(R"(    preFilter:
      enabled: [{name: PreFilterRules}]
  pluginConfig:
  - name: PreFilterRules
    args: {code: Error, reasons: [database is down]}
)");
  const RunResult r = harness_.run(profile, nodes({"node-a"}) + pod_yaml("web"));
  const PodResult& p = only(r);
  EXPECT_EQ(p.result, "Error");
  EXPECT_EQ(p.message, "running PreFilter plugin \"PreFilterRules\": database is down");
}

TEST_F(Cycle, AThrowingFilterAbortsTheCycleWithItsMessage) {
  const std::string profile = profile_with(R"(    filter:
      enabled: [{name: FilterRules}]
  pluginConfig:
  - name: FilterRules
    args: {throwOn: node-b}
)");
  const RunResult r = harness_.run(
      profile, nodes({"node-a", "node-b", "node-c"}) + pod_yaml("web") + pod_yaml("db"));
  ASSERT_EQ(r.pods.size(), 2u);
  EXPECT_EQ(r.pods[0].result, "Error");
  EXPECT_EQ(r.pods[0].message, "running \"FilterRules\" filter plugin: kaboom on node-b");
  const auto& b = r.pods[0].explain->nodes[1].second.filter;
  EXPECT_EQ(b.code, "Error");
  EXPECT_EQ(b.plugin, "FilterRules");
  EXPECT_THAT(verdict_codes(r.pods[0]),
              ElementsAre("node-a:Success", "node-b:Error", "node-c:NotEvaluated"));
  // The host goes on with the next pod; it starts after the nodes the first one processed.
  EXPECT_EQ(r.pods[1].result, "Error");
}

TEST_F(Cycle, PreScoreSkipRemovesThatPluginsScore) {
  const std::string profile = profile_with(R"(    preScore:
      enabled: [{name: PreScoreRules}]
    score:
      enabled: [{name: PreScoreRules}, {name: ScoreRules}]
  pluginConfig:
  - name: PreScoreRules
    args: {code: Skip}
  - name: ScoreRules
    args: {scores: {node-b: 7}}
)");
  const RunResult r = harness_.run(profile, nodes({"node-a", "node-b"}) + pod_yaml("web"));
  const PodResult& p = only(r);
  EXPECT_EQ(p.result, "Scheduled");
  EXPECT_EQ(p.node, "node-b");
  EXPECT_THAT(p.explain->nodes[1].second.scores, ElementsAre(Pair("ScoreRules", 7)));
}

TEST_F(Cycle, PreScoreErrorIsAnError) {
  const std::string profile = profile_with(R"(    preScore:
      enabled: [{name: PreScoreRules}]
  pluginConfig:
  - name: PreScoreRules
    args: {code: Unschedulable, reasons: [no]}
)");
  const RunResult r = harness_.run(profile, nodes({"node-a", "node-b"}) + pod_yaml("web"));
  const PodResult& p = only(r);
  EXPECT_EQ(p.result, "Error");
  EXPECT_EQ(p.message, "running PreScore plugin \"PreScoreRules\": no");
}

TEST_F(Cycle, EachDecisionUpdatesTheSnapshotBeforeTheNextPod) {
  const std::string profile = profile_with(R"(    filter:
      enabled: [{name: FilterRules}]
  pluginConfig:
  - name: FilterRules
    args: {maxPods: 1}
)");
  const RunResult r = harness_.run(
      profile, nodes({"node-a", "node-b"}) + pod_yaml("p1") + pod_yaml("p2") + pod_yaml("p3"));
  ASSERT_EQ(r.pods.size(), 3u);
  EXPECT_EQ(r.pods[0].result, "Scheduled");
  EXPECT_EQ(r.pods[1].result, "Scheduled");
  EXPECT_NE(r.pods[0].node, r.pods[1].node);
  EXPECT_EQ(r.pods[2].result, "Unschedulable");
  EXPECT_EQ(r.pods[2].message, "0/2 nodes are available: 2 Too many pods.");
}

TEST_F(Cycle, FilterStopsOnceEnoughFeasibleNodesAreFound) {
  std::string cluster;
  for (int i = 0; i < 200; ++i)
    cluster += node_yaml("node-" + std::to_string(1000 + i));
  const std::string profile = profile_with(R"(    filter:
      enabled: [{name: FilterRules}]
)");
  const RunResult r = harness_.run(profile, cluster + pod_yaml("p1") + pod_yaml("p2"));
  ASSERT_EQ(r.pods.size(), 2u);
  // 200 nodes: adaptive 50 - 200/125 = 49% -> 98, raised to the minimum of 100.
  auto evaluated = [](const PodResult& p) {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < p.explain->nodes.size(); ++i) {
      if (p.explain->nodes[i].second.filter.code == "Success") out.push_back(i);
    }
    return out;
  };
  const auto first = evaluated(r.pods[0]);
  const auto second = evaluated(r.pods[1]);
  ASSERT_EQ(first.size(), 100u);
  EXPECT_EQ(first.front(), 0u);
  EXPECT_EQ(first.back(), 99u);
  EXPECT_EQ(r.pods[0].explain->nodes[150].second.filter.reasons,
            std::vector<std::string>{"enough feasible nodes were found before this one"});
  // The next pod starts where the first stopped.
  ASSERT_EQ(second.size(), 100u);
  EXPECT_EQ(second.front(), 100u);
  EXPECT_EQ(second.back(), 199u);
}

// The benchmarks' "plugin calls per pod" comes from this counter: every hook through the
// framework, on whichever thread ran it.
TEST_F(Cycle, EveryHookInvocationIsCountedOnEveryThread) {
  const std::string profile = profile_with(R"(    filter:
      enabled: [{name: FilterRules}]
    score:
      enabled: [{name: ScoreRules}]
  pluginConfig:
  - name: FilterRules
    args:
      nodes:
        node-c: {code: Unschedulable, reasons: [Insufficient cpu]}
)");
  const std::uint64_t before = framework::HookActivity::total_calls();
  const RunResult r = harness_.run(
      profile, nodes({"node-a", "node-b", "node-c"}) + pod_yaml("web-1") + pod_yaml("web-2"));
  ASSERT_EQ(r.pods.size(), 2u);
  EXPECT_EQ(r.pods[0].result, "Scheduled");
  EXPECT_EQ(r.pods[1].result, "Scheduled");
  // Per pod: Filter on 3 nodes, Score on the 2 that pass, Bind (QueueSort's comparisons are
  // not hook invocations through the framework).
  EXPECT_EQ(framework::HookActivity::total_calls() - before, 2u * (3 + 2 + 1));
}

TEST_F(Cycle, TiesAreBrokenBySeedReproducibly) {
  std::string cluster = nodes({"node-a", "node-b", "node-c", "node-d", "node-e"});
  for (int i = 0; i < 12; ++i)
    cluster += pod_yaml("p" + std::to_string(i));
  const std::string profile = profile_with("");
  auto placements = [&](std::uint64_t seed) {
    std::vector<std::string> out;
    for (const PodResult& p :
         harness_.run(profile, cluster, {false, seed, {}, std::nullopt}).pods) {
      out.push_back(p.node);
    }
    return out;
  };
  const auto a = placements(7);
  EXPECT_EQ(a, placements(7));
  EXPECT_NE(a, placements(8));
  EXPECT_EQ(std::set<std::string>(a.begin(), a.end()).size() > 1, true);  // ties really spread
}

TEST_F(Cycle, ParallelFilterAndScoreDecideExactlyAsASequentialRun) {
  std::string cluster;
  std::string rejections;
  std::string scores;
  for (int i = 0; i < 300; ++i) {
    const std::string name = "node-" + std::to_string(1000 + i);
    cluster += node_yaml(name);
    if (i % 3 == 0) rejections += "        " + name + ": {code: Unschedulable, reasons: [no]}\n";
    scores += name + ": " + std::to_string((i * 37) % 101) + ", ";
  }
  for (int i = 0; i < 40; ++i)
    cluster += pod_yaml("p" + std::to_string(i));
  const std::string plugins = R"(    filter:
      enabled: [{name: FilterRules}]
    score:
      enabled: [{name: ScoreRules}]
  pluginConfig:
  - name: FilterRules
    args:
      maxPods: 1
      nodes:
)" + rejections + "  - name: ScoreRules\n    args: {scores: {" +
                              scores + "}}\n";
  auto placements = [&](int parallelism) {
    std::string profile = profile_with(plugins);
    profile.replace(profile.find("profiles:"), 9,
                    "parallelism: " + std::to_string(parallelism) + "\nprofiles:");
    std::vector<std::string> out;
    for (const PodResult& p : harness_.run(profile, cluster).pods)
      out.push_back(p.node);
    return out;
  };
  const auto sequential = placements(1);
  EXPECT_EQ(sequential.size(), 40u);
  EXPECT_EQ(std::set<std::string>(sequential.begin(), sequential.end()).size(), 40u);
  EXPECT_EQ(placements(16), sequential);
}

// The default plugins count in parallel in PreFilter and PreScore (PodTopologySpread,
// InterPodAffinity): the placements and messages must be those of a sequential run.
TEST_F(Cycle, DefaultPluginsCountInParallelYetDecideAsASequentialRun) {
  std::string cluster;
  for (int i = 0; i < 90; ++i) {
    const std::string name = "node-" + std::to_string(100 + i);
    cluster += "apiVersion: v1\nkind: Node\nmetadata:\n  name: " + name +
               "\n  labels: {kubernetes.io/hostname: " + name +
               ", topology.kubernetes.io/zone: zone-" + std::to_string(i % 3) +
               "}\nstatus:\n  allocatable: {cpu: '4', memory: 8Gi, pods: '110'}\n---\n";
  }
  const std::string spread =
      "  topologySpreadConstraints:\n"
      "  - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: "
      "DoNotSchedule, labelSelector: {matchLabels: {app: web}}}\n"
      "  - {maxSkew: 2, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway, "
      "labelSelector: {matchLabels: {app: web}}}\n";
  const std::string anti =
      "  affinity:\n    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
      "      - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: db}}}\n"
      "    podAffinity:\n      preferredDuringSchedulingIgnoredDuringExecution:\n"
      "      - weight: 10\n        podAffinityTerm: {topologyKey: topology.kubernetes.io/zone, "
      "labelSelector: {matchLabels: {app: web}}}\n";
  for (int i = 0; i < 30; ++i)
    cluster += pod_yaml("web-" + std::to_string(i), "  labels: {app: web}\n", spread);
  for (int i = 0; i < 100; ++i)  // 90 nodes: the last 10 cannot be placed
    cluster += pod_yaml("db-" + std::to_string(i), "  labels: {app: db}\n", anti);
  auto decisions = [&](int parallelism) {
    const std::string profile =
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        "parallelism: " +
        std::to_string(parallelism) + "\nprofiles:\n- schedulerName: default-scheduler\n";
    std::vector<std::string> out;
    for (const PodResult& p : harness_.run(profile, cluster).pods)
      out.push_back(p.pod + " " + p.result + " " + p.node + " " + p.message);
    return out;
  };
  const auto sequential = decisions(1);
  ASSERT_EQ(sequential.size(), 130u);
  EXPECT_EQ(std::count_if(sequential.begin(), sequential.end(),
                          [](const std::string& d) { return d.find(" Scheduled ") != d.npos; }),
            120);
  EXPECT_EQ(sequential.back(),
            "default/db-99 Unschedulable  0/90 nodes are available: 90 node(s) didn't match pod "
            "anti-affinity rules. no new claims to deallocate, preemption: 0/90 nodes are "
            "available: 90 No preemption victims "
            "found for incoming pod.");
  EXPECT_EQ(decisions(16), sequential);
}

}  // namespace
}  // namespace schedhost
