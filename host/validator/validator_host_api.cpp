#include "validator/validator_host_api.hpp"

#include <string_view>

#include "framework/abi_string.hpp"
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

schedhost_host_api_t make_table() {
  schedhost_host_api_t t = *framework::host_api();
  t.state_write = &state_write;
  t.state_read = &state_read;
  return t;
}

}  // namespace

const schedhost_host_api_t* validator_host_api() {
  static const schedhost_host_api_t table = make_table();
  return &table;
}

}  // namespace schedhost::validator
