// A preemption victim against the real API server: the DisruptionTarget patch of its own
// status, the DELETE, and the Preempted event naming the preemptor. A finalizer keeps the
// deleted victim readable.
#include <gtest/gtest.h>

#include <thread>

#include "kube/event_recorder.hpp"
#include "kube/micro_time.hpp"
#include "kube/pod_condition_patch.hpp"
#include "live/control_plane.hpp"
#include "live_objects.hpp"

namespace schedhost::testing {
namespace {

using nlohmann::json;
using Clock = std::chrono::system_clock;

constexpr const char* kFinalizer = "schedhost.test/keep";

json bound_victim(kube::ApiClient& client, const std::string& name, const std::string& node) {
  json pod = pending_pod(name);
  pod["metadata"]["finalizers"] = json::array({kFinalizer});
  const json created = client.create("/api/v1/namespaces/default/pods", pod);
  client.create(pod_path(name) + "/binding",
                {{"apiVersion", "v1"},
                 {"kind", "Binding"},
                 {"metadata",
                  {{"name", name}, {"namespace", "default"}, {"uid", created["metadata"]["uid"]}}},
                 {"target", {{"kind", "Node"}, {"name", node}}}});
  return client.get(pod_path(name));
}

TEST(LiveVictimWrites, DisruptionTargetThenDeleteThenPreemptedEvent) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  client.create("/api/v1/nodes",
                {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "node-1"}}}});
  const json victim = bound_victim(client, "low", "node-1");
  ASSERT_EQ(condition_of(victim, "PodScheduled")["status"], "True") << victim["status"].dump();
  const json preemptor = client.create("/api/v1/namespaces/default/pods", pending_pod("high"));

  const Clock::time_point now = Clock::now();
  const auto patch = kube::disruption_target_patch(victim, "default-scheduler", now);
  ASSERT_TRUE(patch);
  EXPECT_EQ(patch->dump(),
            R"({"status":{"$setElementOrder/conditions":[{"type":"PodScheduled"},)"
            R"({"type":"DisruptionTarget"}],"conditions":[{"lastProbeTime":null,)"
            R"("lastTransitionTime":")" +
                kube::format_time(now) +
                R"(","message":"default-scheduler: preempting to accommodate a higher priority )"
                R"(pod","observedGeneration":1,"reason":"PreemptionByScheduler","status":"True",)"
                R"("type":"DisruptionTarget"}]}})");
  kube::send_pod_status_patch(client, victim, *patch);
  // Written as computed: the same write again is no change.
  EXPECT_EQ(kube::disruption_target_patch(client.get(pod_path("low")), "default-scheduler", now),
            std::nullopt);
  client.remove(pod_path("low"));

  const json deleted = client.get(pod_path("low"));
  EXPECT_TRUE(deleted["metadata"].contains("deletionTimestamp")) << deleted["metadata"].dump();
  const json target = condition_of(deleted, "DisruptionTarget");
  ASSERT_TRUE(target.is_object()) << deleted["status"].dump();
  EXPECT_EQ(target["status"], "True");
  EXPECT_EQ(target["reason"], "PreemptionByScheduler");
  EXPECT_EQ(target["message"],
            "default-scheduler: preempting to accommodate a higher priority pod");
  EXPECT_EQ(target["lastTransitionTime"], kube::format_time(now));
  // The victim's own status is kept (upstream 1.28.4 would have written the preemptor's).
  EXPECT_EQ(condition_of(deleted, "PodScheduled")["status"], "True");
  EXPECT_EQ(deleted["status"]["qosClass"], victim["status"]["qosClass"]);
  EXPECT_EQ(deleted["spec"]["nodeName"], "node-1");
  // The condition says which generation it was written for (PodObservedGenerationTracking, GA in
  // v1.35); the graceful deletion made a new one, so writing it again would only say that.
  EXPECT_EQ(target["observedGeneration"], 1);
  ASSERT_EQ(deleted["metadata"]["generation"], 2);
  const auto again = kube::disruption_target_patch(deleted, "default-scheduler", now);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->dump(), R"({"status":{"$setElementOrder/conditions":[{"type":"PodScheduled"},)"
                           R"({"type":"DisruptionTarget"}],"conditions":[{"observedGeneration":2,)"
                           R"("type":"DisruptionTarget"}]}})");

  kube::EventRecorder recorder(client);
  recorder.record(victim, "Normal", "Preempted", "Preempting", "Preempted by a pod on node node-1",
                  "default-scheduler", kube::reporting_instance_for("default-scheduler"),
                  preemptor);
  recorder.flush();
  const json events = events_about(client, "low");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["reason"], "Preempted");
  EXPECT_EQ(events[0]["action"], "Preempting");
  EXPECT_EQ(events[0]["type"], "Normal");
  EXPECT_EQ(events[0]["related"],
            (json{{"kind", "Pod"},
                  {"namespace", "default"},
                  {"name", "high"},
                  {"uid", preemptor["metadata"]["uid"]},
                  {"apiVersion", "v1"},
                  {"resourceVersion", preemptor["metadata"]["resourceVersion"]}}));

  // Let it go: no finalizer, and no kubelet to end the grace period, so force it.
  client.patch(pod_path("low"), {{"metadata", {{"finalizers", nullptr}}}}, kube::PatchType::Merge);
  client.remove(pod_path("low"), {{"gracePeriodSeconds", 0}});
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    try {
      client.get(pod_path("low"));
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    } catch (const kube::ApiError& e) {
      gone = e.not_found();
    }
  }
  EXPECT_TRUE(gone);
}

}  // namespace
}  // namespace schedhost::testing
