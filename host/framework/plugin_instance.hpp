// PluginInstance: one plugin created for one profile with its args; destroyed exactly once.
#pragma once

#include <schedhost/abi.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cluster/pod.hpp"
#include "framework/cluster_event.hpp"
#include "framework/plugin_host.hpp"
#include "loader/plugin_definition.hpp"

namespace schedhost::framework {

class PluginInstance {
 public:
  // Calls the plugin's create() with args as compact JSON ("{}" when the profile gives none),
  // without upstream's apiVersion and kind (common/typed_args.hpp). Throws InputError
  // `plugin "Name": <its reason>` when the plugin refuses, or `plugin "Name": args: ...` for a
  // kind that is not "<Name>Args". Then collects the events it registers (ABI 1.3), refusing it
  // the same way when events_to_register fails or registers something that is not an event.
  static std::unique_ptr<PluginInstance> create(const loader::PluginDefinition& definition,
                                                std::string_view args_json);
  ~PluginInstance();
  PluginInstance(const PluginInstance&) = delete;
  PluginInstance& operator=(const PluginInstance&) = delete;

  const std::string& name() const { return definition_.name; }
  const loader::PluginDefinition& definition() const { return definition_; }
  const schedhost_plugin_vtable_t& vtable() const { return definition_.vtable; }
  void* self() const { return self_; }

  // The events the plugin registered (EnqueueExtensions); nullopt when it has no
  // events_to_register: then every event may help the pods it rejected.
  const std::optional<std::vector<EventRegistration>>& events() const { return events_; }
  // Whether event may make pod, which this plugin rejected, schedulable: one of its registrations
  // matches and its queueing hint (if any) does not answer Skip. Scheduling thread.
  bool worth_requeuing(const cluster::Pod& pod, const ClusterEvent& event) const;
  // Whether one of its registrations matches event (upstream's isEventOfInterest, per plugin);
  // never for a plugin without PreEnqueue, PreFilter, Filter, Reserve or Permit (it rejects none).
  bool registered_for(const ClusterEvent& event) const;
  // True the first time only: a signature fragment that is not JSON is logged once per plugin,
  // not once per pod. Scheduling thread.
  bool first_bad_fragment() const { return !std::exchange(warned_fragment_, true); }

 private:
  explicit PluginInstance(const loader::PluginDefinition& definition);
  void collect_events();
  // Built against ABI 1.3-1.6: its registrations and hints use v1.28's action bits.
  bool legacy() const;
  bool matches_taint_fallback(const ClusterEvent& event) const;
  bool queueing_hint(const cluster::Pod& pod, const ClusterEvent& event) const;

  const loader::PluginDefinition& definition_;
  PluginHost host_;  // must outlive self_: the plugin may keep the handle
  void* self_ = nullptr;
  bool created_ = false;
  std::optional<std::vector<EventRegistration>> events_;
  bool taint_fallback_ = false;       // registered NodeAdd without UpdateNodeTaint (upstream's fix)
  mutable bool warned_hint_ = false;  // a bad hint answer is logged once
  mutable bool warned_fragment_ = false;  // and a bad signature fragment
};

}  // namespace schedhost::framework
