// The host API table: what plugins call back into. Everything here must tolerate a plugin's
// mistakes (NULL views, unknown ids, calls at the wrong point) without crashing the host.
#include <spdlog/spdlog.h>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "framework/abi_string.hpp"
#include "framework/api_access.hpp"
#include "framework/call.hpp"
#include "framework/cycle_state.hpp"
#include "framework/hook_activity.hpp"
#include "framework/host_api_events.hpp"
#include "framework/host_api_metrics.hpp"
#include "framework/host_api_objects.hpp"
#include "framework/host_api_preemption.hpp"
#include "framework/plugin_host.hpp"
#include "framework/waiting_pods.hpp"

namespace schedhost::framework {
namespace {

spdlog::level::level_enum spdlog_level(schedhost_log_level_t level) {
  switch (level) {
    case SCHEDHOST_LOG_TRACE:
      return spdlog::level::trace;
    case SCHEDHOST_LOG_DEBUG:
      return spdlog::level::debug;
    case SCHEDHOST_LOG_INFO:
      return spdlog::level::info;
    case SCHEDHOST_LOG_WARN:
      return spdlog::level::warn;
    default:
      return spdlog::level::err;
  }
}

bool log_enabled(const schedhost_host_t*, schedhost_log_level_t level) {
  return spdlog::should_log(spdlog_level(level));
}

void log(const schedhost_host_t* host, schedhost_log_level_t level, schedhost_str_t msg) {
  if (host == nullptr) {
    spdlog::log(spdlog_level(level), "plugin: {}", view(msg));
  } else {
    spdlog::log(spdlog_level(level), "{}: {}", PluginHost::from(host).name, view(msg));
  }
}

void add_reason(schedhost_call_t* call, schedhost_str_t reason) {
  if (call != nullptr) Call::from(call).add_reason(view(reason));
}

void set_node_names(schedhost_call_t* call, const schedhost_str_t* names, size_t count) {
  if (call == nullptr || (names == nullptr && count > 0)) return;
  std::vector<std::string> copy;
  copy.reserve(count);
  for (size_t i = 0; i < count; ++i)
    copy.emplace_back(view(names[i]));
  Call::from(call).set_node_names(std::move(copy));
}

void set_nominated_node(schedhost_call_t* call, schedhost_str_t node_name) {
  if (call != nullptr) Call::from(call).set_nominated_node(view(node_name));
}

bool state_write(schedhost_cycle_state_t* state, schedhost_str_t key, void* value,
                 const schedhost_state_ops_t* ops) {
  if (state == nullptr) return false;
  return CycleState::from(state).write(view(key), value, ops);
}

void* state_read(const schedhost_cycle_state_t* state, schedhost_str_t key,
                 const schedhost_state_ops_t* ops) {
  return state == nullptr ? nullptr : CycleState::from(state).read(view(key), ops);
}

WaitingPods* waiting_of(const schedhost_call_t* call) {
  return call == nullptr ? nullptr : Call::from(call).waiting_pods();
}

size_t waiting_pod_count(const schedhost_call_t* call) {
  const WaitingPods* w = waiting_of(call);
  return w == nullptr ? 0 : w->size();
}

const schedhost_pod_t* waiting_pod_at(const schedhost_call_t* call, size_t index) {
  const WaitingPods* w = waiting_of(call);
  return w == nullptr ? nullptr : reinterpret_cast<const schedhost_pod_t*>(w->pod_at(index));
}

// Allow and reject act for the plugin being called, as upstream's waitingPod.Allow(name).
bool waiting_pod_allow(schedhost_call_t* call, schedhost_str_t uid) {
  WaitingPods* w = waiting_of(call);
  return w != nullptr && w->allow(view(uid), Call::from(call).plugin());
}

bool waiting_pod_reject(schedhost_call_t* call, schedhost_str_t uid, schedhost_str_t message) {
  WaitingPods* w = waiting_of(call);
  return w != nullptr && w->reject(view(uid), Call::from(call).plugin(), view(message));
}

void register_event(schedhost_call_t* call, schedhost_str_t resource, schedhost_action_t actions) {
  if (call != nullptr) Call::from(call).register_event(view(resource), actions);
}

void report_exception(schedhost_call_t* call, schedhost_str_t what) {
  if (call == nullptr) return;
  Call::from(call).add_reason(view(what));
  Call::from(call).mark_exception();
}

void add_sign_fragment(schedhost_call_t* call, schedhost_str_t key, schedhost_str_t value_json) {
  if (call != nullptr) Call::from(call).add_sign_fragment(view(key), view(value_json));
}

config::FeatureGates& plugin_feature_gates() {
  static config::FeatureGates gates;
  return gates;
}

bool feature_enabled(const schedhost_host_t* /*host*/, schedhost_str_t gate) {
  return plugin_feature_gates().enabled(view(gate));
}

schedhost_code_t api_request(schedhost_call_t* call, schedhost_str_t verb, schedhost_str_t path,
                             schedhost_str_t content_type, schedhost_str_t body,
                             int32_t* out_status, schedhost_str_t* out_body) {
  if (call == nullptr) return SCHEDHOST_ERROR;
  Call& c = Call::from(call);
  auto answer = [&](std::string text) {
    if (out_body != nullptr) *out_body = c.hold(std::move(text));
  };
  if (!c.may_block()) {
    const std::string_view hook = HookActivity::current_hook();
    answer("api_request: refused from " + std::string(hook.empty() ? "this hook" : hook) +
           ": only PreBind, Bind, PostBind and Unreserve may send requests to the API server "
           "(the hooks upstream lets block); Filter and Score must not wait on it");
    return SCHEDHOST_ERROR;
  }
  if (c.api() == nullptr) {
    answer("api_request: no API server in this process (run replays without one)");
    return SCHEDHOST_SKIP;
  }
  try {
    std::optional<ApiAccess::Reply> reply =
        c.api()->request(view(verb), view(path), view(content_type), view(body));
    if (!reply) {
      answer("api_request: no API server in this process for " + std::string(view(path)) +
             " (run answers only for the resources plugins declared)");
      return SCHEDHOST_SKIP;
    }
    if (out_status != nullptr) *out_status = reply->status;
    answer(std::move(reply->body));
    return SCHEDHOST_SUCCESS;
  } catch (const std::exception& e) {
    answer(std::string("api_request: ") + std::string(view(verb)) + " " + std::string(view(path)) +
           ": " + e.what());
    return SCHEDHOST_ERROR;
  }
}

schedhost_host_api_t make_table() {
  schedhost_host_api_t t{};
  t.struct_size = sizeof(schedhost_host_api_t);
  t.abi_major = SCHEDHOST_ABI_MAJOR;
  t.abi_minor = SCHEDHOST_ABI_MINOR;
  t.log_enabled = &log_enabled;
  t.log = &log;
  t.add_reason = &add_reason;
  t.set_node_names = &set_node_names;
  t.set_nominated_node = &set_nominated_node;
  t.state_write = &state_write;
  t.state_read = &state_read;
  t.waiting_pod_count = &waiting_pod_count;
  t.waiting_pod_at = &waiting_pod_at;
  t.waiting_pod_allow = &waiting_pod_allow;
  t.waiting_pod_reject = &waiting_pod_reject;
  t.register_event = &register_event;
  t.report_exception = &report_exception;
  t.add_sign_fragment = &add_sign_fragment;
  t.feature_enabled = &feature_enabled;
  t.api_request = &api_request;
  fill_object_accessors(t);
  fill_preemption_functions(t);
  fill_event_functions(t);
  fill_metric_functions(t);
  return t;
}

}  // namespace

schedhost_host_api_t& table() {
  static schedhost_host_api_t t = make_table();
  return t;
}

const schedhost_host_api_t* host_api() {
  return &table();
}

void set_plugin_feature_gates(const config::FeatureGates& gates) {
  plugin_feature_gates() = gates;
}

bool emulate_host_abi_minor(uint32_t minor) {
  // Where each minor's table ended: the first function the next minor appended.
  static constexpr uint32_t kSizes[] = {
      offsetof(schedhost_host_api_t, snapshot_nodes_with_pods_count),  // 1.0
      offsetof(schedhost_host_api_t, snapshot_id),                     // 1.1
      offsetof(schedhost_host_api_t, register_event),                  // 1.2
      offsetof(schedhost_host_api_t, report_exception),                // 1.3
      offsetof(schedhost_host_api_t, process_preemption),              // 1.4
      offsetof(schedhost_host_api_t, add_sign_fragment),               // 1.5
      offsetof(schedhost_host_api_t, object_count),                    // 1.6
      offsetof(schedhost_host_api_t, object_count),   // 1.7: v1.35's action bits, no function
      offsetof(schedhost_host_api_t, object_select),  // 1.8
      sizeof(schedhost_host_api_t),                   // 1.9
  };
  static_assert(std::size(kSizes) == SCHEDHOST_ABI_MINOR + 1, "a size per minor");
  if (minor > SCHEDHOST_ABI_MINOR) return false;
  table().struct_size = kSizes[minor];
  table().abi_minor = minor;
  return true;
}

}  // namespace schedhost::framework
