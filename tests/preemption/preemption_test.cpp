// DefaultPreemption (plugins/default_preemption) through the real host: victims by priority and
// PodDisruptionBudget, upstream's node-choice order, its messages, the RemovePod/AddPod dry runs,
// candidate sampling, and what `run` does with the result: victims evicted and reported, the
// preemptor retried on its nominated node.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/input_error.hpp"
#include "scheduler/scheduler_harness.hpp"
#include "support/test_extender.hpp"

namespace schedhost {
namespace {

using scheduler::PodResult;
using scheduler::RunResult;
using ::testing::ElementsAre;

struct Decision {
  std::string pod, result, node, message;
  std::vector<std::string> preempted;
  bool operator==(const Decision&) const = default;
};
std::ostream& operator<<(std::ostream& os, const Decision& d) {
  os << "{" << d.pod << ", " << d.result << ", " << d.node << ", \"" << d.message << "\", [";
  for (const std::string& p : d.preempted)
    os << p << " ";
  return os << "]}";
}

std::vector<Decision> decisions(const RunResult& r) {
  std::vector<Decision> out;
  for (const PodResult& p : r.pods)
    out.push_back({p.pod, p.result, p.node, p.message, p.preempted});
  return out;
}

const std::string kDefaultProfile = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
)";

std::string with_preemption_args(const std::string& args) {
  return kDefaultProfile + "  pluginConfig:\n  - name: DefaultPreemption\n    args: " + args + "\n";
}

std::string node(const std::string& name, const std::string& cpu = "4") {
  return "apiVersion: v1\nkind: Node\nmetadata: {name: " + name +
         ", labels: {kubernetes.io/hostname: " + name + "}}\nstatus: {allocatable: {cpu: \"" + cpu +
         "\", memory: 8Gi, pods: \"110\"}}\n---\n";
}

// A pod; on_node empty means pending. extra_spec and extra_metadata are flow-mapping members.
std::string pod(const std::string& name, int priority, const std::string& cpu,
                const std::string& on_node = "", const std::string& labels = "{}",
                const std::string& extra_spec = "", const std::string& status = "{}") {
  std::string spec = "{priority: " + std::to_string(priority) +
                     ", containers: [{name: c, image: x, resources: {requests: {cpu: \"" + cpu +
                     "\"}}}]";
  if (!on_node.empty()) spec += ", nodeName: " + on_node;
  if (!extra_spec.empty()) spec += ", " + extra_spec;
  spec += "}";
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
         ", namespace: default, labels: " + labels + "}\nspec: " + spec + "\nstatus: " + status +
         "\n---\n";
}

std::string pdb(const std::string& name, const std::string& selector, int allowed) {
  return "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: " + name +
         ", namespace: default}\nspec: {minAvailable: 1, selector: " + selector +
         "}\nstatus: {disruptionsAllowed: " + std::to_string(allowed) + "}\n---\n";
}

class Preemption : public ::testing::Test {
 protected:
  RunResult run(const std::string& cluster, const std::string& profile = kDefaultProfile,
                scheduler::RunOptions options = {false, 0, {}, std::nullopt}) {
    return harness_.run(profile, cluster, options);
  }
  testing::SchedulerHarness harness_;
};

// node-a holds two low-priority pods, node-b one of middle priority. Evicting low-a2 alone on
// node-a makes room (low-a1, more important, is put back), and node-a's highest victim priority
// (5) is lower than node-b's (20).
const std::string kTwoNodes =
    node("node-a") + node("node-b") +
    pod("low-a1", 10, "2", "node-a", "{app: batch}", "", "{startTime: '2026-11-01T00:00:00Z'}") +
    pod("low-a2", 5, "2", "node-a", "{app: batch}") +
    pod("mid-b1", 20, "3", "node-b", "{app: web}") + pod("high", 100, "2");

TEST_F(Preemption, EvictsTheFewestLeastImportantPodsAndRetriesOnTheNominatedNode) {
  const RunResult r = run(kTwoNodes, kDefaultProfile, {true, 0, {}, std::nullopt});
  EXPECT_THAT(decisions(r),
              ElementsAre(Decision{"default/low-a2",
                                   "Preempted",
                                   "node-a",
                                   "Preempted by pod uid-default-high on node node-a",
                                   {}},
                          Decision{"default/high", "Scheduled", "node-a", "", {"default/low-a2"}}));
  // The retry evaluated the nominated node alone.
  ASSERT_TRUE(r.pods[1].explain);
  ASSERT_EQ(r.pods[1].explain->nodes.size(), 2u);
  EXPECT_EQ(r.pods[1].explain->nodes[0].first, "node-a");
  EXPECT_EQ(r.pods[1].explain->nodes[0].second.filter.code, "Success");
  EXPECT_EQ(r.pods[1].explain->nodes[1].second.filter.code, "NotEvaluated");
  const auto summary = r.summary();
  EXPECT_EQ(summary.scheduled, 1);
  EXPECT_EQ(summary.preempted, 1);
}

TEST_F(Preemption, APodDisruptionBudgetSteersItToANodeWithoutViolations) {
  const RunResult r = run(kTwoNodes + pdb("batch", "{matchLabels: {app: batch}}", 0));
  EXPECT_THAT(decisions(r),
              ElementsAre(Decision{"default/mid-b1",
                                   "Preempted",
                                   "node-b",
                                   "Preempted by pod uid-default-high on node node-b",
                                   {}},
                          Decision{"default/high", "Scheduled", "node-b", "", {"default/mid-b1"}}));
}

// One disruption allowed for both batch pods: counted most important first, low-a1 uses it up and
// low-a2 would violate the budget, so low-a2 is put back first and low-a1 becomes the victim.
TEST_F(Preemption, ABudgetIsSpentOnTheMostImportantVictimsFirst) {
  const RunResult r = run(kTwoNodes + pdb("batch", "{matchLabels: {app: batch}}", 1));
  EXPECT_THAT(decisions(r),
              ElementsAre(Decision{"default/low-a1",
                                   "Preempted",
                                   "node-a",
                                   "Preempted by pod uid-default-high on node node-a",
                                   {}},
                          Decision{"default/high", "Scheduled", "node-a", "", {"default/low-a1"}}));
}

TEST_F(Preemption, BudgetsThatMatchNothingAreIgnored) {
  // Another namespace's budget, an empty selector, and disruptedPods already counting the pod.
  const std::string other_ns =
      "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: x, namespace: other}\n"
      "spec: {selector: {matchLabels: {app: batch}}}\n---\n";
  const std::string disrupted =
      "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: d}\n"
      "spec: {selector: {matchLabels: {app: batch}}}\n"
      "status: {disruptionsAllowed: 0, disruptedPods: {low-a2: '2026-11-30T00:00:00Z'}}\n---\n";
  const RunResult r = run(kTwoNodes + other_ns + pdb("empty", "{}", 0) + disrupted);
  EXPECT_EQ(r.pods[1].node, "node-a");
  EXPECT_EQ(r.pods[1].preempted, std::vector<std::string>{"default/low-a2"});
}

TEST_F(Preemption, WhenEveryChoiceViolatesABudgetItStillPreempts) {
  const RunResult r = run(node("node-a") + pod("low-a1", 10, "2", "node-a", "{app: batch}") +
                          pod("low-a2", 5, "2", "node-a", "{app: batch}") + pod("high", 100, "2") +
                          pdb("batch", "{matchLabels: {app: batch}}", 0));
  EXPECT_EQ(r.pods[1].pod, "default/high");
  EXPECT_EQ(r.pods[1].result, "Scheduled");
  EXPECT_EQ(r.pods[1].preempted, std::vector<std::string>{"default/low-a2"});
}

// Equal highest victim priority on both nodes: the smaller sum of victim priorities wins.
TEST_F(Preemption, NodeChoiceSmallestSumOfVictimPriorities) {
  const RunResult r = run(node("node-a") + node("node-b") + pod("a1", 5, "2", "node-a") +
                          pod("a2", 5, "2", "node-a") + pod("b1", 5, "2", "node-b") +
                          pod("b2", 1, "2", "node-b") + pod("high", 100, "4"));
  EXPECT_EQ(r.pods.back().node, "node-b");
  EXPECT_EQ(r.pods.back().preempted, (std::vector<std::string>{"default/b1", "default/b2"}));
}

// Same victims' priorities everywhere: the node whose highest-priority victim started last wins.
TEST_F(Preemption, NodeChoiceLatestStartOfTheHighestPriorityVictims) {
  const RunResult r =
      run(node("node-a") + node("node-b") + node("node-c") +
          pod("a", 5, "4", "node-a", "{}", "", "{startTime: '2026-01-01T00:00:00Z'}") +
          pod("b", 5, "4", "node-b", "{}", "", "{startTime: '2026-06-01T00:00:00Z'}") +
          pod("c", 5, "4", "node-c", "{}", "", "{startTime: '2026-03-01T00:00:00Z'}") +
          pod("high", 100, "4"));
  EXPECT_EQ(r.pods.back().node, "node-b");
  EXPECT_EQ(r.pods.back().preempted, std::vector<std::string>{"default/b"});
}

TEST_F(Preemption, UpstreamMessagesWhenItCannotHelp) {
  const std::string tainted =
      "apiVersion: v1\nkind: Node\nmetadata: {name: node-b}\nspec: {taints: [{key: dedicated, "
      "value: gpu, effect: NoSchedule}]}\nstatus: {allocatable: {cpu: '4', memory: 8Gi, pods: "
      "'110'}}\n---\n";
  const RunResult r =
      run(node("node-a") + tainted + pod("run-a", 50, "3", "node-a") + pod("low", 1, "2") +
          pod("picky", 100, "0", "", "{}", "nodeSelector: {disk: ssd}") + pod("huge", 100, "5") +
          pod("never", 100, "2", "", "{}", "preemptionPolicy: Never"));
  EXPECT_THAT(
      decisions(r),
      ElementsAre(
          Decision{"default/picky",
                   "Unschedulable",
                   "",
                   "0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, "
                   "1 node(s) had untolerated taint(s). no new claims to deallocate, preemption: "
                   "0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
                   {}},
          Decision{"default/huge",
                   "Unschedulable",
                   "",
                   "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s)"
                   ". no new claims to deallocate, preemption: 0/2 nodes are available: 2 "
                   "Preemption is not helpful for scheduling.",
                   {}},
          Decision{"default/never",
                   "Unschedulable",
                   "",
                   "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s)"
                   ". no new claims to deallocate, preemption: not eligible due to "
                   "preemptionPolicy=Never.",
                   {}},
          Decision{"default/low",
                   "Unschedulable",
                   "",
                   "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s)"
                   ". no new claims to deallocate, preemption: 0/2 nodes are available: 1 No "
                   "preemption victims found for incoming pod, 1 Preemption is not helpful for "
                   "scheduling.",
                   {}}));
}

// A pod being deleted (metadata.deletionTimestamp) on node-a, with the given status.conditions.
std::string leaving(int priority, const std::string& conditions = "[]",
                    const std::string& deletion = "deletionTimestamp: '2026-11-30T00:00:00Z', ") {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: leaving, namespace: default, " + deletion +
         "}\nspec: {nodeName: node-a, priority: " + std::to_string(priority) +
         ", containers: [{name: c, image: x, resources: {requests: {cpu: '4'}}}]}\nstatus: "
         "{phase: Running, conditions: " +
         conditions + "}\n---\n";
}
const std::string kPreemptedByScheduler =
    "[{type: DisruptionTarget, status: 'True', reason: PreemptionByScheduler, message: "
    "'default-scheduler: preempting to accommodate a higher priority pod'}]";
const std::string kHighNominatedToNodeA =
    pod("high", 100, "2", "", "{}", "", "{nominatedNodeName: node-a}");
const std::string kWaitsForThePreemption =
    "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: not "
    "eligible due to a terminating pod on the nominated node.";

// v1.35: a lower-priority pod on the nominated node that a scheduler is already preempting
// (DisruptionTarget=True, reason PreemptionByScheduler) means the pod waits for it to go.
TEST_F(Preemption, APodTheSchedulerIsPreemptingOnTheNominatedNodeMeansWait) {
  const RunResult r =
      run(node("node-a") + leaving(1, kPreemptedByScheduler) + kHighNominatedToNodeA);
  EXPECT_THAT(decisions(r), ElementsAre(Decision{
                                "default/high", "Unschedulable", "", kWaitsForThePreemption, {}}));
  // Only the first DisruptionTarget condition counts.
  const std::string twice =
      "[{type: Ready, status: 'False'}, {type: DisruptionTarget, status: 'True', reason: "
      "PreemptionByScheduler}, {type: DisruptionTarget, status: 'False', reason: x}]";
  EXPECT_EQ(run(node("node-a") + leaving(1, twice) + kHighNominatedToNodeA).pods.back().message,
            kWaitsForThePreemption);
}

// v1.35 (unlike v1.28): a pod terminating for any other reason does not hold the pod back; it
// preempts, and the terminating pod is the victim.
TEST_F(Preemption, APodTerminatingForAnotherReasonDoesNotHoldThePreemptorBack) {
  const std::vector<Decision> preempts{
      Decision{"default/leaving",
               "Preempted",
               "node-a",
               "Preempted by pod uid-default-high on node node-a",
               {}},
      Decision{"default/high", "Scheduled", "node-a", "", {"default/leaving"}}};
  for (const std::string& conditions : {
           std::string("[]"),
           std::string("[{type: DisruptionTarget, status: 'True', reason: TerminationByKubelet}]"),
           std::string(
               "[{type: DisruptionTarget, status: 'False', reason: PreemptionByScheduler}]"),
           std::string("[{type: DisruptionTarget, status: 'False', reason: x}, {type: "
                       "DisruptionTarget, status: 'True', reason: PreemptionByScheduler}]"),
       }) {
    SCOPED_TRACE(conditions);
    EXPECT_EQ(decisions(run(node("node-a") + leaving(1, conditions) + kHighNominatedToNodeA)),
              preempts);
  }
  // The condition without a deletionTimestamp: not terminating.
  EXPECT_EQ(decisions(run(node("node-a") + leaving(1, kPreemptedByScheduler, "") +
                          kHighNominatedToNodeA)),
            preempts);
}

// Only a pod of lower priority than the preemptor's holds it back.
TEST_F(Preemption, APodOfEqualOrHigherPriorityBeingPreemptedDoesNotHoldItBack) {
  for (int priority : {100, 200}) {
    SCOPED_TRACE(priority);
    EXPECT_THAT(
        decisions(
            run(node("node-a") + leaving(priority, kPreemptedByScheduler) + kHighNominatedToNodeA)),
        ElementsAre(Decision{"default/high",
                             "Unschedulable",
                             "",
                             "0/1 nodes are available: 1 Insufficient cpu. no new claims to "
                             "deallocate, preemption: 0/1 nodes are available: 1 No preemption "
                             "victims found for incoming pod.",
                             {}}));
  }
}

// A PreFilterResult (NodeAffinity's matchFields on metadata.name) keeps node-a out of Filter: it
// is UnschedulableAndUnresolvable (upstream v1.35's NodeToStatus, for a node with no status of its
// own), so the nominated node-a does not hold the pod back and is not a candidate; node-b is.
const std::string kOnlyNodeB =
    "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
    "[{matchFields: [{key: metadata.name, operator: In, values: [node-b]}]}]}}}";

TEST_F(Preemption, ANominatedNodeOutsideThePreFilterResultDoesNotHoldThePodBack) {
  const RunResult r =
      run(node("node-a") + node("node-b") + leaving(1, kPreemptedByScheduler) +
          pod("low-b", 1, "4", "node-b") +
          pod("high", 100, "2", "", "{}", kOnlyNodeB, "{nominatedNodeName: node-a}"));
  EXPECT_THAT(decisions(r),
              ElementsAre(Decision{"default/low-b",
                                   "Preempted",
                                   "node-b",
                                   "Preempted by pod uid-default-high on node node-b",
                                   {}},
                          Decision{"default/high", "Scheduled", "node-b", "", {"default/low-b"}}));
}

TEST_F(Preemption, NodesOutsideThePreFilterResultAreNotCandidates) {
  // node-a has a victim to offer, but Filter never saw it; node-b has none.
  const RunResult r =
      run(node("node-a") + node("node-b") + pod("low-a", 1, "4", "node-a") +
          pod("top-b", 1000, "4", "node-b") + pod("high", 100, "2", "", "{}", kOnlyNodeB));
  // v1.35.4's words for it.
  EXPECT_THAT(decisions(r),
              ElementsAre(Decision{"default/high",
                                   "Unschedulable",
                                   "",
                                   "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't "
                                   "satisfy plugin(s) [NodeAffinity]. no new claims to deallocate, "
                                   "preemption: 0/2 nodes are available: 1 No preemption victims "
                                   "found for incoming pod, 1 Preemption is not helpful for "
                                   "scheduling.",
                                   {}}));
}

// The preemptor's anti-affinity rejects node-a because of db-low: the dry run removes the
// lower-priority pods through InterPodAffinity's RemovePod, then puts back the one that does not
// matter (cache-low) through AddPod.
TEST_F(Preemption, DryRunsUpdateThePreFilterStateThroughRemovePodAndAddPod) {
  const RunResult r =
      run(node("node-a") + pod("db-low", 1, "0", "node-a", "{app: db}") +
          pod("cache-low", 1, "0", "node-a", "{app: cache}") +
          pod("web", 100, "0", "", "{app: web}",
              "affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
              "[{labelSelector: {matchLabels: {app: db}}, topologyKey: "
              "kubernetes.io/hostname}]}}"));
  EXPECT_THAT(decisions(r),
              ElementsAre(Decision{"default/db-low",
                                   "Preempted",
                                   "node-a",
                                   "Preempted by pod uid-default-web on node node-a",
                                   {}},
                          Decision{"default/web", "Scheduled", "node-a", "", {"default/db-low"}}));
}

// Four candidate nodes; node-d is the best (lowest victim priority). With every node a candidate
// (the defaults) it always wins; with one candidate sampled from a random offset, which node
// wins depends on --seed.
TEST_F(Preemption, CandidateSamplingFollowsTheArgsAndTheSeed) {
  const std::string cluster = node("node-a") + node("node-b") + node("node-c") + node("node-d") +
                              pod("a", 40, "4", "node-a") + pod("b", 30, "4", "node-b") +
                              pod("c", 20, "4", "node-c") + pod("d", 10, "4", "node-d") +
                              pod("high", 100, "4");
  const std::string one_candidate =
      with_preemption_args("{minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 1}");
  std::set<std::string> chosen_by_default;
  std::set<std::string> chosen_by_sampling;
  for (std::uint64_t seed = 0; seed < 12; ++seed) {
    chosen_by_default.insert(
        run(cluster, kDefaultProfile, {false, seed, {}, std::nullopt}).pods.back().node);
    const RunResult sampled = run(cluster, one_candidate, {false, seed, {}, std::nullopt});
    chosen_by_sampling.insert(sampled.pods.back().node);
    // The same seed gives the same run.
    EXPECT_EQ(decisions(sampled),
              decisions(run(cluster, one_candidate, {false, seed, {}, std::nullopt})));
  }
  EXPECT_EQ(chosen_by_default, std::set<std::string>{"node-d"});
  EXPECT_GT(chosen_by_sampling.size(), 1u);
}

TEST_F(Preemption, ArgsAreValidatedWithUpstreamsMessages) {
  auto error_of = [&](const std::string& args) -> std::string {
    try {
      run(node("node-a"), with_preemption_args(args));
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_THAT(error_of("{minCandidateNodesPercentage: 101}"),
              ::testing::EndsWith("plugin \"DefaultPreemption\": minCandidateNodesPercentage: "
                                  "Invalid value: 101: not in valid range [0, 100]"));
  EXPECT_THAT(error_of("{minCandidateNodesAbsolute: -1}"),
              ::testing::EndsWith("minCandidateNodesAbsolute: Invalid value: -1: not in valid "
                                  "range [0, inf)"));
  EXPECT_THAT(
      error_of("{minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 0}"),
      ::testing::EndsWith("[minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the "
                          "same time as minCandidateNodesAbsolute, minCandidateNodesAbsolute: "
                          "Invalid value: 0: cannot be zero at the same time as "
                          "minCandidateNodesPercentage]"));
  EXPECT_THAT(error_of("{minCandidates: 3}"),
              ::testing::HasSubstr("unknown field \"minCandidates\""));
  EXPECT_EQ(error_of("{minCandidateNodesPercentage: 0}"), "");  // absolute keeps its default
}

// With a queue in arrival order, a pod this run placed can become a victim: its one entry turns
// into Preempted. A victim waiting at Permit is rejected there and unreserved.
const std::string kFifoProfile = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      disabled: [{name: '*'}]
    queueSort:
      enabled: [{name: FifoSort}]
    preFilter:
      enabled: [{name: NodeResourcesFit}]
    filter:
      enabled: [{name: NodeResourcesFit}]
    postFilter:
      enabled: [{name: DefaultPreemption}]
    reserve:
      enabled: [{name: Gang}]
    permit:
      enabled: [{name: Gang}]
    bind:
      enabled: [{name: DefaultBinder}]
  pluginConfig:
  - name: Gang
    args: {timeoutMs: 60000}
)";

std::string created(const std::string& pod_yaml, const std::string& time) {
  const std::string at = "metadata: {";
  std::string out = pod_yaml;
  out.replace(out.find(at), at.size(), "metadata: {creationTimestamp: '" + time + "', ");
  return out;
}

TEST_F(Preemption, APodPlacedEarlierInTheRunKeepsOneEntry) {
  const RunResult r = run(node("node-a") + created(pod("low", 1, "3"), "2026-11-30T00:00:00Z") +
                              created(pod("high", 100, "3"), "2026-11-30T00:01:00Z"),
                          kFifoProfile);
  EXPECT_THAT(decisions(r),
              ElementsAre(Decision{"default/low",
                                   "Preempted",
                                   "node-a",
                                   "Preempted by pod uid-default-high on node node-a",
                                   {}},
                          Decision{"default/high", "Scheduled", "node-a", "", {"default/low"}}));
}

TEST_F(Preemption, AVictimWaitingAtPermitIsRejectedAndUnreserved) {
  // gang-1 waits at Permit for a second gang member that never comes.
  const std::string waiting =
      "apiVersion: v1\nkind: Pod\nmetadata: {name: gang-1, namespace: default, "
      "creationTimestamp: '2026-11-30T00:00:00Z', labels: {gang: g}, annotations: {gang-size: "
      "'2'}}\nspec: {priority: 1, containers: [{name: c, image: x, resources: {requests: {cpu: "
      "'3'}}}]}\n---\n";
  const RunResult waited =
      run(node("node-a") + waiting + created(pod("high", 100, "3"), "2026-11-30T00:01:00Z"),
          kFifoProfile);
  EXPECT_THAT(decisions(waited),
              ElementsAre(Decision{"default/gang-1",
                                   "Preempted",
                                   "node-a",
                                   "Preempted by pod uid-default-high on node node-a",
                                   {}},
                          Decision{"default/high", "Scheduled", "node-a", "", {"default/gang-1"}}));
}

// A PostFilter plugin's nomination is checked before anything is evicted.
TEST_F(Preemption, ABadNominationIsAnErrorForThatPodAndEvictsNothing) {
  auto profile = [](const std::string& args) {
    return std::string(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    postFilter:
      disabled: [{name: DefaultPreemption}]
      enabled: [{name: PostFilterRules}]
  pluginConfig:
  - name: PostFilterRules
    args: )") +
           args + "\n";
  };
  const std::string cluster = node("node-a") + pod("low", 1, "3", "node-a") + pod("high", 100, "3");
  EXPECT_THAT(decisions(run(cluster, profile("{nominate: node-z}"))),
              ElementsAre(Decision{"default/high",
                                   "Error",
                                   "",
                                   "PostFilter plugin \"PostFilterRules\" nominated node "
                                   "\"node-z\", which is not in the cluster",
                                   {}}));
  EXPECT_THAT(decisions(run(cluster, profile("{nominate: node-a, victims: [nope]}"))),
              ElementsAre(Decision{"default/high",
                                   "Error",
                                   "",
                                   "PostFilter plugin \"PostFilterRules\" chose victim uid "
                                   "\"nope\", which is not a pod on node \"node-a\"",
                                   {}}));
  // A nomination that evicts nothing: the retry still does not fit, and does not preempt again.
  EXPECT_THAT(decisions(run(cluster, profile("{nominate: node-a}"))),
              ElementsAre(Decision{"default/high",
                                   "Unschedulable",
                                   "",
                                   "0/1 nodes are available: 1 Insufficient cpu.",
                                   {}}));
  // Victims named by a plugin are evicted.
  EXPECT_THAT(decisions(run(cluster, profile("{nominate: node-a, victims: [uid-default-low]}"))),
              ElementsAre(Decision{"default/low",
                                   "Preempted",
                                   "node-a",
                                   "Preempted by pod uid-default-high on node node-a",
                                   {}},
                          Decision{"default/high", "Scheduled", "node-a", "", {"default/low"}}));
}

}  // namespace
}  // namespace schedhost

namespace schedhost::preemption_extender_test {

using scheduler::RunResult;
using ::testing::ElementsAre;
using ::testing::Pair;

// kTwoNodes has two candidates: node-a (victim low-a2, priority 5) and node-b (mid-b1, 20).
// DefaultPreemption offers both to an extender with a preemptVerb, with their victims, and picks
// from what the extender keeps (upstream's evaluator: callExtenders, then SelectCandidate).
std::string profile_with(const testing::TestExtender& ext, const std::string& more = "") {
  return kDefaultProfile + "extenders:\n- {urlPrefix: " + ext.url() + ", preemptVerb: preempt" +
         more + "}\n";
}

// The pods an extender is offered on each node, by name (Nodes mode) or uid (nodeCacheCapable).
std::map<std::string, std::vector<std::string>> offered(const nlohmann::json& request) {
  std::map<std::string, std::vector<std::string>> out;
  const bool meta = request.contains("NodeNameToMetaVictims");
  for (const auto& [node, victims] :
       request[meta ? "NodeNameToMetaVictims" : "NodeNameToVictims"].items()) {
    for (const auto& p : victims["Pods"])
      out[node].push_back(meta ? p["UID"].get<std::string>()
                               : p["metadata"]["name"].get<std::string>());
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> outcome(const RunResult& r) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& p : r.pods)
    out.emplace_back(p.pod, p.result == "Unschedulable" ? p.message : p.result + " " + p.node);
  return out;
}

TEST(PreemptionExtender, SeesEveryCandidateAndThePodGoesWhereItsAnswerLeavesRoom) {
  testing::TestExtender ext;
  ext.answer("preempt", 200,
             R"({"NodeNameToMetaVictims": {"node-b": {"Pods": [{"UID": "uid-default-mid-b1"}],
                 "NumPDBViolations": 0}}})");
  testing::SchedulerHarness harness;
  const RunResult r = harness.run(profile_with(ext), kTwoNodes, {false, 0, {}, std::nullopt});
  EXPECT_THAT(outcome(r), ElementsAre(Pair("default/mid-b1", "Preempted node-b"),
                                      Pair("default/high", "Scheduled node-b")));
  const std::vector<nlohmann::json> sent = ext.requests_at("preempt");
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0]["Pod"]["metadata"]["name"], "high");
  EXPECT_THAT(offered(sent[0]), ElementsAre(Pair("node-a", ElementsAre("low-a2")),
                                            Pair("node-b", ElementsAre("mid-b1"))));
  EXPECT_EQ(sent[0]["NodeNameToVictims"]["node-a"]["NumPDBViolations"], 0);
}

// An extender that hands back what it was offered changes nothing; nodeCacheCapable sends uids.
TEST(PreemptionExtender, AnEchoKeepsDefaultPreemptionsChoiceAndACacheCapableOneGetsUids) {
  testing::TestExtender ext;
  ext.on("preempt", [](const nlohmann::json& request) {
    nlohmann::json kept = request["NodeNameToMetaVictims"];
    return std::make_pair(200, nlohmann::json{{"NodeNameToMetaVictims", kept}}.dump());
  });
  testing::SchedulerHarness harness;
  const RunResult r = harness.run(profile_with(ext, ", nodeCacheCapable: true"), kTwoNodes,
                                  {false, 0, {}, std::nullopt});
  EXPECT_THAT(outcome(r), ElementsAre(Pair("default/low-a2", "Preempted node-a"),
                                      Pair("default/high", "Scheduled node-a")));
  const std::vector<nlohmann::json> sent = ext.requests_at("preempt");
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_THAT(offered(sent[0]), ElementsAre(Pair("node-a", ElementsAre("uid-default-low-a2")),
                                            Pair("node-b", ElementsAre("uid-default-mid-b1"))));
}

// What the extender answers counts: its PDB violations steer the choice, its victims are evicted.
TEST(PreemptionExtender, ItsVictimsAndViolationCountsAreTheOnesUsed) {
  testing::TestExtender ext;
  ext.answer("preempt", 200,
             R"({"NodeNameToMetaVictims": {
                   "node-a": {"Pods": [{"UID": "uid-default-low-a2"}], "NumPDBViolations": 1},
                   "node-b": {"Pods": [{"UID": "uid-default-mid-b1"}], "NumPDBViolations": 0}}})");
  testing::SchedulerHarness harness;
  EXPECT_THAT(outcome(harness.run(profile_with(ext), kTwoNodes, {false, 0, {}, std::nullopt})),
              ElementsAre(Pair("default/mid-b1", "Preempted node-b"),
                          Pair("default/high", "Scheduled node-b")));
  // Both pods of node-a, though one would have been enough.
  ext.answer("preempt", 200,
             R"({"NodeNameToMetaVictims": {"node-a": {"Pods": [{"UID": "uid-default-low-a1"},
                 {"UID": "uid-default-low-a2"}]}}})");
  EXPECT_THAT(outcome(harness.run(profile_with(ext), kTwoNodes, {false, 0, {}, std::nullopt})),
              ElementsAre(Pair("default/low-a1", "Preempted node-a"),
                          Pair("default/low-a2", "Preempted node-a"),
                          Pair("default/high", "Scheduled node-a")));
}

TEST(PreemptionExtender, NoCandidateLeftOrAFailureIsThePostFilterMessage) {
  testing::TestExtender ext;
  testing::SchedulerHarness harness;
  auto message_with = [&](const std::string& more = "") {
    const RunResult r =
        harness.run(profile_with(ext, more), kTwoNodes, {false, 0, {}, std::nullopt});
    return r.pods.size() == 1 && r.pods[0].result == "Unschedulable" ? r.pods[0].message
                                                                     : "not one unschedulable pod";
  };
  // v1.35 appends PostFilter's message as it is. DynamicResources (before DefaultPreemption in
  // the default profile) says its piece first, unless DefaultPreemption fails with an Error,
  // whose message then stands alone.
  const std::string fit = "0/2 nodes are available: 2 Insufficient cpu. ";
  const std::string rejected = fit + "no new claims to deallocate, preemption: ";
  const std::string failed = fit + "preemption: ";
  ext.answer("preempt", 200, R"({"NodeNameToMetaVictims": {}})");
  EXPECT_EQ(message_with(), rejected + "no candidate node for preemption");
  ext.answer("preempt", 200, "null");
  EXPECT_EQ(message_with(), rejected + "no candidate node for preemption");

  ext.answer("preempt", 500, "");
  EXPECT_EQ(message_with(),
            failed + "failed preempt with extender at URL " + ext.url() + "/preempt, code 500");
  ext.answer("preempt", 200,
             R"({"NodeNameToMetaVictims": {"node-a": {"Pods": [{"UID": "nope"}]}}})");
  EXPECT_EQ(message_with(), failed + "extender: " + ext.url() +
                                " claims to preempt pod (UID: &{nope}) on node: node-a, but the "
                                "pod is not found on that node");
  ext.answer("preempt", 200, R"({"NodeNameToMetaVictims": {"node-z": {"Pods": []}}})");
  EXPECT_EQ(message_with(), failed + "nodeinfo not found for node name \"node-z\"");
  ext.answer("preempt", 200, R"({"NodeNameToMetaVictims": {"node-a": {"Pods": []}}})");
  EXPECT_EQ(message_with(), failed + "expected at least one victim pod on node \"node-a\"");

  // Ignorable: a failed extender is skipped, a node without victims dropped.
  ext.answer("preempt", 500, "");
  EXPECT_THAT(outcome(harness.run(profile_with(ext, ", ignorable: true"), kTwoNodes,
                                  {false, 0, {}, std::nullopt})),
              ElementsAre(Pair("default/low-a2", "Preempted node-a"),
                          Pair("default/high", "Scheduled node-a")));
  ext.answer("preempt", 200,
             R"({"NodeNameToMetaVictims": {"node-a": {"Pods": []},
                 "node-b": {"Pods": [{"UID": "uid-default-mid-b1"}]}}})");
  EXPECT_THAT(outcome(harness.run(profile_with(ext, ", ignorable: true"), kTwoNodes,
                                  {false, 0, {}, std::nullopt})),
              ElementsAre(Pair("default/mid-b1", "Preempted node-b"),
                          Pair("default/high", "Scheduled node-b")));
}

}  // namespace schedhost::preemption_extender_test
