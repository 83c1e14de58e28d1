#include "serving/scheduler_metrics.hpp"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <prometheus/text_serializer.h>

#include <array>
#include <atomic>
#include <chrono>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

#include "framework/plugin_metrics.hpp"
#include "framework/status.hpp"

namespace schedhost::serving {
namespace {

using prometheus::BuildCounter;
using prometheus::BuildGauge;
using prometheus::BuildHistogram;

// Upstream's help texts carry the metric's stability level first.
std::string stable(const std::string& help) {
  return "[STABLE] " + help;
}
std::string beta(const std::string& help) {
  return "[BETA] " + help;
}
std::string alpha(const std::string& help) {
  return "[ALPHA] " + help;
}

// Upstream's ExponentialBuckets: start, then each the previous times factor (so the bounds are
// the same float products Go prints).
prometheus::Histogram::BucketBoundaries exponential_buckets(double start, double factor,
                                                            std::size_t count) {
  prometheus::Histogram::BucketBoundaries b;
  for (double v = start; b.size() < count; v *= factor)
    b.push_back(v);
  return b;
}

// scheduler_plugin_execution_duration_seconds: upstream's 10 µs times 1.5, 20 bounds.
const prometheus::Histogram::BucketBoundaries& plugin_duration_buckets() {
  static const auto buckets = exponential_buckets(0.00001, 1.5, 20);
  return buckets;
}

// Upstream's attempts label of the SLI: "1" to "14", then "15+".
std::string attempts_label(int attempts) {
  return attempts >= 15 ? "15+" : std::to_string(attempts);
}

double process_start_seconds() {
  // Field 22 of /proc/self/stat: start time in clock ticks after boot; btime of /proc/stat.
  std::ifstream stat("/proc/self/stat");
  std::string content((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto close = content.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(content.substr(close + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 22) ticks = std::stod(field);
  }
  std::ifstream proc_stat("/proc/stat");
  double boot = 0;
  for (std::string line; std::getline(proc_stat, line);) {
    if (line.rfind("btime ", 0) == 0) boot = std::stod(line.substr(6));
  }
  return boot + ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

}  // namespace

SchedulerMetrics::SchedulerMetrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      attempts_(BuildCounter()
                    .Name("scheduler_schedule_attempts_total")
                    .Help(stable("Number of attempts to schedule pods, by the result. "
                                 "'unschedulable' means a pod could not be scheduled, while "
                                 "'error' means an internal scheduler problem."))
                    .Register(*registry_)),
      attempt_duration_(BuildHistogram()
                            .Name("scheduler_scheduling_attempt_duration_seconds")
                            .Help(stable("Scheduling attempt latency in seconds (scheduling "
                                         "algorithm + binding)"))
                            .Register(*registry_)),
      pending_(BuildGauge()
                   .Name("scheduler_pending_pods")
                   .Help(stable("Number of pending pods, by the queue type. 'active' means number "
                                "of pods in activeQ; 'backoff' means number of pods in backoffQ; "
                                "'unschedulable' means number of pods in unschedulablePods that "
                                "the scheduler attempted to schedule and failed; 'gated' is the "
                                "number of unschedulable pods that the scheduler never attempted "
                                "to schedule because they are gated."))
                   .Register(*registry_)),
      incoming_(BuildCounter()
                    .Name("scheduler_queue_incoming_pods_total")
                    .Help(stable("Number of pods added to scheduling queues by event and queue "
                                 "type."))
                    .Register(*registry_)),
      preemption_attempts_(BuildCounter()
                               .Name("scheduler_preemption_attempts_total")
                               .Help(stable("Total preemption attempts in the cluster till now"))
                               .Register(*registry_)
                               .Add({})),
      preemption_victims_(
          BuildHistogram()
              .Name("scheduler_preemption_victims")
              .Help(stable("Number of selected preemption victims"))
              .Register(*registry_)
              .Add({}, prometheus::Histogram::BucketBoundaries{1, 2, 4, 8, 16, 32, 64})),
      pod_attempts_(BuildHistogram()
                        .Name("scheduler_pod_scheduling_attempts")
                        .Help(stable("Number of attempts to successfully schedule a pod."))
                        .Register(*registry_)
                        .Add({}, prometheus::Histogram::BucketBoundaries{1, 2, 4, 8, 16})),
      sli_duration_(BuildHistogram()
                        .Name("scheduler_pod_scheduling_sli_duration_seconds")
                        .Help(beta("E2e latency for a pod being scheduled, from the time the pod "
                                   "enters the scheduling queue and might involve multiple "
                                   "scheduling attempts."))
                        .Register(*registry_)),
      extension_point_duration_(
          BuildHistogram()
              .Name("scheduler_framework_extension_point_duration_seconds")
              .Help(stable("Latency for running all plugins of a specific extension point."))
              .Register(*registry_)),
      plugin_duration_(
          BuildHistogram()
              .Name("scheduler_plugin_execution_duration_seconds")
              .Help(alpha("Duration for running a plugin at a specific extension point."))
              .Register(*registry_)),
      plugin_faults_(BuildCounter()
                         .Name("schedhost_plugin_faults_total")
                         .Help("Plugin calls that broke the ABI's rules, by plugin and kind: "
                               "bad_code (a status code the ABI does not define), bad_score (a "
                               "score outside 0..100 after NormalizeScore), bad_node_list "
                               "(NormalizeScore changed the node list), exception (a C++ hook "
                               "threw). The pod concerned failed with an Error; schedhost went "
                               "on.")
                         .Register(*registry_)),
      batch_attempts_(BuildCounter()
                          .Name("scheduler_batch_attempts_total")
                          .Help(alpha("Counts of results when we attempt to use batching."))
                          .Register(*registry_)),
      batch_flushes_(BuildCounter()
                         .Name("scheduler_batch_cache_flushed_total")
                         .Help(alpha("Counts of cache flushes by reason."))
                         .Register(*registry_)),
      leader_(BuildGauge()
                  .Name("leader_election_master_status")
                  .Help(alpha("Gauge of if the reporting system is master of the relevant lease, "
                              "0 indicates backup, 1 indicates master. 'name' is the string used "
                              "to identify the lease. Please make sure to group by name."))
                  .Register(*registry_)),
      plugins_(BuildGauge()
                   .Name("schedhost_plugins_loaded")
                   .Help("Plugins schedhost loaded, one series each (value 1), with their "
                         "library, its version, the ABI it was built for and the sha256 of its "
                         "file.")
                   .Register(*registry_)),
      cpu_seconds_(BuildCounter()
                       .Name("process_cpu_seconds_total")
                       .Help("Total user and system CPU time spent in seconds.")
                       .Register(*registry_)
                       .Add({})),
      resident_bytes_(BuildGauge()
                          .Name("process_resident_memory_bytes")
                          .Help("Resident memory size in bytes.")
                          .Register(*registry_)
                          .Add({})),
      virtual_bytes_(BuildGauge()
                         .Name("process_virtual_memory_bytes")
                         .Help("Virtual memory size in bytes.")
                         .Register(*registry_)
                         .Add({})),
      open_fds_(BuildGauge()
                    .Name("process_open_fds")
                    .Help("Number of open file descriptors.")
                    .Register(*registry_)
                    .Add({})),
      max_fds_(BuildGauge()
                   .Name("process_max_fds")
                   .Help("Maximum number of open file descriptors.")
                   .Register(*registry_)
                   .Add({})),
      start_time_(BuildGauge()
                      .Name("process_start_time_seconds")
                      .Help("Start time of the process since unix epoch in seconds.")
                      .Register(*registry_)
                      .Add({})) {
  // As upstream: the four queues appear at 0 from the start.
  for (const char* queue : {"active", "backoff", "unschedulable", "gated"}) {
    pending_.Add({{"queue", queue}});
  }
  start_time_.Set(process_start_seconds());
}

void SchedulerMetrics::attempt(const std::string& profile, const std::string& result,
                               double seconds) {
  // Upstream's buckets: 1 ms doubling 15 times, to 16.384 s.
  static const auto kBuckets = exponential_buckets(0.001, 2, 15);
  std::lock_guard lock(mutex_);
  auto it =
      attempt_series_.find(std::make_tuple(std::string_view(profile), std::string_view(result)));
  if (it == attempt_series_.end()) {
    const AttemptSeries series{
        &attempts_.Add({{"profile", profile}, {"result", result}}),
        &attempt_duration_.Add({{"profile", profile}, {"result", result}}, kBuckets)};
    it = attempt_series_.emplace(std::make_tuple(profile, result), series).first;
  }
  it->second.count->Increment();
  it->second.duration->Observe(seconds);
}

void SchedulerMetrics::scheduled_after(int attempts) {
  std::lock_guard lock(mutex_);
  pod_attempts_.Observe(attempts);
}

void SchedulerMetrics::scheduled_since_queued(int attempts, double seconds) {
  static const auto kBuckets = exponential_buckets(0.01, 2, 20);
  std::lock_guard lock(mutex_);
  sli_duration_.Add({{"attempts", attempts_label(attempts)}}, kBuckets).Observe(seconds);
}

void SchedulerMetrics::extension_point(const std::string& profile, std::string_view point_label,
                                       schedhost_code_t code, double seconds) {
  static const auto kBuckets = exponential_buckets(0.0001, 2, 12);
  std::lock_guard lock(mutex_);
  auto it =
      extension_point_series_.find(std::make_tuple(std::string_view(profile), point_label, code));
  if (it == extension_point_series_.end()) {
    prometheus::Histogram* series =
        &extension_point_duration_.Add({{"extension_point", std::string(point_label)},
                                        {"profile", profile},
                                        {"status", std::string(framework::code_name(code))}},
                                       kBuckets);
    it = extension_point_series_
             .emplace(std::make_tuple(profile, std::string(point_label), code), series)
             .first;
  }
  it->second->Observe(seconds);
}

std::uint64_t SchedulerMetrics::new_id() {
  static std::atomic<std::uint64_t> last{0};
  return ++last;
}

void SchedulerMetrics::plugin_execution(const std::string& plugin, std::string_view point_label,
                                        schedhost_code_t code, double seconds) {
  // A small direct-mapped cache per thread: a sampled cycle records hundreds of calls per pod,
  // mostly the same few (plugin, point, code) in turn. An entry names the metrics object by its
  // id, never reused, so one destroyed cannot be mistaken for a new one at the same address. The
  // slot is chosen by the names' addresses (the framework passes the same strings each time);
  // the entry is checked by their contents.
  struct Cached {
    std::uint64_t owner = 0;
    std::string plugin;
    std::string point;
    schedhost_code_t code{};
    PluginDurationSeries* series = nullptr;
  };
  thread_local std::array<Cached, 64> cache;
  const auto address = [](std::string_view s) {
    return reinterpret_cast<std::uintptr_t>(s.data());
  };
  Cached& slot =
      cache[(address(plugin) / 8 ^ address(point_label) / 8 * 31 ^ static_cast<std::size_t>(code)) %
            cache.size()];
  if (slot.owner == id_ && slot.code == code && slot.point == point_label &&
      slot.plugin == plugin) {
    slot.series->observe(seconds);
    return;
  }
  const auto key = std::make_tuple(std::string_view(plugin), point_label, code);
  {
    std::shared_lock lock(plugin_series_mutex_);
    if (auto it = plugin_series_.find(key); it != plugin_series_.end()) {
      slot = {id_, plugin, std::string(point_label), code, it->second.get()};
      it->second->observe(seconds);
      return;
    }
  }
  prometheus::Histogram* exported = nullptr;
  {
    std::lock_guard lock(mutex_);  // Family::Add beside a scrape's Collect
    exported = &plugin_duration_.Add({{"extension_point", std::string(point_label)},
                                      {"plugin", plugin},
                                      {"status", std::string(framework::code_name(code))}},
                                     plugin_duration_buckets());
  }
  std::unique_lock lock(plugin_series_mutex_);
  auto [it, added] = plugin_series_.emplace(
      std::make_tuple(plugin, std::string(point_label), code),
      std::make_unique<PluginDurationSeries>(*exported, plugin_duration_buckets()));
  slot = {id_, plugin, std::string(point_label), code, it->second.get()};
  it->second->observe(seconds);
}

void SchedulerMetrics::plugin_fault(const std::string& plugin, framework::PluginFault fault) {
  std::lock_guard lock(mutex_);
  plugin_faults_.Add({{"plugin", plugin}, {"kind", std::string(framework::to_string(fault))}})
      .Increment();
}

void SchedulerMetrics::batch_attempt(const std::string& profile, std::string_view result) {
  std::lock_guard lock(mutex_);
  batch_attempts_.Add({{"profile", profile}, {"result", std::string(result)}}).Increment();
}

void SchedulerMetrics::batch_flushed(const std::string& profile, std::string_view reason) {
  std::lock_guard lock(mutex_);
  batch_flushes_.Add({{"profile", profile}, {"reason", std::string(reason)}}).Increment();
}

void SchedulerMetrics::preemption(std::size_t victims) {
  std::lock_guard lock(mutex_);
  preemption_attempts_.Increment();
  preemption_victims_.Observe(static_cast<double>(victims));
}

void SchedulerMetrics::set_queue(
    const std::map<std::string, std::size_t>& pending,
    const std::map<std::pair<std::string, std::string>, std::uint64_t>& incoming) {
  std::lock_guard lock(mutex_);
  for (const auto& [queue, count] : pending) {
    pending_.Add({{"queue", queue}}).Set(static_cast<double>(count));
  }
  // The queue counts since it started; a counter only grows by what is new.
  for (const auto& [key, total] : incoming) {
    std::uint64_t& seen = incoming_seen_[key];
    if (total > seen) {
      incoming_.Add({{"queue", key.first}, {"event", key.second}})
          .Increment(static_cast<double>(total - seen));
      seen = total;
    }
  }
}

void SchedulerMetrics::set_leader(const std::string& lease_name, bool leading) {
  std::lock_guard lock(mutex_);
  leader_.Add({{"name", lease_name}}).Set(leading ? 1 : 0);
}

void SchedulerMetrics::plugin_loaded(const std::string& plugin, const std::string& library,
                                     const std::string& version, const std::string& abi,
                                     const std::string& sha256) {
  std::lock_guard lock(mutex_);
  plugins_
      .Add({{"plugin", plugin},
            {"library", library},
            {"version", version},
            {"abi", abi},
            {"sha256", sha256}})
      .Set(1);
}

void SchedulerMetrics::config_reload(const std::string& result, std::uint64_t count) {
  std::lock_guard lock(mutex_);
  // Registered on first use (the registry returns the same family after that): only serve
  // --watch-config has it.
  BuildCounter()
      .Name("schedhost_config_reloads_total")
      .Help(
          "Configuration changes serve --watch-config checked, by result: success (it "
          "re-executed on them) or failure (refused, still serving the previous set).")
      .Register(*registry_)
      .Add({{"result", result}})
      .Increment(static_cast<double>(count));
}

void SchedulerMetrics::update_process_metrics() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) == 0) {
    const double cpu = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                       static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    if (cpu > cpu_seen_) {
      cpu_seconds_.Increment(cpu - cpu_seen_);
      cpu_seen_ = cpu;
    }
  }
  std::ifstream statm("/proc/self/statm");
  double pages_virtual = 0;
  double pages_resident = 0;
  if (statm >> pages_virtual >> pages_resident) {
    const auto page = static_cast<double>(sysconf(_SC_PAGESIZE));
    virtual_bytes_.Set(pages_virtual * page);
    resident_bytes_.Set(pages_resident * page);
  }
  int fds = 0;
  if (DIR* d = opendir("/proc/self/fd")) {
    while (const dirent* e = readdir(d)) {
      if (e->d_name[0] != '.') ++fds;
    }
    closedir(d);
    open_fds_.Set(fds - 1);  // not the one opendir used
  }
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0) max_fds_.Set(static_cast<double>(limit.rlim_cur));
}

std::string SchedulerMetrics::scrape() {
  std::lock_guard lock(mutex_);
  update_process_metrics();
  {
    std::shared_lock series_lock(plugin_series_mutex_);
    for (const auto& [key, series] : plugin_series_)
      series->flush();
  }
  std::vector<prometheus::MetricFamily> families = registry_->Collect();
  // The plugins' own metrics (ABI 1.9) live in the process's PluginMetrics, not in this registry.
  std::vector<prometheus::MetricFamily> plugin_families =
      framework::PluginMetrics::instance().collect();
  families.insert(families.end(), std::make_move_iterator(plugin_families.begin()),
                  std::make_move_iterator(plugin_families.end()));
  return prometheus::TextSerializer().Serialize(families);
}

}  // namespace schedhost::serving
