// The events function of the host API table (ABI 1.9 record_event): the Events plugins record
// about pods, checked here and handed to the call's sink (framework/plugin_events.hpp).
#pragma once

#include <schedhost/abi.h>

#include <cstddef>
#include <string_view>

namespace schedhost::framework {

// The longest reason and message record_event takes: a longer reason is refused, a longer
// message cut (at a UTF-8 boundary) to this many bytes, the API server's limit for a note.
inline constexpr std::size_t kMaxEventReasonBytes = 128;
inline constexpr std::size_t kMaxEventMessageBytes = 1024;

// Whether record_event takes type ("Normal" or "Warning") and reason (UpperCamelCase: 1 to
// kMaxEventReasonBytes of [A-Za-z0-9]).
bool valid_event_type(std::string_view type);
bool valid_event_reason(std::string_view reason);
// message cut to at most kMaxEventMessageBytes, without splitting a UTF-8 sequence.
std::string_view cut_event_message(std::string_view message);

// Sets record_event.
void fill_event_functions(schedhost_host_api_t& table);

}  // namespace schedhost::framework
