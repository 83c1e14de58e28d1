// The events broadcaster's client-side aggregation (client-go tools/events), as decisions
// without a server or a clock of its own: the first occurrence of an event is POSTed, the second
// PATCHes the first one's series to count 2, later ones are only counted. Occurrences with the
// same Event::series_key are one series; the note is not compared, so a series keeps its first.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kube/event.hpp"

namespace schedhost::kube {

// An Event as it is written: the JSON of its first occurrence, and what a write's path and log
// lines need of it.
struct EventText {
  std::string namespace_name;
  std::string name;
  std::string reason;
  std::string json;  // compact, without series

  static EventText of(const Event& event);
};

class EventSeriesCache {
 public:
  using Clock = std::chrono::system_clock;
  enum class Action { Create, PatchSeries };
  struct Write {
    Action action;
    std::string key;
    EventText event;
    // PatchSeries: the series object, {"count":N,"lastObservedTime":"..."}.
    std::string series;

    // The Event to POST: the first occurrence, with its series when it has one (a PatchSeries
    // answered 404 is POSTed whole).
    std::string body() const;
    // PatchSeries: the strategic-merge patch of the event, {"series":{...}}.
    std::string series_patch() const;
  };

  // One occurrence at now: Create for the first, PatchSeries (count 2) for the second, nullopt
  // for later ones, only counted. key is event.series_key(), when the caller has built it.
  std::optional<Write> observe(const Event& event, Clock::time_point now);
  std::optional<Write> observe(const Event& event, std::string key, Clock::time_point now);
  // The periodic refresh: a PatchSeries for every series, with its current count.
  std::vector<Write> refresh() const;
  // The periodic finish: forgets single events that happened more than idle before now, and
  // returns a last PatchSeries for each series idle that long. The caller forget()s those it
  // wrote (or that failed for good) and keeps those to retry at the next finish.
  std::vector<Write> finish(Clock::time_point now, Clock::duration idle);
  void forget(const std::string& key);

  std::size_t size() const { return entries_.size(); }
  // The series count of the event's key: 1 for a single event, 0 when not cached.
  int count(const Event& event) const;

 private:
  // Most events happen once (a pod's Scheduled event), and an entry lives for minutes, so a
  // single event keeps only what its key leaves out: the first occurrence's note and time. The
  // second occurrence, whose fields the key fixes, rebuilds the first one's text from them.
  struct Entry {
    std::string first_note;  // until the series starts
    Clock::time_point first_event_time;
    Clock::time_point observed;  // when the first occurrence was observed
    int count = 1;
    Clock::time_point last_observed;
    std::unique_ptr<const EventText> series_event;  // the first occurrence, once count >= 2
  };
  static Write series_write(const std::string& key, const Entry& entry);
  std::map<std::string, Entry> entries_;
};

}  // namespace schedhost::kube
