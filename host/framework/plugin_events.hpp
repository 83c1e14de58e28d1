// PluginEvents: where the Events plugins record about pods go (ABI 1.9 record_event, upstream's
// EventRecorder from framework.Handle). The framework hands its sink to every hook's call but
// sign_pod's; the calls made outside it (create, events_to_register, queueing_hint) have none.
// run collects them into the pods' results and the log; serve writes events.k8s.io/v1 Events.
#pragma once

#include <string>
#include <string_view>

namespace schedhost::cluster {
class Pod;
}

namespace schedhost::framework {

// Where an event was recorded from: the hook ("Filter", "PostBind"; "" when unknown, e.g. from a
// thread of the plugin's own parallel_for) and the node that hook was given (null when none).
struct EventSite {
  std::string_view hook;
  const std::string* node = nullptr;
};

class PluginEvents {
 public:
  virtual ~PluginEvents() = default;
  // One event about pod from plugin, already checked by the host API: type "Normal" or
  // "Warning", reason UpperCamelCase (1 to 128 of [A-Za-z0-9]), message at most 1024 bytes. The
  // views and pod are valid for the call only. Thread-safe: Filter and Score record from many
  // threads at once.
  virtual void record(const cluster::Pod& pod, std::string_view plugin, std::string_view type,
                      std::string_view reason, std::string_view message, const EventSite& site) = 0;
};

}  // namespace schedhost::framework
