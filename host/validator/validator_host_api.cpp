#include "validator/validator_host_api.hpp"

#include <mutex>
#include <string>
#include <string_view>

#include "framework/abi_string.hpp"
#include "framework/host_api_events.hpp"
#include "framework/plugin_host.hpp"
#include "validator/audited_state.hpp"

namespace schedhost::validator {
namespace {

using framework::view;

bool state_write(schedhost_cycle_state_t* state, schedhost_str_t key, void* value,
                 const schedhost_state_ops_t* ops) {
  if (state == nullptr) return false;
  return AuditedState::from(state).write(view(key), value, ops);
}

void* state_read(const schedhost_cycle_state_t* state, schedhost_str_t key,
                 const schedhost_state_ops_t* ops) {
  return state == nullptr ? nullptr : AuditedState::from(state).read(view(key), ops);
}

std::mutex& tally_mutex() {
  static std::mutex m;
  return m;
}
EventTally& tally() {
  static EventTally t;
  return t;
}

// As the host checks an Event (framework/host_api_events.hpp); the validator has no recorder:
// an accepted one is only counted.
bool record_event(schedhost_call_t* call, const schedhost_pod_t* pod, schedhost_str_t type,
                  schedhost_str_t reason, schedhost_str_t) {
  std::string why;
  if (call == nullptr || pod == nullptr) {
    why = "record_event with a NULL call or pod";
  } else if (!framework::valid_event_type(view(type))) {
    why = "record_event type \"" + std::string(view(type)) + "\" is neither Normal nor Warning";
  } else if (!framework::valid_event_reason(view(reason))) {
    why = "record_event reason \"" + std::string(view(reason)) +
          "\" is not UpperCamelCase ([A-Za-z0-9], 1 to 128 bytes)";
  }
  std::lock_guard lock(tally_mutex());
  if (why.empty()) {
    ++tally().recorded;
    return true;
  }
  if (tally().refused++ == 0) tally().first_refusal = why;
  return false;
}

schedhost_host_api_t make_table() {
  schedhost_host_api_t t = *framework::host_api();
  t.state_write = &state_write;
  t.state_read = &state_read;
  t.record_event = &record_event;
  return t;
}

}  // namespace

EventTally event_tally() {
  std::lock_guard lock(tally_mutex());
  return tally();
}

void reset_event_tally() {
  std::lock_guard lock(tally_mutex());
  tally() = {};
}

const schedhost_host_api_t* validator_host_api() {
  static const schedhost_host_api_t table = make_table();
  return &table;
}

}  // namespace schedhost::validator
