#include "framework/plugin_instance.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "common/input_error.hpp"
#include "common/typed_args.hpp"
#include "framework/call.hpp"
#include "framework/plugin_call_record.hpp"
#include "framework/plugin_metrics.hpp"

namespace schedhost::framework {
namespace {}  // namespace

PluginInstance::PluginInstance(const loader::PluginDefinition& definition)
    : definition_(definition),
      host_{"plugin \"" + definition.name + "\"", declared_metric_ids(definition)} {}

std::unique_ptr<PluginInstance> PluginInstance::create(const loader::PluginDefinition& definition,
                                                       std::string_view args_json) {
  std::unique_ptr<PluginInstance> instance(new PluginInstance(definition));
  // Upstream's apiVersion and kind never reach a plugin (common/typed_args.hpp).
  const std::string typed = typed_args_text(args_json, definition.name);
  const std::string_view args = typed.empty() ? std::string_view("{}") : std::string_view(typed);
  Call call;
  void* self = nullptr;
  schedhost_code_t code = SCHEDHOST_SUCCESS;
  {
    const PluginCallScope scope(definition, {"create()"});
    code = definition.vtable.create(host_api(), instance->host_.handle(),
                                    {args.data(), args.size()}, call.handle(), &self);
  }
  if (code != SCHEDHOST_SUCCESS) {
    const std::string reason = call.message();
    throw InputError(
        "plugin \"" + definition.name + "\": " +
        (reason.empty() ? "create() refused its args with code " + std::to_string(code) : reason));
  }
  if (self == nullptr) {
    // Every hook gets self back; a NULL one would look like a plugin that was never created.
    throw InputError("plugin \"" + definition.name +
                     "\": create() returned SUCCESS without an instance (*out_self is NULL): "
                     "return a non-NULL pointer, even to static data");
  }
  instance->self_ = self;
  instance->created_ = true;
  instance->collect_events();
  return instance;
}

void PluginInstance::collect_events() {
  // A host emulating 1.0-1.2 (SCHEDHOST_EMULATE_ABI_MINOR) does not know the hook.
  if (definition_.vtable.events_to_register == nullptr || host_api()->abi_minor < 3) return;
  Call call;
  schedhost_code_t code = SCHEDHOST_SUCCESS;
  {
    const PluginCallScope scope(definition_, {"events_to_register()"});
    code = definition_.vtable.events_to_register(self_, call.handle());
  }
  const std::string plugin = "plugin \"" + definition_.name + "\": ";
  if (code != SCHEDHOST_SUCCESS) {
    const std::string reason = call.message();
    throw InputError(plugin + "events_to_register() failed" +
                     (reason.empty() ? " with code " + std::to_string(code) : ": " + reason));
  }
  std::vector<EventRegistration> events;
  bool node_add = false;
  bool node_taint = false;
  for (auto& [resource, actions] : call.take_events()) {
    EventRegistration r{std::move(resource), actions};
    if (std::string why = check_registration(r); !why.empty()) throw InputError(plugin + why);
    if (legacy()) r = legacy_registration(std::move(r));
    node_add = node_add || (r.resource == "Node" && (r.actions & SCHEDHOST_ACTION_ADD) != 0);
    node_taint = node_taint ||
                 (r.resource == "Node" && (r.actions & SCHEDHOST_ACTION_UPDATE_NODE_TAINT) != 0);
    events.push_back(std::move(r));
  }
  // Upstream (scheduler.go, buildQueueingHintMap) still adds Node/UpdateNodeTaint, answered Queue
  // without the plugin's hint, for a plugin that registered NodeAdd without it: a node that
  // arrives tainted and is untainted later must not leave its pods waiting.
  taint_fallback_ = node_add && !node_taint;
  events_ = std::move(events);
}

bool PluginInstance::legacy() const {
  return definition_.library != nullptr &&
         definition_.library->abi_minor < kFirstMinorWithV135Events;
}

bool PluginInstance::worth_requeuing(const cluster::Pod& pod, const ClusterEvent& event) const {
  if (!events_) return true;
  for (const EventRegistration& r : *events_) {
    if (!registration_matches(r, event)) continue;
    // A library built before 1.7 was never told of the pending pod's own updates; as then, such
    // an update is worth a retry.
    if (event.pending_pod && legacy()) return true;
    return queueing_hint(pod, event);
  }
  return matches_taint_fallback(event);
}

bool PluginInstance::registered_for(const ClusterEvent& event) const {
  // Upstream counts only the plugins that can reject a pod (shouldHaveEnqueueExtensions).
  const schedhost_plugin_vtable_t& v = definition_.vtable;
  if (v.pre_enqueue == nullptr && v.pre_filter == nullptr && v.filter == nullptr &&
      v.reserve == nullptr && v.permit == nullptr) {
    return false;
  }
  if (!events_) return true;
  return std::any_of(events_->begin(), events_->end(),
                     [&](const EventRegistration& r) { return registration_matches(r, event); }) ||
         matches_taint_fallback(event);
}

bool PluginInstance::matches_taint_fallback(const ClusterEvent& event) const {
  return taint_fallback_ &&
         registration_matches({"Node", SCHEDHOST_ACTION_UPDATE_NODE_TAINT}, event);
}

namespace {
schedhost_str_t abi_view(const std::string& s) {
  return {s.data(), s.size()};
}
template <class T>
const T* handle_of(const std::shared_ptr<const T>& p) {
  return p.get();
}
}  // namespace

bool PluginInstance::queueing_hint(const cluster::Pod& pod, const ClusterEvent& event) const {
  const auto hint = definition_.vtable.queueing_hint;
  if (hint == nullptr) return true;
  schedhost_cluster_event_t e{};
  e.struct_size = sizeof(e);
  e.resource = abi_view(event.resource);
  e.actions = event.actions;
  e.label = abi_view(event.label);
  LegacyView legacy_event;
  if (legacy()) {
    legacy_event = legacy_view(event);
    e.actions = legacy_event.actions;
    e.label = abi_view(legacy_event.label);
  }
  e.old_pod = reinterpret_cast<const schedhost_pod_t*>(handle_of(event.old_pod));
  e.new_pod = reinterpret_cast<const schedhost_pod_t*>(handle_of(event.pod));
  e.old_node = reinterpret_cast<const schedhost_node_t*>(handle_of(event.old_node));
  e.new_node = reinterpret_cast<const schedhost_node_t*>(handle_of(event.node));
  e.old_object = reinterpret_cast<const schedhost_object_t*>(handle_of(event.old_object));
  e.new_object = reinterpret_cast<const schedhost_object_t*>(handle_of(event.object));
  Call call;
  schedhost_queueing_hint_t answer = SCHEDHOST_QUEUE;
  {
    const PluginCallScope scope(definition_, {"queueing_hint()", &pod});
    answer = hint(self_, call.handle(), reinterpret_cast<const schedhost_pod_t*>(&pod), &e);
  }
  if (answer == SCHEDHOST_QUEUE_SKIP) return false;
  if ((answer != SCHEDHOST_QUEUE || !call.reasons().empty()) && !warned_hint_) {
    warned_hint_ = true;
    spdlog::warn(
        "plugin \"{}\": queueing hint for {} on {}: {}; the pod is tried again (logged "
        "once per plugin)",
        definition_.name, pod.key(), event.label,
        answer != SCHEDHOST_QUEUE
            ? "answered " + std::to_string(answer) + ", which is neither SKIP (0) nor QUEUE (1)"
            : "failed: " + call.message());
  }
  return true;
}

PluginInstance::~PluginInstance() {
  if (!created_) return;
  const PluginCallScope scope(definition_, {"destroy()"});
  definition_.vtable.destroy(self_);
}

}  // namespace schedhost::framework
