// Splits a watch response, as it arrives in arbitrary chunks, into its events: one JSON object
// per line, {"type": ADDED|MODIFIED|DELETED|BOOKMARK|ERROR, "object": {...}}.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace schedhost::kube {

enum class WatchEventType { Added, Modified, Deleted, Bookmark, Error };

struct WatchEvent {
  WatchEventType type;
  nlohmann::json object;  // the object; for Error, a metav1.Status
};

class WatchDecoder {
 public:
  // Feeds a chunk; calls on_event for each complete event in it. Returns false as soon as
  // on_event does, or when a line is not a watch event (the stream is then unusable).
  bool feed(std::string_view chunk, const std::function<bool(WatchEvent&&)>& on_event);
  const std::string& error() const { return error_; }  // why feed returned false on bad data
  bool idle() const { return pending_.empty(); }       // no partial event buffered

 private:
  bool decode_line(std::string_view line, const std::function<bool(WatchEvent&&)>& on_event);
  std::string pending_;
  std::string error_;
};

}  // namespace schedhost::kube
