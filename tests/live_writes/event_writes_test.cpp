// EventRecorder against the real API server: what an Event object holds, and what the server
// holds of a series (count 2 after the second occurrence, later ones only after a refresh or a
// finish), and a series whose event vanished from the server.
#include <gtest/gtest.h>

#include <regex>
#include <thread>

#include "kube/event_recorder.hpp"
#include "live/control_plane.hpp"
#include "live_objects.hpp"

namespace schedhost::testing {
namespace {

using nlohmann::json;

const std::string kController = "default-scheduler";

void failed_scheduling(kube::EventRecorder& recorder, const json& pod, std::string note) {
  recorder.record(pod, "Warning", "FailedScheduling", "Scheduling", std::move(note), kController,
                  kube::reporting_instance_for(kController));
}

// Waits until pred() (or 15 s); returns pred().
template <typename Pred>
bool eventually(Pred pred) {
  for (int i = 0; i < 300 && !pred(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return pred();
}

bool is_micro_time(const json& value) {
  static const std::regex kMicro(R"(^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$)");
  return value.is_string() && std::regex_match(value.get<std::string>(), kMicro);
}

TEST(LiveEventWrites, OneFailedSchedulingEventIsOneObjectWithTheRecordedFields) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  const json pod = client.create("/api/v1/namespaces/default/pods", pending_pod("web-1"));
  kube::EventRecorder recorder(client);
  failed_scheduling(recorder, pod, "0/3 nodes are available: 3 Insufficient cpu.");
  recorder.flush();
  EXPECT_EQ(recorder.stats().posted, 1u);

  const json events = events_about(client, "web-1");
  ASSERT_EQ(events.size(), 1u) << events.dump();
  const json& e = events[0];
  EXPECT_TRUE(std::regex_match(e["metadata"]["name"].get<std::string>(),
                               std::regex(R"(^web-1\.[0-9a-f]{16}$)")))
      << e["metadata"]["name"];
  EXPECT_EQ(e["metadata"]["namespace"], "default");
  EXPECT_EQ(e["type"], "Warning");
  EXPECT_EQ(e["reason"], "FailedScheduling");
  EXPECT_EQ(e["action"], "Scheduling");
  EXPECT_EQ(e["note"], "0/3 nodes are available: 3 Insufficient cpu.");
  EXPECT_EQ(e["reportingController"], "default-scheduler");
  EXPECT_EQ(e["reportingInstance"], kube::reporting_instance_for("default-scheduler"));
  EXPECT_TRUE(is_micro_time(e["eventTime"])) << e["eventTime"];
  EXPECT_EQ(e["regarding"], (json{{"kind", "Pod"},
                                  {"namespace", "default"},
                                  {"name", "web-1"},
                                  {"uid", pod["metadata"]["uid"]},
                                  {"apiVersion", "v1"},
                                  {"resourceVersion", pod["metadata"]["resourceVersion"]}}));
  EXPECT_FALSE(e.contains("series")) << e.dump();
  EXPECT_FALSE(e.contains("related")) << e.dump();
}

TEST(LiveEventWrites, ThreeOccurrencesAreOneObjectCountingTwoThenAnotherPodIsAnother) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  const json pod = client.create("/api/v1/namespaces/default/pods", pending_pod("web-1"));
  const json other = client.create("/api/v1/namespaces/default/pods", pending_pod("web-2"));
  kube::EventRecorder recorder(client);
  failed_scheduling(recorder, pod, "first note");
  failed_scheduling(recorder, pod, "second note");
  failed_scheduling(recorder, pod, "third note");
  recorder.flush();
  kube::EventRecorderStats stats = recorder.stats();
  EXPECT_EQ(stats.posted, 1u);
  EXPECT_EQ(stats.patched, 1u);
  EXPECT_EQ(stats.counted, 1u);

  const json events = events_about(client, "web-1");
  ASSERT_EQ(events.size(), 1u) << events.dump();
  EXPECT_EQ(events[0]["series"]["count"], 2);
  EXPECT_TRUE(is_micro_time(events[0]["series"]["lastObservedTime"])) << events[0].dump();
  EXPECT_EQ(events[0]["note"], "first note");  // a series keeps its first note

  recorder.record(other, "Normal", "Scheduled", "Binding",
                  "Successfully assigned default/web-2 to node-1", kController,
                  kube::reporting_instance_for(kController));
  recorder.flush();
  const json scheduled = events_about(client, "web-2");
  ASSERT_EQ(scheduled.size(), 1u);
  EXPECT_EQ(scheduled[0]["type"], "Normal");
  EXPECT_EQ(scheduled[0]["reason"], "Scheduled");
  EXPECT_EQ(scheduled[0]["action"], "Binding");
  EXPECT_EQ(scheduled[0]["note"], "Successfully assigned default/web-2 to node-1");
  // Only events about pods: the API server writes its own (ClusterIPNotAllocated, at start).
  const json all = client.get("/apis/events.k8s.io/v1/namespaces/default/events");
  std::size_t about_pods = 0;
  for (const json& e : all["items"])
    about_pods += e["regarding"].value("kind", "") == "Pod";
  EXPECT_EQ(about_pods, 2u) << all.dump();
  EXPECT_EQ(recorder.stats().posted, 2u);
}

TEST(LiveEventWrites, TheRefreshSendsTheOccurrencesCountedInMemory) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  const json pod = client.create("/api/v1/namespaces/default/pods", pending_pod("web-1"));
  kube::EventRecorderOptions options;
  options.refresh_period = std::chrono::seconds(1);
  kube::EventRecorder recorder(client, options);
  for (int i = 0; i < 4; ++i)
    failed_scheduling(recorder, pod, "no fit");
  recorder.flush();
  ASSERT_TRUE(eventually([&] { return recorder.stats().patched >= 2; }));
  recorder.flush();
  const json events = events_about(client, "web-1");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["series"]["count"], 4);
}

TEST(LiveEventWrites, AnIdleSeriesIsWrittenALastTimeThenANewEventStarts) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  const json pod = client.create("/api/v1/namespaces/default/pods", pending_pod("web-1"));
  kube::EventRecorderOptions options;
  options.finish_period = std::chrono::seconds(1);
  kube::EventRecorder recorder(client, options);
  for (int i = 0; i < 3; ++i)
    failed_scheduling(recorder, pod, "no fit");
  recorder.flush();
  ASSERT_TRUE(eventually([&] { return recorder.stats().patched >= 2; }));
  recorder.flush();
  json events = events_about(client, "web-1");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["series"]["count"], 3);

  // Forgotten by the recorder: the same event again is a new object.
  failed_scheduling(recorder, pod, "no fit");
  recorder.flush();
  EXPECT_EQ(recorder.stats().posted, 2u);
  events = events_about(client, "web-1");
  EXPECT_EQ(events.size(), 2u) << events.dump();
}

TEST(LiveEventWrites, ASeriesWhoseEventIsGoneIsPostedWhole) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(plane->admin_config());
  const json pod = client.create("/api/v1/namespaces/default/pods", pending_pod("web-1"));
  kube::EventRecorder recorder(client);
  failed_scheduling(recorder, pod, "no fit");
  recorder.flush();
  json events = events_about(client, "web-1");
  ASSERT_EQ(events.size(), 1u);
  const std::string name = events[0]["metadata"]["name"];
  client.remove("/apis/events.k8s.io/v1/namespaces/default/events/" + name);

  failed_scheduling(recorder, pod, "no fit");
  recorder.flush();
  const kube::EventRecorderStats stats = recorder.stats();
  EXPECT_EQ(stats.posted, 2u);  // the PATCH answered 404
  EXPECT_EQ(stats.patched, 0u);
  events = events_about(client, "web-1");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["metadata"]["name"], name);
  EXPECT_EQ(events[0]["series"]["count"], 2);
}

}  // namespace
}  // namespace schedhost::testing
