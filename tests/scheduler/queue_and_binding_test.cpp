// The queue (QueueSort, PreEnqueue gates, profiles by schedulerName) and everything after a node
// is chosen: Reserve and Unreserve order, Permit allow/reject/wait/timeout, gang waits through
// the waiting-pod host API, PreBind, the Bind chain and PostBind.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scheduler_harness.hpp"
#include "support/log_capture.hpp"

namespace schedhost {
namespace {

using scheduler::PodResult;
using scheduler::RunResult;
using ::testing::ElementsAre;
using testing::node_yaml;
using testing::pod_yaml;
using testing::profile_with;

struct Decision {
  std::string pod, result, node, message;
  bool operator==(const Decision&) const = default;
};
std::ostream& operator<<(std::ostream& os, const Decision& d) {
  return os << "{" << d.pod << ", " << d.result << ", " << d.node << ", " << d.message << "}";
}

std::vector<Decision> decisions(const RunResult& r) {
  std::vector<Decision> out;
  for (const PodResult& p : r.pods)
    out.push_back({p.pod, p.result, p.node, p.message});
  return out;
}

// The plugins' log lines, without the library init/deinit lines.
std::vector<std::string> plugin_lines(const testing::LogCapture& log) {
  std::vector<std::string> out;
  for (const std::string& l : log.lines()) {
    if (l.rfind("plugin ", 0) == 0) out.push_back(l);
  }
  return out;
}

const std::string kRecorders = R"(    reserve:
      enabled: [{name: RecorderA}, {name: RecorderB}]
    permit:
      enabled: [{name: RecorderA}, {name: RecorderB}]
    preBind:
      enabled: [{name: RecorderA}, {name: RecorderB}]
    postBind:
      enabled: [{name: RecorderA}]
)";

class QueueAndBinding : public ::testing::Test {
 protected:
  testing::SchedulerHarness harness_;
};

TEST_F(QueueAndBinding, HigherPriorityPodsAreScheduledFirst) {
  const RunResult r =
      harness_.run(profile_with(""), node_yaml("node-a") + pod_yaml("low", "", "  priority: 1\n") +
                                         pod_yaml("high", "", "  priority: 100\n") +
                                         pod_yaml("mid", "", "  priority: 10\n"));
  EXPECT_THAT(decisions(r), ElementsAre(Decision{"default/high", "Scheduled", "node-a", ""},
                                        Decision{"default/mid", "Scheduled", "node-a", ""},
                                        Decision{"default/low", "Scheduled", "node-a", ""}));
}

TEST_F(QueueAndBinding, GatedAndUnservedPodsAreReportedNotScheduled) {
  const std::string profile = profile_with(R"(    preEnqueue:
      enabled: [{name: GateRules}]
)");
  const RunResult r = harness_.run(
      profile, node_yaml("node-a") + pod_yaml("gated", "  labels: {gated: 'true'}\n") +
                   pod_yaml("other", "", "  schedulerName: nobody\n") + pod_yaml("web"));
  EXPECT_THAT(decisions(r),
              ElementsAre(Decision{"default/gated", "Gated", "",
                                   "waiting for scheduling gates: [example.com/gate]"},
                          Decision{"default/other", "Skipped", "",
                                   "no profile serves schedulerName \"nobody\""},
                          Decision{"default/web", "Scheduled", "node-a", ""}));
  EXPECT_EQ(r.pods[1].profile, "");
}

TEST_F(QueueAndBinding, NoNodesAtAll) {
  const RunResult r = harness_.run(profile_with(""), pod_yaml("web"));
  EXPECT_THAT(decisions(r), ElementsAre(Decision{"default/web", "Unschedulable", "",
                                                 "no nodes available to schedule pods"}));
}

TEST_F(QueueAndBinding, TheWholeBindingCycleRunsInOrder) {
  testing::LogCapture log;
  const RunResult r = harness_.run(profile_with(kRecorders), node_yaml("node-a") + pod_yaml("web"));
  EXPECT_THAT(decisions(r), ElementsAre(Decision{"default/web", "Scheduled", "node-a", ""}));
  EXPECT_THAT(plugin_lines(log), ElementsAre("plugin \"RecorderA\": Reserve default/web node-a",
                                             "plugin \"RecorderB\": Reserve default/web node-a",
                                             "plugin \"RecorderA\": Permit default/web node-a",
                                             "plugin \"RecorderB\": Permit default/web node-a",
                                             "plugin \"RecorderA\": PreBind default/web node-a",
                                             "plugin \"RecorderB\": PreBind default/web node-a",
                                             "plugin \"RecorderA\": PostBind default/web node-a"));
}

TEST_F(QueueAndBinding, AReserveFailureUnreservesEveryReservePluginInReverse) {
  testing::LogCapture log;
  const std::string profile = profile_with(kRecorders + R"(  pluginConfig:
  - name: RecorderB
    args: {Reserve: {code: Error, reasons: [quota service unreachable]}}
)");
  const RunResult r = harness_.run(profile, node_yaml("node-a") + pod_yaml("web") + pod_yaml("db"));
  EXPECT_EQ(decisions(r)[0],
            (Decision{"default/web", "Error", "",
                      "running Reserve plugin \"RecorderB\": quota service unreachable"}));
  const auto lines = plugin_lines(log);
  ASSERT_GE(lines.size(), 4u);
  EXPECT_THAT(std::vector<std::string>(lines.begin(), lines.begin() + 4),
              ElementsAre("plugin \"RecorderA\": Reserve default/web node-a",
                          "plugin \"RecorderB\": Reserve default/web node-a",
                          "plugin \"RecorderB\": Unreserve default/web node-a",
                          "plugin \"RecorderA\": Unreserve default/web node-a"));
}

TEST_F(QueueAndBinding, APermitRejectionUnreserves) {
  const std::string profile = profile_with(kRecorders + R"(  pluginConfig:
  - name: RecorderB
    args: {Permit: {code: Unschedulable, reasons: [quota exceeded]}}
)");
  const RunResult r = harness_.run(profile, node_yaml("node-a") + pod_yaml("web"));
  EXPECT_THAT(decisions(r),
              ElementsAre(Decision{"default/web", "Unschedulable", "", "quota exceeded"}));
}

TEST_F(QueueAndBinding, AWaitThatNobodyEndsTimesOut) {
  testing::LogCapture log;
  const std::string profile = profile_with(R"(    reserve:
      enabled: [{name: RecorderA}]
    permit:
      enabled: [{name: RecorderA}]
  pluginConfig:
  - name: RecorderA
    args: {Permit: {code: Wait}, timeoutMs: 2500}
)");
  const RunResult r = harness_.run(profile, node_yaml("node-a") + pod_yaml("web"));
  EXPECT_THAT(decisions(r), ElementsAre(Decision{
                                "default/web", "Unschedulable", "",
                                "rejected due to timeout after waiting 2.5s at plugin RecorderA"}));
  EXPECT_THAT(plugin_lines(log), ElementsAre("plugin \"RecorderA\": Reserve default/web node-a",
                                             "plugin \"RecorderA\": Permit default/web node-a",
                                             "plugin \"RecorderA\": Unreserve default/web node-a"));
}

const std::string kGang = R"(    reserve:
      enabled: [{name: Gang}]
    permit:
      enabled: [{name: Gang}]
  pluginConfig:
  - name: Gang
    args: {timeoutMs: 1000}
)";

std::string gang_pod(const std::string& name, int size) {
  return pod_yaml(
      name, "  labels: {gang: g1}\n  annotations: {gang-size: '" + std::to_string(size) + "'}\n");
}

TEST_F(QueueAndBinding, AGangWaitsAtPermitUntilItsLastMemberAllowsTheOthers) {
  const RunResult r = harness_.run(profile_with(kGang), node_yaml("node-a") + gang_pod("m1", 3) +
                                                            gang_pod("m2", 3) + gang_pod("m3", 3));
  EXPECT_THAT(decisions(r), ElementsAre(Decision{"default/m3", "Scheduled", "node-a", ""},
                                        Decision{"default/m1", "Scheduled", "node-a", ""},
                                        Decision{"default/m2", "Scheduled", "node-a", ""}));
}

TEST_F(QueueAndBinding, AnIncompleteGangTimesOutAndItsUnreserveRejectsTheRest) {
  const RunResult r = harness_.run(profile_with(kGang),
                                   node_yaml("node-a") + gang_pod("m1", 3) + gang_pod("m2", 3));
  EXPECT_THAT(
      decisions(r),
      ElementsAre(Decision{"default/m1", "Unschedulable", "",
                           "rejected due to timeout after waiting 1s at plugin Gang"},
                  Decision{"default/m2", "Unschedulable", "", "gang g1 member was unreserved"}));
}

TEST_F(QueueAndBinding, TheFirstBinderThatDoesNotSkipBinds) {
  const RunResult r = harness_.run(profile_with("", "[{name: SkipBinder}, {name: DefaultBinder}]"),
                                   node_yaml("node-a") + pod_yaml("web"));
  EXPECT_THAT(decisions(r), ElementsAre(Decision{"default/web", "Scheduled", "node-a", ""}));
}

TEST_F(QueueAndBinding, WhenEveryBinderSkipsThePodIsNotBound) {
  const RunResult r =
      harness_.run(profile_with("", "[{name: SkipBinder}]"), node_yaml("node-a") + pod_yaml("web"));
  EXPECT_THAT(decisions(r),
              ElementsAre(Decision{"default/web", "Error", "",
                                   "every Bind plugin skipped the pod: none bound it"}));
}

TEST_F(QueueAndBinding, APreBindFailureUnreservesAndReportsTheError) {
  testing::LogCapture log;
  const std::string profile = profile_with(kRecorders + R"(  pluginConfig:
  - name: RecorderA
    args: {PreBind: {code: Error, reasons: [volume not ready]}}
)");
  const RunResult r = harness_.run(profile, node_yaml("node-a") + pod_yaml("web"));
  EXPECT_THAT(decisions(r),
              ElementsAre(Decision{"default/web", "Error", "",
                                   "running PreBind plugin \"RecorderA\": volume not ready"}));
  const auto lines = plugin_lines(log);
  ASSERT_GE(lines.size(), 2u);
  EXPECT_THAT(std::vector<std::string>(lines.end() - 2, lines.end()),
              ElementsAre("plugin \"RecorderB\": Unreserve default/web node-a",
                          "plugin \"RecorderA\": Unreserve default/web node-a"));
}

// PreFlight's PreBindPreFlight (ABI 1.6) runs before any PreBind; RecorderB has none, so its
// PreBind always runs, as a plugin built before 1.6 does.
const std::string kPreFlight = R"(    preBind:
      enabled: [{name: PreFlight}, {name: RecorderB}]
)";

TEST_F(QueueAndBinding, APreBindPluginThatSkipsInItsPreFlightIsNotCalled) {
  testing::LogCapture log;
  const RunResult r = harness_.run(profile_with(kPreFlight + R"(  pluginConfig:
  - name: PreFlight
    args: {PreBindPreFlight: {code: Skip}}
)"),
                                   node_yaml("node-a") + pod_yaml("web"));
  EXPECT_THAT(decisions(r), ElementsAre(Decision{"default/web", "Scheduled", "node-a", ""}));
  EXPECT_THAT(plugin_lines(log),
              ElementsAre("plugin \"PreFlight\": PreBindPreFlight default/web node-a",
                          "plugin \"RecorderB\": PreBind default/web node-a"));
}

TEST_F(QueueAndBinding, APreBindPluginWhosePreFlightSucceedsIsCalled) {
  testing::LogCapture log;
  const RunResult r = harness_.run(profile_with(kPreFlight), node_yaml("node-a") + pod_yaml("web"));
  EXPECT_THAT(decisions(r), ElementsAre(Decision{"default/web", "Scheduled", "node-a", ""}));
  EXPECT_THAT(plugin_lines(log),
              ElementsAre("plugin \"PreFlight\": PreBindPreFlight default/web node-a",
                          "plugin \"PreFlight\": PreBind default/web node-a",
                          "plugin \"RecorderB\": PreBind default/web node-a"));
}

TEST_F(QueueAndBinding, APreFlightErrorFailsTheBindingAsUpstreamWordsIt) {
  testing::LogCapture log;
  const RunResult r = harness_.run(profile_with(kPreFlight + R"(  pluginConfig:
  - name: PreFlight
    args: {PreBindPreFlight: {code: Error, reasons: [quota service down]}}
)"),
                                   node_yaml("node-a") + pod_yaml("web"));
  EXPECT_THAT(decisions(r),
              ElementsAre(Decision{"default/web", "Error", "",
                                   "running PreBindPreFlight \"PreFlight\": quota service down"}));
  // No PreBind ran, not even RecorderB's, which has no pre-flight.
  EXPECT_THAT(plugin_lines(log),
              ElementsAre("plugin \"PreFlight\": PreBindPreFlight default/web node-a"));
}

TEST_F(QueueAndBinding, APreFlightMayOnlyAnswerSuccessSkipOrError) {
  const RunResult r = harness_.run(profile_with(kPreFlight + R"(  pluginConfig:
  - name: PreFlight
    args: {PreBindPreFlight: {code: Unschedulable, reasons: [no]}}
)"),
                                   node_yaml("node-a") + pod_yaml("web"));
  EXPECT_THAT(decisions(r),
              ElementsAre(Decision{"default/web", "Error", "",
                                   "PreBindPreFlight PreFlight returned \"Unschedulable\", which "
                                   "is unsupported. It is supposed to return Success, Skip, or "
                                   "Error status"}));
}

}  // namespace
}  // namespace schedhost
