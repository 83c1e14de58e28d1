#include "kube/event.hpp"

#include <unistd.h>

#include <climits>
#include <cstdio>

#include "common/utf8.hpp"
#include "kube/json_text.hpp"
#include "kube/micro_time.hpp"

namespace schedhost::kube {
namespace {

// Appends ,"key":"value" (or "key":"value" first in its object) unless value is empty.
void append_field(std::string& out, std::string_view key, std::string_view value) {
  if (value.empty()) return;
  if (out.back() != '{') out += ',';
  out += '"';
  out += key;
  out += "\":";
  append_json_string(out, value);
}

}  // namespace

std::string truncate_note(std::string note) {
  if (note.size() <= kNoteLengthLimit) return note;
  constexpr std::string_view kSuffix = " ...";
  std::size_t cut = kNoteLengthLimit - kSuffix.size();
  // Back off continuation bytes so a multi-byte character is not split.
  while (cut > 0 && (static_cast<unsigned char>(note[cut]) & 0xC0) == 0x80)
    --cut;
  note.resize(cut);
  note += kSuffix;
  return note;
}

std::string reporting_instance_for(std::string_view reporting_controller) {
  // Read once, as upstream's recorder reads os.Hostname once: serve names every Scheduled
  // Event's instance, and a system call per pod bought nothing.
  static const std::string hostname = [] {
    char host[HOST_NAME_MAX + 1] = {};
    if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
    return std::string(host);
  }();
  return std::string(reporting_controller) + "-" + hostname;
}

void ObjectReference::append_json(std::string& out) const {
  out += '{';
  append_field(out, "apiVersion", api_version);
  append_field(out, "kind", kind);
  append_field(out, "name", name);
  append_field(out, "namespace", namespace_name);
  append_field(out, "resourceVersion", resource_version);
  append_field(out, "uid", uid);
  out += '}';
}

nlohmann::json ObjectReference::to_json() const {
  std::string text;
  append_json(text);
  return nlohmann::json::parse(text);
}

ObjectReference object_reference(const nlohmann::json& object) {
  return reference_from([&object](const char* pointer) {
    const nlohmann::json::json_pointer at(pointer);
    if (!object.contains(at)) return std::string();
    const nlohmann::json& value = object.at(at);
    return value.is_string() ? value.get<std::string>() : std::string();
  });
}

std::string Event::name() const {
  // fmt.Sprintf("%v.%x", name, t.UnixNano())
  char hex[24];
  std::snprintf(
      hex, sizeof hex, ".%llx",
      static_cast<unsigned long long>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(event_time.time_since_epoch())
              .count()));
  return regarding.name + hex;
}

std::string Event::namespace_name() const {
  return regarding.namespace_name.empty() ? "default" : regarding.namespace_name;
}

std::string Event::series_key() const {
  std::string key = "[";
  for (const std::string* field :
       {&type, &action, &reason, &reporting_controller, &reporting_instance}) {
    append_json_string(key, *field);
    key += ',';
  }
  regarding.append_json(key);
  key += ',';
  if (related) {
    related->append_json(key);
  } else {
    key += "null";  // apart from a related object with every field empty, written as {}
  }
  key += ']';
  return key;
}

std::string Event::json_text() const {
  std::string out;
  out.reserve(512 + note.size());
  out += '{';
  append_field(out, "action", action);
  append_field(out, "apiVersion", "events.k8s.io/v1");
  append_field(out, "eventTime", format_micro_time(event_time));
  append_field(out, "kind", "Event");
  out += R"(,"metadata":{)";
  append_field(out, "name", name());
  append_field(out, "namespace", namespace_name());
  out += '}';
  append_field(out, "note", note);
  append_field(out, "reason", reason);
  out += R"(,"regarding":)";
  regarding.append_json(out);
  if (related) {
    out += R"(,"related":)";
    related->append_json(out);
  }
  append_field(out, "reportingController", reporting_controller);
  append_field(out, "reportingInstance", reporting_instance);
  append_field(out, "type", type);
  out += '}';
  return out;
}

Event make_event(ObjectReference regarding, std::optional<ObjectReference> related,
                 std::string_view type, std::string_view reason, std::string_view action,
                 std::string_view note, std::string_view reporting_controller,
                 std::string_view reporting_instance, std::chrono::system_clock::time_point now) {
  return Event{std::move(regarding),
               std::move(related),
               std::string(type),
               std::string(reason),
               std::string(action),
               truncate_note(valid_utf8(note)),
               std::string(reporting_controller),
               std::string(reporting_instance),
               now};
}

}  // namespace schedhost::kube
