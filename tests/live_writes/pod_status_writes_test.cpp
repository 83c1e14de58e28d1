// The PodScheduled condition and nominatedNodeName patches against the real API server: what a
// scheduling failure sends is what the server then holds, a later failure keeps the transition
// time, an unchanged one sends nothing.
#include <gtest/gtest.h>

#include "kube/micro_time.hpp"
#include "kube/pod_condition_patch.hpp"
#include "live/control_plane.hpp"
#include "live_objects.hpp"

namespace schedhost::testing {
namespace {

using nlohmann::json;
using std::chrono::seconds;
using Clock = std::chrono::system_clock;

TEST(LivePodStatusWrites, FailureConditionMessageChangeAndNomination) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  const json created = client.create("/api/v1/namespaces/default/pods", pending_pod("web-1"));
  EXPECT_TRUE(condition_of(created, "PodScheduled").is_null()) << created["status"].dump();

  // First failure: the whole condition.
  const Clock::time_point t1 = Clock::now();
  const std::string first = "0/3 nodes are available: 3 Insufficient cpu.";
  const auto patch1 =
      kube::scheduling_failure_patch(created, kube::kReasonUnschedulable, first, std::nullopt, t1);
  ASSERT_TRUE(patch1);
  EXPECT_FALSE((*patch1)["status"].contains("$setElementOrder/conditions"));
  kube::send_pod_status_patch(client, created, *patch1);
  const json after1 = client.get(pod_path("web-1"));
  const json c1 = condition_of(after1, "PodScheduled");
  ASSERT_TRUE(c1.is_object()) << after1["status"].dump();
  EXPECT_EQ(c1["status"], "False");
  EXPECT_EQ(c1["reason"], "Unschedulable");
  EXPECT_EQ(c1["message"], first);
  EXPECT_EQ(c1["lastTransitionTime"], kube::format_time(t1));
  EXPECT_TRUE(c1["lastProbeTime"].is_null());
  EXPECT_EQ(after1["status"]["phase"], "Pending");  // the rest of the status untouched

  // A later failure with another message: only the message is sent, the time is kept.
  const std::string second = "0/4 nodes are available: 4 Insufficient cpu.";
  const auto patch2 = kube::scheduling_failure_patch(after1, kube::kReasonUnschedulable, second,
                                                     std::nullopt, t1 + seconds(7));
  ASSERT_TRUE(patch2);
  EXPECT_EQ(
      patch2->dump(),
      R"({"status":{"$setElementOrder/conditions":[{"type":"PodScheduled"}],"conditions":)"
      R"([{"message":"0/4 nodes are available: 4 Insufficient cpu.","type":"PodScheduled"}]}})");
  kube::send_pod_status_patch(client, after1, *patch2);
  const json after2 = client.get(pod_path("web-1"));
  const json c2 = condition_of(after2, "PodScheduled");
  EXPECT_EQ(c2["message"], second);
  EXPECT_EQ(c2["reason"], "Unschedulable");
  EXPECT_EQ(c2["lastTransitionTime"], c1["lastTransitionTime"]);
  EXPECT_EQ(after2["status"]["conditions"].size(), 1u);

  // The same failure again: nothing to send.
  EXPECT_EQ(kube::scheduling_failure_patch(after2, kube::kReasonUnschedulable, second, std::nullopt,
                                           t1 + seconds(20)),
            std::nullopt);

  // Nominated after a preemption: only nominatedNodeName.
  const auto nominate = kube::scheduling_failure_patch(after2, kube::kReasonUnschedulable, second,
                                                       std::string("node-1"), t1 + seconds(30));
  ASSERT_TRUE(nominate);
  EXPECT_EQ(nominate->dump(), R"({"status":{"nominatedNodeName":"node-1"}})");
  kube::send_pod_status_patch(client, after2, *nominate);
  const json nominated = client.get(pod_path("web-1"));
  EXPECT_EQ(nominated["status"].value("nominatedNodeName", ""), "node-1");
  EXPECT_EQ(condition_of(nominated, "PodScheduled"), c2);

  // Cleared by a later failure (ModeOverride with "").
  const auto clear = kube::scheduling_failure_patch(nominated, kube::kReasonUnschedulable, second,
                                                    std::string(), t1 + seconds(40));
  ASSERT_TRUE(clear);
  EXPECT_EQ(clear->dump(), R"({"status":{"nominatedNodeName":null}})");
  kube::send_pod_status_patch(client, nominated, *clear);
  const json cleared = client.get(pod_path("web-1"));
  EXPECT_FALSE(cleared["status"].contains("nominatedNodeName")) << cleared["status"].dump();
  EXPECT_EQ(kube::nominated_node_patch(cleared, ""), std::nullopt);
}

TEST(LivePodStatusWrites, AnErrorAfterUnschedulableKeepsTheTimeAndChangesTheReason) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  const json created = client.create("/api/v1/namespaces/default/pods", pending_pod("web-2"));
  const Clock::time_point t1 = Clock::now();
  kube::send_pod_status_patch(client, created,
                              *kube::scheduling_failure_patch(created, kube::kReasonUnschedulable,
                                                              "no fit", std::nullopt, t1));
  const json before = client.get(pod_path("web-2"));
  const auto patch = kube::scheduling_failure_patch(
      before, kube::kReasonSchedulerError, "binding rejected: 500", std::nullopt, t1 + seconds(9));
  ASSERT_TRUE(patch);
  EXPECT_EQ((*patch)["status"]["conditions"][0], (json{{"type", "PodScheduled"},
                                                       {"reason", "SchedulerError"},
                                                       {"message", "binding rejected: 500"}}));
  kube::send_pod_status_patch(client, before, *patch);
  const json c = condition_of(client.get(pod_path("web-2")), "PodScheduled");
  EXPECT_EQ(c["reason"], "SchedulerError");
  EXPECT_EQ(c["message"], "binding rejected: 500");
  EXPECT_EQ(c["status"], "False");
  EXPECT_EQ(c["lastTransitionTime"], kube::format_time(t1));
}

TEST(LivePodStatusWrites, APatchForADeletedPodIsANotFoundNotRetried) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  const json created = client.create("/api/v1/namespaces/default/pods", pending_pod("gone"));
  client.remove(pod_path("gone"), json{{"gracePeriodSeconds", 0}});
  const auto patch = kube::scheduling_failure_patch(created, kube::kReasonUnschedulable, "m",
                                                    std::nullopt, Clock::now());
  ASSERT_TRUE(patch);
  try {
    kube::send_pod_status_patch(client, created, *patch);
    ADD_FAILURE() << "a deleted pod was patched";
  } catch (const kube::ApiError& e) {
    EXPECT_EQ(e.code(), 404) << e.what();
  }
}

}  // namespace
}  // namespace schedhost::testing
