#include "kube/event_recorder.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <random>

#include "common/thread_name.hpp"

namespace schedhost::kube {
namespace {

using nlohmann::json;
using WallClock = EventSeriesCache::Clock;

std::string events_path(std::string_view namespace_name) {
  return "/apis/events.k8s.io/v1/namespaces/" + url_escape(namespace_name) + "/events";
}

std::string describe(const EventSeriesCache::Write& write) {
  return write.event.reason + " event " + write.event.name;
}

}  // namespace

// --- EventRecorder ------------------------------------------------------------------------

EventRecorder::EventRecorder(ApiClient& client, EventRecorderOptions options)
    : client_(client),
      options_(options),
      lanes_(std::max<std::size_t>(1, options.writers)),
      loop_(client, {0, "event-writes", options.settle}) {
  worker_ = std::thread([this] {
    name_this_thread("events");
    run();
  });
}

EventRecorder::~EventRecorder() {
  stop();
}

void EventRecorder::record(ObjectReference regarding, std::string_view type,
                           std::string_view reason, std::string_view action, std::string_view note,
                           std::string_view reporting_controller,
                           std::string_view reporting_instance,
                           std::optional<ObjectReference> related) {
  Event event = make_event(std::move(regarding), std::move(related), type, reason, action, note,
                           reporting_controller, reporting_instance, WallClock::now());
  std::string key = event.series_key();  // outside the lock, once per event
  const std::size_t lane = lane_of(key);
  bool wake = false;
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || queue_.size() >= options_.queue_capacity) {
      ++stats_.dropped;
      return;
    }
    queue_.push_back({std::move(event), std::move(key), lane});
    // The worker waits for the queue's first event (or, gathering, for half a queue); an event
    // behind others changes nothing it waits for, and a wake-up would be a system call each.
    wake = queue_.size() == 1 || queue_.size() == half_queue();
  }
  if (wake) wake_.notify_one();
}

void EventRecorder::record(const json& regarding, std::string_view type, std::string_view reason,
                           std::string_view action, std::string_view note,
                           std::string_view reporting_controller,
                           std::string_view reporting_instance, const json& related) {
  record(object_reference(regarding), type, reason, action, note, reporting_controller,
         reporting_instance,
         related.is_object() ? std::optional(object_reference(related)) : std::nullopt);
}

std::size_t EventRecorder::half_queue() const {
  return std::max<std::size_t>(1, options_.queue_capacity / 2);
}

void EventRecorder::flush() {
  std::unique_lock lock(mutex_);
  ++flushing_;
  wake_.notify_one();
  idle_.wait(lock, [&] { return stopping_ || (queue_.empty() && !busy_ && writes_pending_ == 0); });
  --flushing_;
}

void EventRecorder::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  idle_.notify_all();
  std::call_once(joined_, [this] {
    worker_.join();
    loop_.stop();  // a write in flight or waiting to be retried is answered "stopped": failed
  });
}

EventRecorderStats EventRecorder::stats() const {
  EventRecorderStats stats;
  {
    std::lock_guard lock(mutex_);
    stats = stats_;
  }
  stats.wakeups = loop_.wakeups();
  return stats;
}

void EventRecorder::count(std::uint64_t EventRecorderStats::*counter) {
  std::lock_guard lock(mutex_);
  ++(stats_.*counter);
}

void EventRecorder::run() {
  using Steady = std::chrono::steady_clock;
  Steady::time_point next_refresh = Steady::now() + options_.refresh_period;
  Steady::time_point next_finish = Steady::now() + options_.finish_period;
  // The next event is taken once the writer of its series is free: until then it stays in the
  // queue, which is what fills when the server is slow.
  const auto next_ready = [this] {
    return !queue_.empty() && lanes_[queue_.front().lane].writes.size() <
                                  std::max<std::size_t>(1, options_.writes_per_writer);
  };
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_until(lock, std::min(next_refresh, next_finish),
                     [&] { return stopping_ || next_ready(); });
    if (stopping_) break;
    if (next_ready() && options_.gather.count() > 0) {
      wake_.wait_for(lock, options_.gather,
                     [&] { return stopping_ || flushing_ > 0 || queue_.size() >= half_queue(); });
      if (stopping_) break;
    }
    const bool refresh_due = Steady::now() >= next_refresh;
    const bool finish_due = Steady::now() >= next_finish;
    busy_ = true;
    {
      // Every event ready now, their writes handed to the loop together.
      RequestLoop::Batch batch(loop_);
      while (next_ready()) {
        Queued item = std::move(queue_.front());
        queue_.pop_front();
        lock.unlock();
        handle(std::move(item));
        lock.lock();
      }
    }
    lock.unlock();
    // Periods count from the end of the last run, as wait.Until's do.
    if (refresh_due) {
      refresh_series();
      next_refresh = Steady::now() + options_.refresh_period;
    }
    if (finish_due) {
      finish_series();
      next_finish = Steady::now() + options_.finish_period;
    }
    lock.lock();
    busy_ = false;
    if (queue_.empty() && writes_pending_ == 0) idle_.notify_all();
  }
}

void EventRecorder::handle(Queued&& item) {
  std::optional<EventSeriesCache::Write> write =
      cache_.observe(item.event, std::move(item.key), item.event.event_time);
  if (!write) {
    count(&EventRecorderStats::counted);
    return;
  }
  bool idle_lane = false;
  {
    // run() took the event when this lane had room, and only this thread fills lanes.
    std::lock_guard lock(mutex_);
    Lane& lane = lanes_[item.lane];
    idle_lane = lane.writes.empty();
    lane.writes.push_back(std::move(*write));
    ++writes_pending_;
  }
  if (idle_lane) send_head(item.lane);
}

std::size_t EventRecorder::lane_of(const std::string& key) const {
  return std::hash<std::string>{}(key) % lanes_.size();
}

void EventRecorder::send_head(std::size_t index, std::chrono::milliseconds delay) {
  std::string method;
  std::string path;
  std::string body;
  std::string_view content_type = "application/json";
  {
    std::lock_guard lock(mutex_);
    const Lane& lane = lanes_[index];
    const EventSeriesCache::Write& write = lane.writes.front();
    if (write.action == EventSeriesCache::Action::PatchSeries && !lane.posting) {
      method = "PATCH";
      path = events_path(write.event.namespace_name) + "/" + url_escape(write.event.name);
      body = write.series_patch();
      content_type = "application/strategic-merge-patch+json";
    } else {
      method = "POST";
      path = events_path(write.event.namespace_name);
      body = write.body();
    }
  }
  loop_.submit(
      method, path, std::move(body), std::string(content_type),
      [this, index, method, path](const Response& answer) {
        answered(index, method, path, answer);
      },
      delay);
}

void EventRecorder::answered(std::size_t index, const std::string& method, const std::string& path,
                             const Response& answer) {
  Outcome outcome = Outcome::Done;
  const bool patching = method == "PATCH";
  if (answer.code >= 200 && answer.code < 300) {
    count(patching ? &EventRecorderStats::patched : &EventRecorderStats::posted);
  } else {
    const ApiError e = ApiClient::error_of(method, path, answer);
    if (patching && e.not_found()) {
      // The event may have expired from the server (its TTL) or never been created: POST it
      // whole, in the same attempt.
      {
        std::lock_guard lock(mutex_);
        lanes_[index].posting = true;
      }
      send_head(index);
      return;
    }
    const EventSeriesCache::Write* write = nullptr;
    bool stopping = false;
    {
      std::lock_guard lock(mutex_);
      write = &lanes_[index].writes.front();  // stays put: only this answer pops it
      stopping = stopping_;
    }
    // Once stopped, every write the loop ended is given up, quietly.
    outcome = stopping ? Outcome::Failed : judge(*write, e);
  }
  std::chrono::milliseconds retry_after{0};
  {
    std::lock_guard lock(mutex_);
    Lane& lane = lanes_[index];
    if (outcome == Outcome::Retry) {
      if (stopping_) {
        outcome = Outcome::Failed;
      } else if (lane.attempt >= options_.max_attempts) {
        spdlog::error("{}: not written (retry limit of {} attempts exceeded)",
                      describe(lane.writes.front()), options_.max_attempts);
        outcome = Outcome::Failed;
      } else {
        ++stats_.retries;
        ++lane.attempt;
        lane.posting = false;  // each attempt of a series starts with its PATCH
        thread_local std::mt19937 rng{std::random_device{}()};
        std::uniform_real_distribution<double> jitter(0.0, 0.25);
        retry_after = std::chrono::duration_cast<std::chrono::milliseconds>(
            options_.retry_interval * (1 + jitter(rng)));
      }
    }
  }
  if (outcome == Outcome::Retry) {
    send_head(index, retry_after);
    return;
  }
  bool more = false;
  {
    std::lock_guard lock(mutex_);
    if (outcome == Outcome::Failed) ++stats_.failed;
    Lane& lane = lanes_[index];
    lane.writes.pop_front();
    lane.attempt = 1;
    lane.posting = false;
    --writes_pending_;
    more = !stopping_ && !lane.writes.empty();
    if (queue_.empty() && !busy_ && writes_pending_ == 0) idle_.notify_all();
  }
  wake_.notify_one();  // the worker may wait for room in this lane
  if (more) send_head(index);
}

EventRecorder::Outcome EventRecorder::judge(const EventSeriesCache::Write& write,
                                            const ApiError& e) const {
  const bool series = write.action == EventSeriesCache::Action::PatchSeries;
  if (e.code() == 409 && e.reason() == "AlreadyExists") {
    // A series' POST after its PATCH found nothing races a POST of the same event: the event
    // now exists, so patching it again will work. A single event is there already.
    if (series) return Outcome::Retry;
    spdlog::debug("{}: {} (not retried)", describe(write), e.what());
    return Outcome::Done;
  }
  if (e.transient()) {
    spdlog::warn("{}: {} (may retry after sleeping)", describe(write), e.what());
    return Outcome::Retry;
  }
  spdlog::error("{}: {} (not retried)", describe(write), e.what());
  return Outcome::Failed;
}

EventRecorder::Outcome EventRecorder::write_once(const EventSeriesCache::Write& write) {
  // Every 6 or 30 minutes, a few writes: through the client's blocking calls, which take trees.
  const std::string path = events_path(write.event.namespace_name);
  const bool series = write.action == EventSeriesCache::Action::PatchSeries;
  if (series) {
    try {
      client_.patch_unread(path + "/" + url_escape(write.event.name),
                           json::parse(write.series_patch()), PatchType::StrategicMerge);
      count(&EventRecorderStats::patched);
      return Outcome::Done;
    } catch (const ApiError& e) {
      // The event may have expired from the server (its TTL) or never been created.
      if (!e.not_found()) return judge(write, e);
    }
  }
  try {
    client_.create_unread(path, json::parse(write.body()));
    count(&EventRecorderStats::posted);
    return Outcome::Done;
  } catch (const ApiError& e) {
    return judge(write, e);
  }
}

void EventRecorder::refresh_series() {
  for (const EventSeriesCache::Write& write : cache_.refresh()) {
    if (write_once(write) == Outcome::Failed) count(&EventRecorderStats::failed);
  }
}

void EventRecorder::finish_series() {
  for (const EventSeriesCache::Write& write :
       cache_.finish(WallClock::now(), options_.finish_period)) {
    const Outcome outcome = write_once(write);
    if (outcome == Outcome::Failed) count(&EventRecorderStats::failed);
    if (outcome != Outcome::Retry) cache_.forget(write.key);
  }
}

}  // namespace schedhost::kube
