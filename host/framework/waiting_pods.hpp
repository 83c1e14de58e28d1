// WaitingPods: pods held at Permit (upstream's waiting pods). A pod waits until every plugin that
// asked it to wait allows it, or any plugin rejects it, or a wait times out. schedhost replays a
// snapshot, so time is virtual: no time passes while pods are scheduled, and once nothing else can
// happen the earliest deadline expires (expire_first). `serve` runs in real time: each wait's
// deadline is counted from when the pod started waiting (expire_due).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/pod.hpp"

namespace schedhost::framework {

class WaitingPods {
 public:
  struct Wait {
    std::string plugin;
    std::uint32_t timeout_ms;
  };
  struct Entry {
    std::shared_ptr<const cluster::Pod> pod;  // the assumed pod (bound to its node)
    std::string node;
    std::vector<Wait> pending;                      // plugins that have not allowed it yet
    std::optional<std::string> rejected;            // the rejection message, once rejected
    std::string rejected_by;                        // the plugin that rejected it, or timed out
    std::chrono::steady_clock::time_point started;  // when it started waiting (real time)
  };

  void add(std::shared_ptr<const cluster::Pod> pod, std::string node, std::vector<Wait> waits);
  std::size_t size() const { return entries_.size(); }
  const cluster::Pod* pod_at(std::size_t index) const;

  // Ends plugin's wait on the pod with that uid; false when it is not waiting (for plugin).
  bool allow(std::string_view uid, std::string_view plugin);
  // Rejects the pod with that uid; false when it is not waiting.
  bool reject(std::string_view uid, std::string_view plugin, std::string_view message);

  // Removes and returns the pods that are resolved: allowed by every plugin, or rejected.
  std::vector<Entry> take_resolved();
  // Removes and returns the pod whose wait expires first (ties: first to wait), rejected with
  // upstream's timeout message; nullopt when none is waiting.
  std::optional<Entry> expire_first();
  // Real time: removes and returns the pod whose wait has the earliest deadline (started +
  // timeout), if that is not after now, rejected with the timeout message; nullopt otherwise.
  // One at a time, as separate timers fire: the Unreserve of the first may reject the others.
  std::optional<Entry> expire_first_due(std::chrono::steady_clock::time_point now);
  // The earliest deadline of any wait (real time), nullopt when none is waiting.
  std::optional<std::chrono::steady_clock::time_point> next_deadline() const;

 private:
  Entry* find(std::string_view uid);
  std::vector<Entry> entries_;  // in the order the pods started waiting
};

}  // namespace schedhost::framework
