// One events.k8s.io/v1 Event as upstream's recorder makes it (client-go tools/events), kept as
// its fields and written straight to JSON text: an Event is written once per pod scheduled, and
// a tree built, dumped and dumped again for it cost more than the rest of its write.
#pragma once

#include <chrono>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace schedhost::kube {

// The longest note the API server accepts (validation.NoteLengthLimit).
inline constexpr std::size_t kNoteLengthLimit = 1024;

// A note of at most kNoteLengthLimit bytes, as upstream's truncateMessage: a longer one keeps
// its head and ends in " ...". The cut falls on a UTF-8 boundary (upstream cuts bytes).
std::string truncate_note(std::string note);

// "<reporting_controller>-<hostname>", upstream's reportingInstance (the hostname read once).
std::string reporting_instance_for(std::string_view reporting_controller);

// A corev1.ObjectReference; an empty field is left out of its JSON.
struct ObjectReference {
  std::string kind;
  std::string namespace_name;
  std::string name;
  std::string uid;
  std::string api_version;
  std::string resource_version;

  bool operator==(const ObjectReference&) const = default;
  // Appends the compact JSON object, keys in the order nlohmann's dump() sorts them.
  void append_json(std::string& out) const;
  nlohmann::json to_json() const;
};

// The reference to an object, as ref.GetReference makes it, from its string fields:
// string_at(json pointer) is the string there, or "". An object without kind and apiVersion
// (informer copies have none) is taken for a Pod, v1.
template <typename StringAt>
ObjectReference reference_from(const StringAt& string_at) {
  ObjectReference ref{string_at("/kind"),          string_at("/metadata/namespace"),
                      string_at("/metadata/name"), string_at("/metadata/uid"),
                      string_at("/apiVersion"),    string_at("/metadata/resourceVersion")};
  if (ref.kind.empty() || ref.api_version.empty()) {
    ref.kind = "Pod";
    ref.api_version = "v1";
  }
  return ref;
}

// reference_from an object's tree.
ObjectReference object_reference(const nlohmann::json& object);

// One occurrence of an Event. Fields may hold any bytes: its JSON replaces what is not UTF-8.
struct Event {
  ObjectReference regarding;
  std::optional<ObjectReference> related;
  std::string type;  // "Normal" or "Warning"
  std::string reason;
  std::string action;
  std::string note;
  std::string reporting_controller;
  std::string reporting_instance;
  std::chrono::system_clock::time_point event_time;

  // metadata.name: "<regarding name>.<UnixNano of event_time in hex>".
  std::string name() const;
  // metadata.namespace: the regarding object's, or "default".
  std::string namespace_name() const;
  // What makes occurrences one series: every field but the note and the time.
  std::string series_key() const;
  // The Event to POST, as compact JSON (keys sorted, as nlohmann's dump() writes them).
  std::string json_text() const;
};

// The Event of one occurrence at now; the note cut with truncate_note after making it UTF-8.
Event make_event(ObjectReference regarding, std::optional<ObjectReference> related,
                 std::string_view type, std::string_view reason, std::string_view action,
                 std::string_view note, std::string_view reporting_controller,
                 std::string_view reporting_instance, std::chrono::system_clock::time_point now);

}  // namespace schedhost::kube
