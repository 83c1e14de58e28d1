#include "kube/watch_decoder.hpp"

#include "kube/json_parse.hpp"

namespace schedhost::kube {

bool WatchDecoder::feed(std::string_view chunk, const std::function<bool(WatchEvent&&)>& on_event) {
  std::size_t start = 0;
  for (std::size_t nl = chunk.find('\n'); nl != std::string_view::npos;
       nl = chunk.find('\n', start)) {
    bool ok = true;
    if (pending_.empty()) {
      ok = decode_line(chunk.substr(start, nl - start), on_event);
    } else {
      pending_.append(chunk.substr(start, nl - start));
      std::string line = std::move(pending_);
      pending_.clear();
      ok = decode_line(line, on_event);
    }
    if (!ok) return false;
    start = nl + 1;
  }
  pending_.append(chunk.substr(start));
  return true;
}

bool WatchDecoder::decode_line(std::string_view line,
                               const std::function<bool(WatchEvent&&)>& on_event) {
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) return true;
  nlohmann::json event = parse_json(line);
  if (!event.is_object() || !event.contains("type") || !event["type"].is_string() ||
      !event.contains("object") || !event["object"].is_object()) {
    error_ = "not a watch event: " + std::string(line.substr(0, 120));
    return false;
  }
  const std::string type = event["type"];
  WatchEventType t;
  if (type == "ADDED") {
    t = WatchEventType::Added;
  } else if (type == "MODIFIED") {
    t = WatchEventType::Modified;
  } else if (type == "DELETED") {
    t = WatchEventType::Deleted;
  } else if (type == "BOOKMARK") {
    t = WatchEventType::Bookmark;
  } else if (type == "ERROR") {
    t = WatchEventType::Error;
  } else {
    error_ = "unknown watch event type \"" + type + "\"";
    return false;
  }
  return on_event({t, std::move(event["object"])});
}

}  // namespace schedhost::kube
