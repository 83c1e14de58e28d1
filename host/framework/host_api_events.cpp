// The events part of the host API table (ABI 1.9): record_event, upstream's EventRecorder from
// framework.Handle. The host checks the event (type, reason, message's length) and hands it to
// the sink of the call (the framework's, for every hook but sign_pod): run lists it on the pod's
// result, serve writes an events.k8s.io/v1 Event. A call without a sink records nothing.
#include "framework/host_api_events.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <exception>

#include "framework/abi_string.hpp"
#include "framework/call.hpp"
#include "framework/plugin_call_record.hpp"
#include "framework/plugin_events.hpp"

namespace schedhost::framework {

bool valid_event_type(std::string_view type) {
  return type == "Normal" || type == "Warning";
}

bool valid_event_reason(std::string_view reason) {
  return !reason.empty() && reason.size() <= kMaxEventReasonBytes &&
         std::all_of(reason.begin(), reason.end(), [](char c) {
           return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
         });
}

std::string_view cut_event_message(std::string_view message) {
  if (message.size() <= kMaxEventMessageBytes) return message;
  std::size_t cut = kMaxEventMessageBytes;
  while (cut > 0 && (static_cast<unsigned char>(message[cut]) & 0xC0) == 0x80)
    --cut;  // do not split a UTF-8 sequence
  return message.substr(0, cut);
}

namespace {

bool record_plugin_event(schedhost_call_t* call, const schedhost_pod_t* pod, schedhost_str_t type,
                         schedhost_str_t reason, schedhost_str_t message) {
  if (call == nullptr || pod == nullptr) return false;
  const Call& c = Call::from(call);
  PluginEvents* sink = c.events();
  if (sink == nullptr || !valid_event_type(view(type)) || !valid_event_reason(view(reason))) {
    return false;
  }
  // The hook being called on this thread (none on a thread of the plugin's own parallel_for).
  const PluginCallRecord* current = current_plugin_call();
  const EventSite site{current != nullptr && current->hook != nullptr ? current->hook : "",
                       current != nullptr ? call_node_name(*current) : nullptr};
  try {
    sink->record(*reinterpret_cast<const cluster::Pod*>(pod), c.plugin(), view(type), view(reason),
                 cut_event_message(view(message)), site);
  } catch (const std::exception& e) {  // out of memory: the plugin's call goes on
    spdlog::warn("plugin \"{}\": event {} not recorded: {}", c.plugin(), view(reason), e.what());
    return false;
  }
  return true;
}

}  // namespace

void fill_event_functions(schedhost_host_api_t& table) {
  table.record_event = &record_plugin_event;
}

}  // namespace schedhost::framework
