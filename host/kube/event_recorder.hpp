// events.k8s.io/v1 Events, written as upstream's events broadcaster writes them (client-go
// tools/events, the recorder kube-scheduler's profiles use):
// - record() only queues (1000 entries; when full the event is dropped and counted); one worker
//   thread makes the aggregation decisions and hands each write to one of a few lanes, always
//   the same one for an event's series, so that a series' writes keep their order. Each lane
//   has one write in flight at a time, sent through a RequestLoop (all lanes' writes are streams
//   of one HTTP/2 connection, answered on the loop's thread: upstream writes each event from a
//   goroutine of its own); the worker waits while that lane has writes_per_writer in hand, so a
//   server that does not answer fills the queue, not memory. With one writer thread, serve
//   dropped nearly two thirds of the Scheduled events at 600 bindings a second, and a thread
//   per lane cost more than the writes (docs/benchmarks.md, "Live");
// - client-side aggregation (EventSeriesCache): the first occurrence of an event is POSTed, the
//   second PATCHes the first one's series to count 2, later ones are counted in memory and sent
//   by the periodic series refresh (30 min); idle series are written a last time and forgotten
//   after 6 min, single events forgotten 6 min after they happened. The worker, not the caller,
//   writes an Event's JSON, and only for the writes aggregation leaves;
// - a write that got no answer, a 429 or a 5xx is tried again, up to 12 attempts about 10 s
//   apart (+ up to 25 % jitter); an AlreadyExists is final unless the write was a series'.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "kube/api_client.hpp"
#include "kube/event.hpp"
#include "kube/event_series_cache.hpp"
#include "kube/request_loop.hpp"

namespace schedhost::kube {

struct EventRecorderOptions {
  std::size_t queue_capacity = 1000;  // maxQueuedEvents
  int max_attempts = 12;              // maxTriesPerEvent
  std::chrono::milliseconds retry_interval{10'000};
  std::chrono::milliseconds refresh_period{30 * 60 * 1000};  // refreshTime
  std::chrono::milliseconds finish_period{6 * 60 * 1000};    // finishTime, also the idle age
  std::size_t writers = 32;            // lanes: writes in flight at once, one per lane
  std::size_t writes_per_writer = 32;  // handed to a lane and not yet written, at most
  // How long the worker lets events gather once one is queued, so that they are handed to the
  // loop and sent together: one wake-up of each thread for a group instead of one per event
  // (upstream has no such wait; nothing reads an Event within milliseconds of its time, which
  // is set when it is recorded). flush() and a half-full queue cut it short.
  std::chrono::milliseconds gather{20};
  // How long the writes' loop lets answers gather before reading them (RequestLoopOptions).
  std::chrono::milliseconds settle{10};
};

struct EventRecorderStats {
  std::uint64_t posted = 0;   // Events created
  std::uint64_t patched = 0;  // series PATCHes that succeeded
  std::uint64_t counted = 0;  // occurrences only counted in memory (third and later)
  std::uint64_t dropped = 0;  // not queued: the queue was full, or the recorder was stopped
  std::uint64_t failed = 0;   // writes given up: refused by the server, or retries exhausted
  std::uint64_t retries = 0;  // attempts made again after a transient error
  std::uint64_t wakeups = 0;  // times the worker woke the request loop (once per gathered group)
};

class EventRecorder {
 public:
  // Starts the worker and writer threads.
  EventRecorder(ApiClient& client, EventRecorderOptions options = {});
  ~EventRecorder();  // stop()
  EventRecorder(const EventRecorder&) = delete;
  EventRecorder& operator=(const EventRecorder&) = delete;

  // Queues one occurrence, timestamped now, about regarding (and related, when there is one).
  // type "Normal" or "Warning"; note cut with truncate_note. Thread-safe, never blocks on the
  // server.
  void record(ObjectReference regarding, std::string_view type, std::string_view reason,
              std::string_view action, std::string_view note, std::string_view reporting_controller,
              std::string_view reporting_instance,
              std::optional<ObjectReference> related = std::nullopt);
  // The same about objects (related an object or null), referred to as object_reference does.
  void record(const nlohmann::json& regarding, std::string_view type, std::string_view reason,
              std::string_view action, std::string_view note, std::string_view reporting_controller,
              std::string_view reporting_instance, const nlohmann::json& related = nullptr);

  // Waits until every queued event has been handled (written, counted or given up) and no
  // periodic write is running. Returns at once after stop().
  void flush();
  // Ends the worker: writes in flight or waiting to be retried are given up (counted failed),
  // queued events are not sent (flush() first for a clean shutdown). Idempotent, from any
  // thread.
  void stop();

  EventRecorderStats stats() const;

 private:
  struct Queued {
    Event event;       // its time is when it was recorded
    std::string key;   // event.series_key(), built once by record()
    std::size_t lane;  // the writer of that series: lane_of(key)
  };
  enum class Outcome { Done, Failed, Retry };

  // One series' writes in order; the head is in flight (or waiting for its retry).
  struct Lane {
    std::deque<EventSeriesCache::Write> writes;
    int attempt = 1;       // of the head write
    bool posting = false;  // the head, a series, found no event to PATCH: it is POSTed whole
  };

  void run();
  void handle(Queued&& item);
  // The lane of the series with that key.
  std::size_t lane_of(const std::string& key) const;
  std::size_t half_queue() const;  // the queue's length that ends a gather early
  // Sends the head write of a lane (after delay, for a retry).
  void send_head(std::size_t lane, std::chrono::milliseconds delay = {});
  // The answer to a lane's head write, on the loop's thread: counts it, POSTs a series that
  // was not found, retries, or moves on to the lane's next write.
  void answered(std::size_t lane, const std::string& method, const std::string& path,
                const Response& answer);
  Outcome judge(const EventSeriesCache::Write& write, const ApiError& e) const;
  // The periodic writes (refresh, finish), on the worker, through the client's own pool.
  Outcome write_once(const EventSeriesCache::Write& write);
  void refresh_series();
  void finish_series();
  void count(std::uint64_t EventRecorderStats::*counter);

  ApiClient& client_;
  const EventRecorderOptions options_;
  EventSeriesCache cache_;  // the worker's only

  mutable std::mutex mutex_;
  std::condition_variable wake_;  // the worker: an event queued, room in a lane, or stop
  std::condition_variable idle_;  // flush(): the queue drained and every write done
  std::deque<Queued> queue_;
  // A series' writes all go to lane hash(key) % size.
  std::vector<Lane> lanes_;
  std::size_t writes_pending_ = 0;  // in every lane
  bool busy_ = false;
  bool stopping_ = false;
  int flushing_ = 0;  // flush() calls waiting: the worker does not let events gather
  EventRecorderStats stats_;
  std::once_flag joined_;
  std::thread worker_;
  RequestLoop loop_;  // the lanes' writes; stopped by stop() before the members above go
};

}  // namespace schedhost::kube
