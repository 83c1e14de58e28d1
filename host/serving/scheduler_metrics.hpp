// The metrics `serve` exposes on /metrics, with kube-scheduler's names, types, labels and help
// texts (its dashboards and alerts work unchanged), kept in a prometheus-cpp registry and
// written in the Prometheus text format by prometheus-cpp. What only schedhost can tell is under
// schedhost_: the plugins loaded and their faults. process_* are read from /proc at each scrape,
// as client_golang's process collector does.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "framework/framework_metrics.hpp"
#include "scheduler/opportunistic_batch.hpp"
#include "serving/plugin_duration_series.hpp"

namespace schedhost::serving {

// Orders series keys, tuples of texts (and a status code), whether they are held as strings or
// looked up by string_views without building strings. std::less<> on the mixed tuples compiles
// with GCC but not with clang 14 on libstdc++ 12 (which clang-tidy uses).
struct SeriesKeyLess {
  using is_transparent = void;
  template <class A, class B>
  bool operator()(const A& a, const B& b) const {
    return as_views(a) < as_views(b);
  }

 private:
  template <class... T>
  static auto as_views(const std::tuple<T...>& key) {
    return std::apply([](const auto&... v) { return std::make_tuple(view(v)...); }, key);
  }
  static std::string_view view(const std::string& s) { return s; }
  static std::string_view view(std::string_view s) { return s; }
  template <class Other>
  static const Other& view(const Other& v) {
    return v;
  }
};

class SchedulerMetrics final : public framework::FrameworkMetrics, public scheduler::BatchMetrics {
 public:
  SchedulerMetrics();

  // One scheduling attempt ended: result is "scheduled", "unschedulable" or "error"; seconds from
  // the start of its cycle (to the end of its binding, when scheduled).
  void attempt(const std::string& profile, const std::string& result, double seconds);
  // A scheduled pod, after `attempts` attempts.
  void scheduled_after(int attempts);
  // A scheduled pod, `seconds` after it first entered activeQ (the scheduling SLI).
  void scheduled_since_queued(int attempts, double seconds);
  // A preemption nominated a node, evicting `victims` pods.
  void preemption(std::size_t victims);
  // The queue's counts: pods per queue now, and the cumulative (queue, event) -> pods entered.
  void set_queue(const std::map<std::string, std::size_t>& pending,
                 const std::map<std::pair<std::string, std::string>, std::uint64_t>& incoming);
  void set_leader(const std::string& lease_name, bool leading);
  void plugin_loaded(const std::string& plugin, const std::string& library,
                     const std::string& version, const std::string& abi, const std::string& sha256);
  // schedhost_config_reloads_total{result}: `serve --watch-config` checked a changed
  // configuration, "success" (re-executed on it) or "failure" (refused); count 0 shows the series.
  void config_reload(const std::string& result, std::uint64_t count = 1);

  void extension_point(const std::string& profile, std::string_view point_label,
                       schedhost_code_t code, double seconds) override;
  void plugin_execution(const std::string& plugin, std::string_view point_label,
                        schedhost_code_t code, double seconds) override;
  void plugin_fault(const std::string& plugin, framework::PluginFault fault) override;
  // scheduler_batch_attempts_total and scheduler_batch_cache_flushed_total (opportunistic
  // batching).
  void batch_attempt(const std::string& profile, std::string_view result) override;
  void batch_flushed(const std::string& profile, std::string_view reason) override;

  // The text exposition of every family. Thread-safe.
  std::string scrape();

 private:
  void update_process_metrics();

  std::mutex mutex_;
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>& attempts_;
  prometheus::Family<prometheus::Histogram>& attempt_duration_;
  prometheus::Family<prometheus::Gauge>& pending_;
  prometheus::Family<prometheus::Counter>& incoming_;
  prometheus::Counter& preemption_attempts_;
  prometheus::Histogram& preemption_victims_;
  prometheus::Histogram& pod_attempts_;
  prometheus::Family<prometheus::Histogram>& sli_duration_;
  prometheus::Family<prometheus::Histogram>& extension_point_duration_;
  prometheus::Family<prometheus::Histogram>& plugin_duration_;
  prometheus::Family<prometheus::Counter>& plugin_faults_;
  prometheus::Family<prometheus::Counter>& batch_attempts_;
  prometheus::Family<prometheus::Counter>& batch_flushes_;
  // plugin_execution runs for every node and plugin of a sampled cycle, on every Filter and Score
  // thread: each thread remembers the series it used last (plugin_execution's cache, keyed by
  // this object's id_); a miss looks the series up under a shared lock, and creates it (once)
  // under the exclusive one. The series count without a lock; scrape() flushes them.
  static std::uint64_t new_id();
  const std::uint64_t id_ = new_id();
  std::shared_mutex plugin_series_mutex_;
  std::map<std::tuple<std::string, std::string, schedhost_code_t>,
           std::unique_ptr<PluginDurationSeries>, SeriesKeyLess>
      plugin_series_;
  prometheus::Family<prometheus::Gauge>& leader_;
  prometheus::Family<prometheus::Gauge>& plugins_;
  prometheus::Counter& cpu_seconds_;
  prometheus::Gauge& resident_bytes_;
  prometheus::Gauge& virtual_bytes_;
  prometheus::Gauge& open_fds_;
  prometheus::Gauge& max_fds_;
  prometheus::Gauge& start_time_;
  std::map<std::pair<std::string, std::string>, std::uint64_t> incoming_seen_;
  // Under mutex_: the series of the calls made for every pod, found by their label values
  // (Family::Add builds, hashes and compares a label map on each call).
  struct AttemptSeries {
    prometheus::Counter* count;
    prometheus::Histogram* duration;
  };
  std::map<std::tuple<std::string, std::string>, AttemptSeries, SeriesKeyLess> attempt_series_;
  std::map<std::tuple<std::string, std::string, schedhost_code_t>, prometheus::Histogram*,
           SeriesKeyLess>
      extension_point_series_;
  double cpu_seen_ = 0;
};

}  // namespace schedhost::serving
