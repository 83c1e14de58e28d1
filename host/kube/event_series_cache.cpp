#include "kube/event_series_cache.hpp"

#include "kube/micro_time.hpp"

namespace schedhost::kube {

EventText EventText::of(const Event& event) {
  EventText text{event.namespace_name(), event.name(), event.reason, event.json_text()};
  text.json.shrink_to_fit();  // kept for minutes
  return text;
}

std::string EventSeriesCache::Write::body() const {
  if (series.empty()) return event.json;
  // The object's closing brace gives way to the series, the last key.
  std::string body = event.json;
  body.pop_back();
  body += R"(,"series":)";
  body += series;
  body += '}';
  return body;
}

std::string EventSeriesCache::Write::series_patch() const {
  return R"({"series":)" + series + "}";
}

EventSeriesCache::Write EventSeriesCache::series_write(const std::string& key, const Entry& entry) {
  return Write{Action::PatchSeries, key, *entry.series_event,
               R"({"count":)" + std::to_string(entry.count) + R"(,"lastObservedTime":")" +
                   format_micro_time(entry.last_observed) + R"("})"};
}

std::optional<EventSeriesCache::Write> EventSeriesCache::observe(const Event& event,
                                                                 Clock::time_point now) {
  return observe(event, event.series_key(), now);
}

std::optional<EventSeriesCache::Write> EventSeriesCache::observe(const Event& event,
                                                                 std::string key,
                                                                 Clock::time_point now) {
  const auto it = entries_.find(key);
  if (it == entries_.end()) {
    Entry entry{event.note, event.event_time, now, 1, now, nullptr};
    entry.first_note.shrink_to_fit();
    entries_.emplace(key, std::move(entry));
    return Write{Action::Create, std::move(key), EventText::of(event), {}};
  }
  Entry& entry = it->second;
  if (entry.count == 1) {
    // The series starts. The key holds every field but the note and the time, so this
    // occurrence with the first one's note and time is the first one. Made before the count
    // moves on, so that a count of 2 or more always has its text.
    Event first = event;
    first.note = std::move(entry.first_note);
    first.event_time = entry.first_event_time;
    entry.series_event = std::make_unique<const EventText>(EventText::of(first));
  }
  ++entry.count;
  entry.last_observed = now;
  if (entry.count > 2) return std::nullopt;
  return series_write(key, entry);
}

std::vector<EventSeriesCache::Write> EventSeriesCache::refresh() const {
  std::vector<Write> writes;
  for (const auto& [key, entry] : entries_) {
    if (entry.count >= 2) writes.push_back(series_write(key, entry));
  }
  return writes;
}

std::vector<EventSeriesCache::Write> EventSeriesCache::finish(Clock::time_point now,
                                                              Clock::duration idle) {
  std::vector<Write> writes;
  const Clock::time_point cutoff = now - idle;
  for (auto it = entries_.begin(); it != entries_.end();) {
    const Entry& entry = it->second;
    if (entry.count >= 2) {
      if (entry.last_observed < cutoff) writes.push_back(series_write(it->first, entry));
    } else if (entry.observed < cutoff) {
      it = entries_.erase(it);
      continue;
    }
    ++it;
  }
  return writes;
}

void EventSeriesCache::forget(const std::string& key) {
  entries_.erase(key);
}

int EventSeriesCache::count(const Event& event) const {
  const auto it = entries_.find(event.series_key());
  return it == entries_.end() ? 0 : it->second.count;
}

}  // namespace schedhost::kube
