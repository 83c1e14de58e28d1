// PluginMetrics: the metrics plugins declare (ABI 1.9), one series per (plugin, metric name) for
// the whole process, served by serve's /metrics as schedhost_plugin_<name>{plugin="<Plugin>"}.
// Plugins record from their Filter and Score threads, so recording takes no lock: a series, once
// registered, is published through an atomic pointer and only its atomics change after that.
#pragma once

#include <prometheus/metric_family.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <schedhost/detail/library_rules.hpp>

#include "loader/plugin_definition.hpp"

namespace schedhost::framework {

class PluginMetrics {
 public:
  // How many series the process can hold; registration past it is refused (id -1).
  static constexpr std::size_t kCapacity = 4096;

  // The process's registry; never destroyed, so a plugin recording at exit finds it. Any thread.
  static PluginMetrics& instance();

  // Registers schedhost_plugin_<decl.name>{plugin="<plugin>"} (at zero) and answers its id, a
  // small non-negative integer; the same (plugin, name) answers the same id, so the profiles that
  // enable one plugin share its series. -1, logged once as an error, when the name is the host's
  // own, another plugin declared it with another kind, or the registry is full. Any thread (takes
  // the registration lock).
  std::int32_t add(const std::string& plugin, const library_rules::MetricDecl& decl);

  // Adds value to a counter (finite, >= 0) or observes it in a histogram (finite). An unknown id
  // or a value out of range is ignored, logged once (per series) at warn. Any thread; lock-free.
  void record(std::int32_t id, double value);

  // One family per metric name, its help from the first plugin that declared it, one series per
  // plugin (label plugin), in name and then plugin order. Any thread (takes the registration lock,
  // never blocks record).
  std::vector<prometheus::MetricFamily> collect() const;

 private:
  struct Series;
  // The series of one metric name, which every plugin that declares it shares.
  struct Family {
    std::string help;
    schedhost_metric_kind_t kind;
    std::map<std::string, const Series*> by_plugin;
  };

  PluginMetrics();
  ~PluginMetrics();

  // Under mutex_: the id of a new series, or -1 (logged) when it cannot be served.
  std::int32_t register_series(const std::string& plugin, const library_rules::MetricDecl& decl);

  // The record path reads only this: slot i holds series i once registered, null before.
  std::array<std::atomic<Series*>, kCapacity> slots_{};
  std::atomic<bool> warned_unknown_id_{false};  // an unknown id is logged once per process

  mutable std::mutex mutex_;  // registration and collect
  std::vector<std::unique_ptr<Series>> owned_;
  std::map<std::pair<std::string, std::string>, std::int32_t> ids_;  // (plugin, name); -1 refused
  std::map<std::string, Family> families_;                           // by metric name
};

// Registers the metrics a plugin declared (ABI 1.9) and returns what its instances' metric_id
// looks up (PluginHost::metric_ids): before create(), which is where a plugin asks. The series
// are the process's, so every instance of the plugin (one per profile) gets the same ids; a
// refused one (-1) is left out, as metric_id answers -1 for it anyway. None when the host
// emulates an older minor (SCHEDHOST_EMULATE_ABI_MINOR). Scheduling thread.
std::vector<std::pair<std::string, std::int32_t>> declared_metric_ids(
    const loader::PluginDefinition& definition);

}  // namespace schedhost::framework
