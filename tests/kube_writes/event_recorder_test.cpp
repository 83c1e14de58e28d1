// The Event bodies as upstream's recorder makes them, and the recorder's queue and retries
// against a port nothing listens on (the writes themselves are in tests/live_writes).
#include "kube/event_recorder.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <thread>

#include "closed_port.hpp"
#include "time_points.hpp"

namespace schedhost::testing {
namespace {

using nlohmann::json;

json pod() {
  return {{"metadata",
           {{"name", "p1"},
            {"namespace", "default"},
            {"uid", "0f4c5a3e-1b2c-4d5e-8f90-123456789abc"},
            {"resourceVersion", "1234"},
            {"labels", {{"app", "web"}}}}},
          {"spec", {{"schedulerName", "default-scheduler"}}}};
}

TEST(TruncateNote, CutsTo1024BytesEndingInDots) {
  EXPECT_EQ(kube::truncate_note(std::string(1024, 'a')), std::string(1024, 'a'));
  EXPECT_EQ(kube::truncate_note(std::string(1025, 'a')), std::string(1020, 'a') + " ...");
  // A two-byte character across byte 1020 is left out whole.
  const std::string cut =
      kube::truncate_note(std::string(1019, 'a') + "\xC3\xA9" + "tail" + std::string(100, 'b'));
  EXPECT_EQ(cut, std::string(1019, 'a') + " ...");
}

TEST(ObjectReference, IsThePodsReference) {
  EXPECT_EQ(kube::object_reference(pod()).to_json().dump(),
            R"({"apiVersion":"v1","kind":"Pod","name":"p1","namespace":"default",)"
            R"("resourceVersion":"1234","uid":"0f4c5a3e-1b2c-4d5e-8f90-123456789abc"})");
  json typed = pod();
  typed["kind"] = "Node";
  typed["apiVersion"] = "v1";
  typed["metadata"].erase("namespace");
  EXPECT_EQ(kube::object_reference(typed).to_json().dump(),
            R"({"apiVersion":"v1","kind":"Node","name":"p1","resourceVersion":"1234",)"
            R"("uid":"0f4c5a3e-1b2c-4d5e-8f90-123456789abc"})");
}

TEST(MakeEvent, IsTheEventsV1ObjectUpstreamPosts) {
  const auto now = utc(2024, 1, 2, 3, 4, 5, 123'456'789);
  const kube::Event event = kube::make_event(
      kube::object_reference(pod()), std::nullopt, "Warning", "FailedScheduling", "Scheduling",
      "0/3 nodes are available: ...", "default-scheduler", "default-scheduler-host1", now);
  // The name is the one of the spec's example: UnixNano 1704164645123456789 in hex. The text is
  // what nlohmann's dump() of the same object writes, keys sorted.
  EXPECT_EQ(event.json_text(),
            R"({"action":"Scheduling","apiVersion":"events.k8s.io/v1",)"
            R"("eventTime":"2024-01-02T03:04:05.123456Z","kind":"Event",)"
            R"("metadata":{"name":"p1.17a668b7375cff15","namespace":"default"},)"
            R"("note":"0/3 nodes are available: ...","reason":"FailedScheduling",)"
            R"("regarding":{"apiVersion":"v1","kind":"Pod","name":"p1","namespace":"default",)"
            R"("resourceVersion":"1234","uid":"0f4c5a3e-1b2c-4d5e-8f90-123456789abc"},)"
            R"("reportingController":"default-scheduler",)"
            R"("reportingInstance":"default-scheduler-host1","type":"Warning"})");
}

TEST(MakeEvent, RelatedIsThePreemptorAndNamespaceDefaults) {
  json preemptor = pod();
  preemptor["metadata"]["name"] = "high";
  preemptor["metadata"]["uid"] = "u-high";
  const json event = json::parse(
      kube::make_event(kube::object_reference(pod()), kube::object_reference(preemptor), "Normal",
                       "Preempted", "Preempting", "Preempted by a pod on node node-1",
                       "default-scheduler", "i", utc(2024, 1, 2, 3, 4, 5))
          .json_text());
  EXPECT_EQ(event["related"]["name"], "high");
  EXPECT_EQ(event["related"]["uid"], "u-high");
  EXPECT_EQ(event["related"]["kind"], "Pod");

  json no_namespace = pod();
  no_namespace["metadata"].erase("namespace");
  const kube::Event defaulted =
      kube::make_event(kube::object_reference(no_namespace), std::nullopt, "Normal", "Scheduled",
                       "Binding", "n", "c", "i", utc(2024, 1, 2, 3, 4, 5));
  EXPECT_EQ(defaulted.namespace_name(), "default");
  EXPECT_EQ(json::parse(defaulted.json_text())["metadata"]["namespace"], "default");
  EXPECT_FALSE(json::parse(defaulted.json_text())["regarding"].contains("namespace"));
}

// Any bytes a plugin writes in a note or a reason make valid JSON: quotes, backslashes and
// control characters escaped as nlohmann's dump() escapes them, bytes that are not UTF-8
// replaced by U+FFFD each (as Go's encoder does), other characters as they are.
TEST(MakeEvent, AnyBytesMakeTheJsonNlohmannWouldWrite) {
  const std::string note =
      "say \"hi\" \\ tab\t nl\n bell\x07 del\x7f caf\xC3\xA9 \xE2\x82 "
      "\xF0\x9F\x98\x80 bad\xFF end";
  const kube::Event event =
      kube::make_event(kube::object_reference(pod()), std::nullopt, "Warning", "Odd\xC0\x80Reason",
                       "Scheduling", note, "default-scheduler", "i", utc(2024, 1, 2, 3, 4, 5));
  const std::string text = event.json_text();
  const json parsed = json::parse(text);  // throws on invalid JSON or UTF-8
  EXPECT_EQ(parsed.dump(), text);
  EXPECT_EQ(parsed["note"],
            "say \"hi\" \\ tab\t nl\n bell\x07 del\x7f caf\xC3\xA9 \xEF\xBF\xBD\xEF\xBF\xBD "
            "\xF0\x9F\x98\x80 bad\xEF\xBF\xBD end");
  EXPECT_NE(text.find(R"(bell\u0007 del)"
                      "\x7f"),
            std::string::npos);
  EXPECT_EQ(parsed["reason"], "Odd\xEF\xBF\xBD\xEF\xBF\xBDReason");  // an overlong NUL
  EXPECT_EQ(
      event.series_key(),
      kube::make_event(kube::object_reference(pod()), std::nullopt, "Warning", "Odd\xC0\x80Reason",
                       "Scheduling", "other", "default-scheduler", "i", utc(2024, 1, 2, 3, 4, 6))
          .series_key());
}

TEST(ReportingInstance, IsTheControllerAndTheHostname) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  EXPECT_EQ(kube::reporting_instance_for("default-scheduler"),
            std::string("default-scheduler-") + host);
}

kube::ClientConfig unreachable() {
  kube::ClientConfig config;
  config.server = refusing_server();
  return config;
}

void record_one(kube::EventRecorder& recorder, const std::string& name) {
  json p = pod();
  p["metadata"]["name"] = name;
  recorder.record(p, "Warning", "FailedScheduling", "Scheduling", "no fit", "default-scheduler",
                  "default-scheduler-host1");
}

TEST(EventRecorder, TransientFailuresAreRetriedThenGivenUp) {
  kube::ApiClient client(unreachable());
  kube::EventRecorderOptions options;
  options.max_attempts = 3;
  options.retry_interval = std::chrono::milliseconds(5);
  kube::EventRecorder recorder(client, options);
  record_one(recorder, "p1");
  recorder.flush();
  const kube::EventRecorderStats stats = recorder.stats();
  EXPECT_EQ(stats.failed, 1u);
  EXPECT_EQ(stats.retries, 2u);
  EXPECT_EQ(stats.posted, 0u);
  EXPECT_EQ(stats.dropped, 0u);
}

TEST(EventRecorder, AFullQueueDropsAndStopEndsAWaitingRetry) {
  kube::ApiClient client(unreachable());
  kube::EventRecorderOptions options;
  options.queue_capacity = 2;
  options.retry_interval = std::chrono::seconds(30);
  options.writers = 1;  // the one writer retries: the worker waits for it, and the queue fills
  options.writes_per_writer = 1;
  auto recorder = std::make_unique<kube::EventRecorder>(client, options);
  record_one(*recorder, "first");
  // Wait until the worker holds the first event (it is then retrying, for 30 s).
  for (int i = 0; i < 200 && recorder->stats().retries == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(recorder->stats().retries, 1u);
  for (int i = 0; i < 10; ++i)
    record_one(*recorder, "p" + std::to_string(i));
  EXPECT_EQ(recorder->stats().dropped, 8u);  // two fit in the queue

  const auto start = std::chrono::steady_clock::now();
  recorder->stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(recorder->stats().failed, 1u);  // the one being retried
  record_one(*recorder, "late");
  EXPECT_EQ(recorder->stats().dropped, 9u);
  recorder->flush();  // returns at once once stopped
}

// Events recorded while the worker lets them gather are handed to the request loop together:
// one wake-up of its thread for the group, not one per write. flush() ends the gather.
TEST(EventRecorder, EventsRecordedTogetherWakeTheLoopOnce) {
  kube::ApiClient client(unreachable());
  kube::EventRecorderOptions options;
  options.max_attempts = 1;  // each write fails for good at its first answer
  options.gather = std::chrono::seconds(30);
  kube::EventRecorder recorder(client, options);
  for (int i = 0; i < 20; ++i)
    record_one(recorder, "p" + std::to_string(i));
  const auto start = std::chrono::steady_clock::now();
  recorder.flush();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  const kube::EventRecorderStats stats = recorder.stats();
  EXPECT_EQ(stats.failed, 20u);
  EXPECT_EQ(stats.wakeups, 1u);
}

}  // namespace
}  // namespace schedhost::testing
