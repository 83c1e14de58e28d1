// Opportunistic batching (upstream v1.35, scheduler/opportunistic_batch.hpp) with the built-in
// plugins: a pod with the same signature as the one before it takes the next node of that pod's
// ranking, unscored, only when the node just taken is full for it; anything else scores as usual.
// Every decision must be the one scoring would have made, with the gate on or off.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "scheduler_harness.hpp"
#include "support/log_capture.hpp"
#include "support/test_extender.hpp"

namespace schedhost {
namespace {

using scheduler::RunOptions;
using scheduler::RunResult;
using ::testing::ElementsAre;
using testing::profile_with;

// Four nodes of 8, 7, 6 and 5 CPUs: LeastAllocated ranks them in that order.
std::string nodes() {
  std::string out;
  for (const auto& [name, cpu] : std::vector<std::pair<std::string, std::string>>{
           {"node-a", "8"}, {"node-b", "7"}, {"node-c", "6"}, {"node-d", "5"}}) {
    out += "apiVersion: v1\nkind: Node\nmetadata: {name: " + name +
           "}\nstatus: {allocatable: {cpu: '" + cpu + "', memory: 8Gi, pods: '110'}}\n---\n";
  }
  return out;
}

// A pending pod requesting cpu; spec_extra is appended under spec, metadata_extra under metadata.
std::string pod(const std::string& name, const std::string& cpu, const std::string& spec_extra = "",
                const std::string& metadata_extra = "") {
  return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name + "\n  namespace: default\n" +
         metadata_extra +
         "spec:\n  containers: [{name: c, image: busybox, resources: {requests: {cpu: " + cpu +
         "}}}]\n" + spec_extra + "---\n";
}

// NodeResourcesFit and `more` at PreFilter, Filter, PreScore and Score, `filter_only` at Filter;
// then `config` (pluginConfig). profile_with's multiPoint disables everything else.
std::string profile(const std::vector<std::string>& more = {},
                    const std::vector<std::string>& filter_only = {},
                    const std::string& config = "") {
  const auto list = [](std::vector<std::string> names) {
    std::string out;
    for (const std::string& n : names)
      out += (out.empty() ? "" : ", ") + ("{name: " + n + "}");
    return "      enabled: [" + out + "]\n";
  };
  std::vector<std::string> all = {"NodeResourcesFit"};
  all.insert(all.end(), more.begin(), more.end());
  std::vector<std::string> filters = all;
  filters.insert(filters.end(), filter_only.begin(), filter_only.end());
  return profile_with("    preFilter:\n" + list(all) + "    filter:\n" + list(filters) +
                      "    preScore:\n" + list(all) + "    score:\n" + list(all) + config);
}

struct Outcome {
  std::string pod, node;
  std::optional<std::string> reused_from;  // whose ranking was reused, if any
  std::size_t left = 0;
  bool operator==(const Outcome&) const = default;
};
std::ostream& operator<<(std::ostream& os, const Outcome& o) {
  return os << "{" << o.pod << " on " << o.node << ", reused from "
            << o.reused_from.value_or("nobody") << ", " << o.left << " left}";
}

std::vector<Outcome> outcomes(const RunResult& r) {
  std::vector<Outcome> out;
  for (const scheduler::PodResult& p : r.pods) {
    Outcome o{p.pod, p.node, std::nullopt, 0};
    if (p.explain && p.explain->reused) {
      o.reused_from = p.explain->reused->ranked_by;
      o.left = p.explain->reused->left;
    }
    out.push_back(o);
  }
  return out;
}

RunOptions gate(bool batching) {
  RunOptions options{true, 0, {}, std::nullopt};
  options.feature_gates.opportunistic_batching = batching;
  return options;
}

class Batching : public ::testing::Test {
 protected:
  testing::SchedulerHarness harness_;
};

TEST_F(Batching, PodsThatFillANodeEachTakeTheFirstPodsRankingInOrder) {
  const std::string cluster = nodes() + pod("p1", "4500m") + pod("p2", "4500m") +
                              pod("p3", "4500m") + pod("p4", "4500m") + pod("p5", "4500m");
  const RunResult batched = harness_.run(profile(), cluster, gate(true));
  EXPECT_THAT(outcomes(batched), ElementsAre(Outcome{"default/p1", "node-a", std::nullopt, 0},
                                             Outcome{"default/p2", "node-b", "default/p1", 2},
                                             Outcome{"default/p3", "node-c", "default/p1", 1},
                                             Outcome{"default/p4", "node-d", "default/p1", 0},
                                             Outcome{"default/p5", "", std::nullopt, 0}));
  EXPECT_EQ(batched.pods[4].message, "0/4 nodes are available: 4 Insufficient cpu.");
  // The batched pod's explanation: its node passed Filter, the others were not looked at.
  ASSERT_TRUE(batched.pods[1].explain);
  const auto& nodes_b = batched.pods[1].explain->nodes;
  ASSERT_EQ(nodes_b.size(), 4u);
  EXPECT_EQ(nodes_b[1].first, "node-b");
  EXPECT_EQ(nodes_b[1].second.filter.code, "Success");
  EXPECT_FALSE(nodes_b[1].second.total.has_value());
  EXPECT_EQ(nodes_b[0].second.filter.code, "NotEvaluated");
  EXPECT_EQ(
      nodes_b[0].second.filter.reasons,
      std::vector<std::string>{"the ranking of default/p1 was reused (opportunistic batching)"});

  // With the gate off every pod is scored, and lands where batching put it.
  const RunResult scored = harness_.run(profile(), cluster, gate(false));
  EXPECT_THAT(outcomes(scored), ElementsAre(Outcome{"default/p1", "node-a", std::nullopt, 0},
                                            Outcome{"default/p2", "node-b", std::nullopt, 0},
                                            Outcome{"default/p3", "node-c", std::nullopt, 0},
                                            Outcome{"default/p4", "node-d", std::nullopt, 0},
                                            Outcome{"default/p5", "", std::nullopt, 0}));
  EXPECT_EQ(scored.pods[1].explain->nodes[1].second.total, 66);  // node-b, scored
}

TEST_F(Batching, PodsThatLeaveRoomOnTheirNodeAreScoredEachTime) {
  // 1 CPU each: node-a still fits the next pod, so the kept ranking cannot be trusted; each pod
  // is scored on the nodes as the ones before it left them.
  const RunResult r = harness_.run(
      profile(), nodes() + pod("p1", "1") + pod("p2", "1") + pod("p3", "1"), gate(true));
  EXPECT_THAT(outcomes(r), ElementsAre(Outcome{"default/p1", "node-a", std::nullopt, 0},
                                       Outcome{"default/p2", "node-b", std::nullopt, 0},
                                       Outcome{"default/p3", "node-c", std::nullopt, 0}));
}

TEST_F(Batching, AnotherSignatureScoresAndStartsARankingOfItsOwn) {
  const RunResult r = harness_.run(
      profile(), nodes() + pod("big", "4500m") + pod("small-1", "4") + pod("small-2", "4"),
      gate(true));
  EXPECT_THAT(outcomes(r), ElementsAre(Outcome{"default/big", "node-a", std::nullopt, 0},
                                       Outcome{"default/small-1", "node-b", std::nullopt, 0},
                                       Outcome{"default/small-2", "node-c", "default/small-1", 1}));
}

TEST_F(Batching, AProfileWithAPluginThatCannotSignDoesNotBatch) {
  // FilterRules (a test fixture) has no SignPod: upstream disables signatures for the profile.
  const RunResult r = harness_.run(profile({}, {"FilterRules"}),
                                   nodes() + pod("p1", "4500m") + pod("p2", "4500m"), gate(true));
  EXPECT_THAT(outcomes(r), ElementsAre(Outcome{"default/p1", "node-a", std::nullopt, 0},
                                       Outcome{"default/p2", "node-b", std::nullopt, 0}));
}

TEST_F(Batching, SpreadingWithDefaultConstraintsNeverBatchesButWithoutThemItDoes) {
  const std::vector<std::string> spread = {"PodTopologySpread"};
  const std::string cluster = nodes() + pod("p1", "4500m") + pod("p2", "4500m");
  // The system default constraints (upstream's default): not signable.
  EXPECT_THAT(outcomes(harness_.run(profile(spread), cluster, gate(true))),
              ElementsAre(Outcome{"default/p1", "node-a", std::nullopt, 0},
                          Outcome{"default/p2", "node-b", std::nullopt, 0}));
  // defaultingType List without constraints, as upstream advises for batching.
  const std::string list = R"(  pluginConfig:
  - name: PodTopologySpread
    args: {defaultingType: List}
)";
  EXPECT_THAT(outcomes(harness_.run(profile(spread, {}, list), cluster, gate(true))),
              ElementsAre(Outcome{"default/p1", "node-a", std::nullopt, 0},
                          Outcome{"default/p2", "node-b", "default/p1", 2}));
  // A pod with constraints of its own is not signable either.
  const std::string own =
      "  topologySpreadConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/hostname, "
      "whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: x}}}]\n";
  EXPECT_THAT(outcomes(harness_.run(profile(spread, {}, list),
                                    nodes() + pod("p1", "4500m", own) + pod("p2", "4500m", own),
                                    gate(true))),
              ElementsAre(Outcome{"default/p1", "node-a", std::nullopt, 0},
                          Outcome{"default/p2", "node-b", std::nullopt, 0}));
}

TEST_F(Batching, APodWithPodAntiAffinityIsNotSigned) {
  const std::vector<std::string> affinity = {"InterPodAffinity"};
  const std::string anti =
      "  affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
      "[{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: db}}}]}}\n";
  const std::string labels = "  labels: {app: web}\n";
  EXPECT_THAT(outcomes(harness_.run(
                  profile(affinity),
                  nodes() + pod("p1", "4500m", anti, labels) + pod("p2", "4500m", anti, labels),
                  gate(true))),
              ElementsAre(Outcome{"default/p1", "node-a", std::nullopt, 0},
                          Outcome{"default/p2", "node-b", std::nullopt, 0}));
  // Without terms of their own, pods with equal labels batch; other labels do not.
  EXPECT_THAT(outcomes(harness_.run(profile(affinity),
                                    nodes() + pod("p1", "4500m", "", labels) +
                                        pod("p2", "4500m", "", labels) +
                                        pod("p3", "4500m", "", "  labels: {app: other}\n"),
                                    gate(true))),
              ElementsAre(Outcome{"default/p1", "node-a", std::nullopt, 0},
                          Outcome{"default/p2", "node-b", "default/p1", 2},
                          Outcome{"default/p3", "node-c", std::nullopt, 0}));
}

TEST_F(Batching, ThePodAfterAFailedOneScoresAgain) {
  // huge fails: the pod after it was not popped right after the ranking's pod.
  const RunResult r = harness_.run(
      profile(), nodes() + pod("p1", "4500m") + pod("huge", "64") + pod("p2", "4500m"), gate(true));
  EXPECT_THAT(outcomes(r), ElementsAre(Outcome{"default/p1", "node-a", std::nullopt, 0},
                                       Outcome{"default/huge", "", std::nullopt, 0},
                                       Outcome{"default/p2", "node-b", std::nullopt, 0}));
}

// RawSigner (a test fixture) signs with whatever args.fragment says, JSON or not, or throws.
std::string raw_signer(const std::string& args) {
  return "  pluginConfig:\n  - name: RawSigner\n    args: " + args + "\n";
}

TEST_F(Batching, AFragmentAPluginWritesAsJsonIsTakenAsIs) {
  const RunResult r = harness_.run(profile({}, {"RawSigner"}, raw_signer("{fragment: '[1, 2]'}")),
                                   nodes() + pod("p1", "4500m") + pod("p2", "4500m"), gate(true));
  EXPECT_THAT(outcomes(r), ElementsAre(Outcome{"default/p1", "node-a", std::nullopt, 0},
                                       Outcome{"default/p2", "node-b", "default/p1", 2}));
}

TEST_F(Batching, AFragmentThatIsNotJsonOrASignerThatThrowsOnlyStopsBatching) {
  const std::string cluster =
      nodes() + pod("p1", "4500m") + pod("p2", "4500m") + pod("p3", "4500m");
  const auto scored = ElementsAre(Outcome{"default/p1", "node-a", std::nullopt, 0},
                                  Outcome{"default/p2", "node-b", std::nullopt, 0},
                                  Outcome{"default/p3", "node-c", std::nullopt, 0});
  testing::LogCapture log;
  EXPECT_THAT(outcomes(harness_.run(profile({}, {"RawSigner"}, raw_signer("{fragment: '{oops'}")),
                                    cluster, gate(true))),
              scored);
  std::size_t warnings = 0;
  for (const std::string& line : log.lines()) {
    if (line.find("plugin \"RawSigner\" signed pod default/p1 with a fragment test/raw that is "
                  "not JSON") != std::string::npos) {
      ++warnings;
    }
    EXPECT_EQ(line.find("signed pod default/p2"), std::string::npos) << "logged once: " << line;
  }
  EXPECT_EQ(warnings, 1u);
  EXPECT_THAT(outcomes(harness_.run(profile({}, {"RawSigner"}, raw_signer("{throws: true}")),
                                    cluster, gate(true))),
              scored);
}

TEST_F(Batching, AConfigurationWithExtendersDoesNotBatch) {
  // As upstream: the extenders' filter and scores are not the plugins' to sign for.
  testing::TestExtender extender;
  extender.answer("prioritize", 200, "[]");
  const RunResult r = harness_.run(profile() + "extenders:\n- {urlPrefix: " + extender.url() +
                                       ", prioritizeVerb: prioritize, weight: 1}\n",
                                   nodes() + pod("p1", "4500m") + pod("p2", "4500m"), gate(true));
  EXPECT_THAT(outcomes(r), ElementsAre(Outcome{"default/p1", "node-a", std::nullopt, 0},
                                       Outcome{"default/p2", "node-b", std::nullopt, 0}));
  EXPECT_EQ(extender.requests_at("prioritize").size(), 2u);  // both pods were scored
}

}  // namespace
}  // namespace schedhost
