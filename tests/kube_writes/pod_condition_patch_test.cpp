// The pod status patches, byte for byte as upstream's PatchPodStatus makes them (the examples
// of k8s-live-spec.md 4.3 and 4.5, produced by the Go code), and when none is to be sent.
#include "kube/pod_condition_patch.hpp"

#include <gtest/gtest.h>

#include "closed_port.hpp"
#include "time_points.hpp"

namespace schedhost::testing {
namespace {

using kube::disruption_target_patch;
using kube::nominated_node_patch;
using kube::scheduling_failure_patch;
using nlohmann::json;

const auto kNow = utc(2024, 1, 2, 3, 4, 5, 678'000'000);  // fractions never reach the bytes
const auto kLater = utc(2024, 1, 2, 3, 9, 0);
constexpr const char* kFirstMessage =
    "0/3 nodes are available: 3 Insufficient cpu. preemption: ...";

json pod_with(json status) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", "p1"}, {"namespace", "default"}, {"uid", "u-1"}}},
          {"spec", {{"schedulerName", "default-scheduler"}}},
          {"status", std::move(status)}};
}

json pending_pod() {
  return pod_with({{"phase", "Pending"}, {"qosClass", "BestEffort"}});
}

json unschedulable_condition(std::string message) {
  return {{"type", "PodScheduled"},    {"status", "False"},
          {"lastProbeTime", nullptr},  {"lastTransitionTime", "2024-01-02T03:04:05Z"},
          {"reason", "Unschedulable"}, {"message", std::move(message)}};
}

std::string dump(const std::optional<json>& patch) {
  return patch ? patch->dump() : std::string("<no patch>");
}

TEST(PodConditionPatch, FirstFailureAddsTheWholeCondition) {
  EXPECT_EQ(
      dump(scheduling_failure_patch(pending_pod(), kube::kReasonUnschedulable, kFirstMessage,
                                    std::nullopt, kNow)),
      R"({"status":{"conditions":[{"lastProbeTime":null,"lastTransitionTime":)"
      R"("2024-01-02T03:04:05Z","message":"0/3 nodes are available: 3 Insufficient cpu. )"
      R"(preemption: ...","reason":"Unschedulable","status":"False","type":"PodScheduled"}]}})");
}

TEST(PodConditionPatch, AChangedMessageKeepsTheTransitionTime) {
  json pod = pending_pod();
  pod["status"]["conditions"] = json::array({unschedulable_condition(kFirstMessage)});
  EXPECT_EQ(
      dump(scheduling_failure_patch(pod, kube::kReasonUnschedulable,
                                    "0/4 nodes are available: 4 Insufficient cpu.", std::nullopt,
                                    kLater)),
      R"({"status":{"$setElementOrder/conditions":[{"type":"PodScheduled"}],"conditions":)"
      R"([{"message":"0/4 nodes are available: 4 Insufficient cpu.","type":"PodScheduled"}]}})");
}

TEST(PodConditionPatch, AnotherConditionIsKeptInTheElementOrder) {
  json pod = pending_pod();
  pod["status"]["conditions"] = json::array(
      {{{"type", "Foo"}, {"status", "True"}, {"lastTransitionTime", "2023-05-06T07:08:09Z"}}});
  EXPECT_EQ(
      dump(scheduling_failure_patch(pod, kube::kReasonUnschedulable, "no fit", std::nullopt, kNow)),
      R"({"status":{"$setElementOrder/conditions":[{"type":"Foo"},{"type":"PodScheduled"}],)"
      R"("conditions":[{"lastProbeTime":null,"lastTransitionTime":"2024-01-02T03:04:05Z",)"
      R"("message":"no fit","reason":"Unschedulable","status":"False","type":"PodScheduled"}]}})");
}

TEST(PodConditionPatch, TheSameFailureAgainSendsNothing) {
  json pod = pending_pod();
  pod["status"]["conditions"] = json::array({unschedulable_condition(kFirstMessage)});
  EXPECT_EQ(scheduling_failure_patch(pod, kube::kReasonUnschedulable, kFirstMessage, std::nullopt,
                                     kLater),
            std::nullopt);
  // Asking to keep the nomination as it is changes nothing either.
  pod["status"]["nominatedNodeName"] = "node-1";
  EXPECT_EQ(scheduling_failure_patch(pod, kube::kReasonUnschedulable, kFirstMessage,
                                     std::string("node-1"), kLater),
            std::nullopt);
}

TEST(PodConditionPatch, AStatusChangeMovesTheTransitionTime) {
  json pod = pending_pod();
  pod["status"]["conditions"] = json::array({{{"type", "PodScheduled"},
                                              {"status", "True"},
                                              {"lastProbeTime", nullptr},
                                              {"lastTransitionTime", "2024-01-01T00:00:00Z"}}});
  EXPECT_EQ(dump(scheduling_failure_patch(pod, kube::kReasonSchedulerError, "binding rejected",
                                          std::nullopt, kLater)),
            R"({"status":{"$setElementOrder/conditions":[{"type":"PodScheduled"}],"conditions":)"
            R"([{"lastTransitionTime":"2024-01-02T03:09:00Z","message":"binding rejected",)"
            R"("reason":"SchedulerError","status":"False","type":"PodScheduled"}]}})");
}

TEST(PodConditionPatch, OnlyTheChangedKeysOfTheConditionAreSent) {
  json pod = pending_pod();
  json old = unschedulable_condition(kFirstMessage);
  old["lastProbeTime"] = "2024-01-02T03:00:00Z";  // the scheduler's condition has none
  pod["status"]["conditions"] = json::array({old});
  EXPECT_EQ(dump(scheduling_failure_patch(pod, kube::kReasonSchedulerError, kFirstMessage,
                                          std::nullopt, kLater)),
            R"({"status":{"$setElementOrder/conditions":[{"type":"PodScheduled"}],"conditions":)"
            R"([{"lastProbeTime":null,"reason":"SchedulerError","type":"PodScheduled"}]}})");
}

// PodObservedGenerationTracking (GA in v1.35): the condition carries the pod's generation; a
// newer generation is a change even when nothing else is.
TEST(PodConditionPatch, TheConditionCarriesThePodsGeneration) {
  json pod = pending_pod();
  pod["metadata"]["generation"] = 2;
  EXPECT_EQ(dump(scheduling_failure_patch(pod, kube::kReasonUnschedulable, kFirstMessage,
                                          std::nullopt, kLater)),
            R"({"status":{"conditions":)"
            R"([{"lastProbeTime":null,"lastTransitionTime":"2024-01-02T03:09:00Z","message":")" +
                std::string(kFirstMessage) +
                R"(","observedGeneration":2,"reason":"Unschedulable","status":"False",)"
                R"("type":"PodScheduled"}]}})");
  json old = unschedulable_condition(kFirstMessage);
  old["observedGeneration"] = 1;
  pod["status"]["conditions"] = json::array({old});
  EXPECT_EQ(dump(scheduling_failure_patch(pod, kube::kReasonUnschedulable, kFirstMessage,
                                          std::nullopt, kLater)),
            R"({"status":{"$setElementOrder/conditions":[{"type":"PodScheduled"}],"conditions":)"
            R"([{"observedGeneration":2,"type":"PodScheduled"}]}})");
}

TEST(PodConditionPatch, OnlyTheChangedConditionIsSentAndTheOrderIsTheList) {
  json pod = pending_pod();
  pod["status"]["conditions"] = json::array({{{"type", "Ready"}, {"status", "False"}},
                                             unschedulable_condition(kFirstMessage),
                                             {{"type", "Initialized"}, {"status", "True"}}});
  EXPECT_EQ(
      dump(
          scheduling_failure_patch(pod, kube::kReasonUnschedulable, "other", std::nullopt, kLater)),
      R"({"status":{"$setElementOrder/conditions":[{"type":"Ready"},{"type":"PodScheduled"},)"
      R"({"type":"Initialized"}],"conditions":[{"message":"other","type":"PodScheduled"}]}})");
}

TEST(PodConditionPatch, TimeSpellingsAreNotChanges) {
  json pod = pending_pod();
  pod["metadata"]["generation"] = 3;
  json old = unschedulable_condition(kFirstMessage);
  old["observedGeneration"] = 3;                            // written for this generation
  old["lastTransitionTime"] = "2024-01-02T04:04:05+01:00";  // the same instant
  old.erase("lastProbeTime");                               // absent is null
  pod["status"]["conditions"] = json::array({old});
  EXPECT_EQ(scheduling_failure_patch(pod, kube::kReasonUnschedulable, kFirstMessage, std::nullopt,
                                     kLater),
            std::nullopt);
}

TEST(PodConditionPatch, NominatedNodeNameIsSetAndCleared) {
  json pod = pending_pod();
  pod["status"]["conditions"] = json::array({unschedulable_condition(kFirstMessage)});
  EXPECT_EQ(dump(scheduling_failure_patch(pod, kube::kReasonUnschedulable, kFirstMessage,
                                          std::string("node-1"), kLater)),
            R"({"status":{"nominatedNodeName":"node-1"}})");

  pod["status"]["nominatedNodeName"] = "node-1";
  EXPECT_EQ(dump(scheduling_failure_patch(pod, kube::kReasonUnschedulable, kFirstMessage,
                                          std::string(), kLater)),
            R"({"status":{"nominatedNodeName":null}})");
  // Noop leaves it.
  EXPECT_EQ(scheduling_failure_patch(pod, kube::kReasonUnschedulable, kFirstMessage, std::nullopt,
                                     kLater),
            std::nullopt);
}

TEST(PodConditionPatch, ConditionAndNominationTogether) {
  EXPECT_EQ(dump(scheduling_failure_patch(pending_pod(), kube::kReasonUnschedulable, "m",
                                          std::string("node-2"), kNow)),
            R"({"status":{"conditions":[{"lastProbeTime":null,"lastTransitionTime":)"
            R"("2024-01-02T03:04:05Z","message":"m","reason":"Unschedulable","status":"False",)"
            R"("type":"PodScheduled"}],"nominatedNodeName":"node-2"}})");
}

TEST(PodConditionPatch, NominatedNodeOnly) {
  json pod = pending_pod();
  EXPECT_EQ(nominated_node_patch(pod, ""), std::nullopt);
  EXPECT_EQ(dump(nominated_node_patch(pod, "node-1")),
            R"({"status":{"nominatedNodeName":"node-1"}})");
  pod["status"]["nominatedNodeName"] = "node-1";
  EXPECT_EQ(nominated_node_patch(pod, "node-1"), std::nullopt);
  EXPECT_EQ(dump(nominated_node_patch(pod, "")), R"({"status":{"nominatedNodeName":null}})");
  EXPECT_EQ(dump(nominated_node_patch(pod, "node-3")),
            R"({"status":{"nominatedNodeName":"node-3"}})");
}

TEST(PodConditionPatch, APodWithoutStatus) {
  json pod = pending_pod();
  pod.erase("status");
  EXPECT_EQ(
      dump(scheduling_failure_patch(pod, kube::kReasonSchedulerError, "e", std::nullopt, kNow)),
      R"({"status":{"conditions":[{"lastProbeTime":null,"lastTransitionTime":)"
      R"("2024-01-02T03:04:05Z","message":"e","reason":"SchedulerError","status":"False",)"
      R"("type":"PodScheduled"}]}})");
}

TEST(PodConditionPatch, InvalidUtf8InAMessageIsReplacedNotThrown) {
  const auto patch = scheduling_failure_patch(pending_pod(), kube::kReasonUnschedulable,
                                              "bad \xff byte", std::nullopt, kNow);
  ASSERT_TRUE(patch);
  EXPECT_EQ((*patch)["status"]["conditions"][0]["message"], "bad \xEF\xBF\xBD byte");
  EXPECT_NO_THROW(patch->dump());
}

json running_victim() {
  json victim =
      pod_with({{"phase", "Running"},
                {"qosClass", "Burstable"},
                {"conditions", json::array({{{"type", "PodScheduled"},
                                             {"status", "True"},
                                             {"lastProbeTime", nullptr},
                                             {"lastTransitionTime", "2024-01-01T00:00:00Z"}}})}});
  victim["spec"]["nodeName"] = "node-1";
  return victim;
}

TEST(DisruptionTargetPatch, AddsTheConditionToTheVictimsOwnStatus) {
  EXPECT_EQ(dump(disruption_target_patch(running_victim(), "default-scheduler", kNow)),
            R"({"status":{"$setElementOrder/conditions":[{"type":"PodScheduled"},)"
            R"({"type":"DisruptionTarget"}],"conditions":[{"lastProbeTime":null,)"
            R"("lastTransitionTime":"2024-01-02T03:04:05Z","message":"default-scheduler: )"
            R"(preempting to accommodate a higher priority pod","reason":"PreemptionByScheduler",)"
            R"("status":"True","type":"DisruptionTarget"}]}})");
}

TEST(DisruptionTargetPatch, NamesThePreemptorsSchedulerAndIsNotSentTwice) {
  json victim = running_victim();
  const auto patch = disruption_target_patch(victim, "my-scheduler", kNow);
  ASSERT_TRUE(patch);
  const json condition = (*patch)["status"]["conditions"][0];
  EXPECT_EQ(condition["message"], "my-scheduler: preempting to accommodate a higher priority pod");
  victim["status"]["conditions"].push_back(condition);
  EXPECT_EQ(disruption_target_patch(victim, "my-scheduler", kLater), std::nullopt);
}

TEST(PodStatusPath, IsTheStatusSubresource) {
  EXPECT_EQ(kube::pod_status_path(pending_pod()), "/api/v1/namespaces/default/pods/p1/status");
}

TEST(SendPodStatusPatch, ARefusedConnectionIsTriedFourTimes) {
  kube::ClientConfig config;
  config.server = refusing_server();
  kube::ApiClient client(config);
  const auto start = std::chrono::steady_clock::now();
  try {
    kube::send_pod_status_patch(client, pending_pod(), json{{"status", {{"phase", "Pending"}}}});
    ADD_FAILURE() << "a patch reached a closed port";
  } catch (const kube::ApiError& e) {
    EXPECT_EQ(e.code(), 0) << e.what();
  }
  // Three waits: 10, 50 and 250 ms, each up to 10 % longer.
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_GE(elapsed, std::chrono::milliseconds(310));
  EXPECT_LT(elapsed, std::chrono::milliseconds(2000));
}

}  // namespace
}  // namespace schedhost::testing
