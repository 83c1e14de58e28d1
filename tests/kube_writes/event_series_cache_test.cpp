// The events broadcaster's client-side aggregation, decision by decision: POST, PATCH count 2,
// count in memory, the periodic refresh and finish.
#include <gtest/gtest.h>

#include "kube/event_series_cache.hpp"
#include "time_points.hpp"

namespace schedhost::testing {
namespace {

using kube::Event;
using kube::EventSeriesCache;
using nlohmann::json;
using Action = EventSeriesCache::Action;

const auto kT0 = utc(2024, 1, 2, 3, 4, 5, 123'456'789);

kube::ObjectReference pod(const std::string& name, const std::string& resource_version = "1234") {
  return {"Pod", "default", name, "uid-" + name, "v1", resource_version};
}

Event event(const kube::ObjectReference& regarding, std::chrono::system_clock::time_point at,
            std::string note = "0/3 nodes are available: 3 Insufficient cpu.",
            std::string_view reason = "FailedScheduling",
            std::optional<kube::ObjectReference> related = std::nullopt) {
  return kube::make_event(regarding, std::move(related), "Warning", reason, "Scheduling", note,
                          "default-scheduler", "default-scheduler-host1", at);
}

TEST(EventSeriesCache, FirstPostsSecondPatchesCountTwoLaterOnesAreCounted) {
  EventSeriesCache cache;
  const Event first = event(pod("p1"), kT0);
  const auto w1 = cache.observe(first, kT0);
  ASSERT_TRUE(w1);
  EXPECT_EQ(w1->action, Action::Create);
  EXPECT_EQ(w1->body(), first.json_text());
  EXPECT_EQ(w1->event.namespace_name, "default");
  EXPECT_EQ(w1->event.name, "p1.17a668b7375cff15");
  EXPECT_EQ(w1->event.reason, "FailedScheduling");

  const auto t2 = kT0 + std::chrono::seconds(3);
  const auto w2 = cache.observe(event(pod("p1"), t2, "another note"), t2);
  ASSERT_TRUE(w2);
  EXPECT_EQ(w2->action, Action::PatchSeries);
  EXPECT_EQ(w2->series_patch(),
            R"({"series":{"count":2,"lastObservedTime":"2024-01-02T03:04:08.123456Z"}})");
  // The series is the first event's: its name, time and note.
  json expected = json::parse(first.json_text());
  expected["series"] = {{"count", 2}, {"lastObservedTime", "2024-01-02T03:04:08.123456Z"}};
  EXPECT_EQ(json::parse(w2->body()), expected);
  EXPECT_EQ(w2->event.name, "p1.17a668b7375cff15");

  for (int i = 3; i <= 5; ++i) {
    const auto t = kT0 + std::chrono::seconds(i * 3);
    EXPECT_EQ(cache.observe(event(pod("p1"), t), t), std::nullopt) << i;
  }
  EXPECT_EQ(cache.count(first), 5);
  EXPECT_EQ(cache.size(), 1u);

  const auto refreshed = cache.refresh();
  ASSERT_EQ(refreshed.size(), 1u);
  EXPECT_EQ(refreshed[0].action, Action::PatchSeries);
  EXPECT_EQ(refreshed[0].series_patch(),
            R"({"series":{"count":5,"lastObservedTime":"2024-01-02T03:04:20.123456Z"}})");
  EXPECT_EQ(refreshed[0].key, w1->key);
}

TEST(EventSeriesCache, TheKeyHasEveryFieldButTheNote) {
  EventSeriesCache cache;
  const Event base = event(pod("p1"), kT0);
  ASSERT_TRUE(cache.observe(base, kT0));
  const auto create = [&](const Event& e) {
    const auto w = cache.observe(e, kT0);
    return w && w->action == Action::Create;
  };
  // Another resourceVersion of the same pod is another object to the key.
  EXPECT_TRUE(create(event(pod("p1", "1235"), kT0)));
  EXPECT_TRUE(create(event(pod("p2"), kT0)));
  EXPECT_TRUE(create(event(pod("p1"), kT0, "n", "Scheduled")));
  EXPECT_TRUE(create(event(pod("p1"), kT0, "n", "FailedScheduling", pod("preemptor"))));
  Event other_type = base;
  other_type.type = "Normal";
  EXPECT_TRUE(create(other_type));
  Event other_action = base;
  other_action.action = "Binding";
  EXPECT_TRUE(create(other_action));
  Event other_instance = base;
  other_instance.reporting_instance = "default-scheduler-host2";
  EXPECT_TRUE(create(other_instance));
  Event other_controller = base;
  other_controller.reporting_controller = "my-scheduler";
  EXPECT_TRUE(create(other_controller));
  // Any field of the regarding object, uid included.
  Event other_uid = base;
  other_uid.regarding.uid = "uid-other";
  EXPECT_TRUE(create(other_uid));
  // A related object with no field set is written as {}, unlike no related object.
  EXPECT_TRUE(create(event(pod("p1"), kT0, "n", "FailedScheduling", kube::ObjectReference{})));
  EXPECT_EQ(cache.size(), 11u);

  // Note, name and time differ: the same series.
  const auto w = cache.observe(event(pod("p1"), kT0 + std::chrono::seconds(1), "other note"),
                               kT0 + std::chrono::seconds(1));
  ASSERT_TRUE(w);
  EXPECT_EQ(w->action, Action::PatchSeries);
  EXPECT_EQ(json::parse(w->body())["note"], "0/3 nodes are available: 3 Insufficient cpu.");
  EXPECT_TRUE(cache.refresh().size() == 1u);
}

// A single event keeps only its note and time; the series it becomes is written with the first
// occurrence's text, rebuilt from the second occurrence's fields, for each kind of field.
TEST(EventSeriesCache, TheSeriesIsWrittenWithTheFirstOccurrencesText) {
  const std::vector<Event> firsts = {
      event(pod("p1"), kT0),
      event(pod("p2"), kT0, "n\xff\"quoted\"", "FailedScheduling", pod("preemptor")),
      event(pod("p3"), kT0, "", "Preempted", kube::ObjectReference{}),
      kube::make_event({"Node", "", "n1", "", "v1", ""}, std::nullopt, "Normal", "Reason", "Action",
                       "note", "ctrl", "ctrl-host", kT0)};
  for (const Event& first : firsts) {
    EventSeriesCache cache;
    ASSERT_TRUE(cache.observe(first, kT0));
    Event second = first;
    second.note = "a later note";
    second.event_time = kT0 + std::chrono::seconds(7);
    const auto w = cache.observe(second, second.event_time);
    ASSERT_TRUE(w) << first.json_text();
    ASSERT_EQ(w->action, Action::PatchSeries);
    EXPECT_EQ(w->event.json, first.json_text());
    EXPECT_EQ(w->event.name, first.name());
    EXPECT_EQ(w->event.namespace_name, first.namespace_name());
    json expected = json::parse(first.json_text());
    expected["series"] = {{"count", 2}, {"lastObservedTime", "2024-01-02T03:04:12.123456Z"}};
    EXPECT_EQ(json::parse(w->body()), expected);
  }
}

TEST(EventSeriesCache, FinishForgetsOldSingletonsAndWritesIdleSeriesLastTime) {
  EventSeriesCache cache;
  const auto minutes = [](int m) { return kT0 + std::chrono::minutes(m); };
  const Event old_single = event(pod("old"), minutes(0));
  const Event recent_single = event(pod("recent"), minutes(5));
  const Event idle_series = event(pod("idle"), minutes(0));
  const Event busy_series = event(pod("busy"), minutes(0));
  cache.observe(old_single, minutes(0));
  cache.observe(recent_single, minutes(5));
  cache.observe(idle_series, minutes(0));
  cache.observe(idle_series, minutes(1));
  cache.observe(idle_series, minutes(2));
  cache.observe(busy_series, minutes(0));
  cache.observe(busy_series, minutes(6));

  const auto writes = cache.finish(minutes(9), std::chrono::minutes(6));
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes[0].action, Action::PatchSeries);
  const json body = json::parse(writes[0].body());
  EXPECT_EQ(body["series"]["count"], 3);
  EXPECT_EQ(body["regarding"]["name"], "idle");
  EXPECT_EQ(cache.count(old_single), 0);  // gone without a write
  EXPECT_EQ(cache.count(recent_single), 1);
  EXPECT_EQ(cache.count(busy_series), 2);
  // Kept until the caller has written it.
  EXPECT_EQ(cache.count(idle_series), 3);
  cache.forget(writes[0].key);
  EXPECT_EQ(cache.count(idle_series), 0);
  EXPECT_EQ(cache.size(), 2u);

  // Forgotten: the next occurrence starts a new event.
  const auto again = cache.observe(event(pod("idle"), minutes(10)), minutes(10));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->action, Action::Create);
  // Exactly the idle age is not older than it.
  EXPECT_TRUE(cache.finish(minutes(11), std::chrono::minutes(6)).empty());
  EXPECT_EQ(cache.count(recent_single), 1);
  EXPECT_TRUE(
      cache.finish(minutes(11) + std::chrono::nanoseconds(1), std::chrono::minutes(6)).empty());
  EXPECT_EQ(cache.count(recent_single), 0);
}

}  // namespace
}  // namespace schedhost::testing
