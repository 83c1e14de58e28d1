#include "live_runner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "driver/machine.hpp"
#include "driver/throughput.hpp"
#include "load_generator.hpp"
#include "pod_watch.hpp"
#include "process_stats.hpp"

namespace schedhost_live_bench {

namespace testing = schedhost::testing;
using nlohmann::json;

namespace {

constexpr const char* kInitNamespace = "sched-0";
constexpr const char* kMeasuredNamespace = "sched-1";
// After the last binding requests still come (the Scheduled events are written after the
// binding, by one worker): a window closes once the server has answered nothing but the
// generator's own /metrics reads for kQuiet, or after kSettleLimit.
constexpr auto kQuiet = std::chrono::seconds(1);
constexpr auto kSettleLimit = std::chrono::seconds(60);

double seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

json number_or_null(double v) {
  return v < 0 || !std::isfinite(v) ? json(nullptr) : json(v);
}

// Progress lines, each with the time since the run began.
class RunLog {
 public:
  RunLog(std::ostream& out, std::string name) : out_(out), name_(std::move(name)) {}
  void line(const std::string& what) {
    char at[32];
    std::snprintf(at, sizeof at, "%7.1f s", seconds(Clock::now() - start_));
    out_ << "  [" << at << "] " << name_ << ": " << what << std::endl;
  }

 private:
  std::ostream& out_;
  std::string name_;
  Clock::time_point start_ = Clock::now();
};

// The CPU seconds of the processes that share the machine, at one moment.
struct CpuSample {
  double scheduler = 0;
  double apiserver = 0;
  double etcd = 0;
  double generator = 0;
};

CpuSample sample_cpu(pid_t scheduler, pid_t apiserver, pid_t etcd) {
  CpuSample s;
  s.scheduler = scheduler > 0 ? process_cpu_seconds(scheduler) : 0;
  s.apiserver = process_cpu_seconds(apiserver);
  s.etcd = process_cpu_seconds(etcd);
  s.generator = schedhost_bench::cpu_seconds();
  return s;
}

// Per-second samples, as scheduler_perf's SchedulingThroughput: pods bound in each full 1 s
// window from the first binding of the measured pods; a trailing partial window is left out.
json throughput_samples(const std::vector<double>& bound_since_first) {
  const double span = bound_since_first.empty() ? 0 : bound_since_first.back();
  const auto windows = static_cast<std::size_t>(std::floor(span));
  json out = {{"windows", windows}};
  if (windows == 0) {
    out["average"] = out["p50"] = out["p90"] = out["p99"] = nullptr;
    out["samples"] = json::array();
    return out;
  }
  std::vector<double> per_window(windows, 0.0);
  for (double t : bound_since_first) {
    const auto w = static_cast<std::size_t>(t);
    if (w < windows) per_window[w] += 1;
  }
  out["samples"] = per_window;
  double sum = 0;
  for (double c : per_window)
    sum += c;
  out["average"] = sum / static_cast<double>(windows);
  out["p50"] = schedhost_bench::percentile(per_window, 50);
  out["p90"] = schedhost_bench::percentile(per_window, 90);
  out["p99"] = schedhost_bench::percentile(per_window, 99);
  return out;
}

// The requests the server answered from one moment on, told apart by who made them.
class RequestWindow {
 public:
  RequestWindow(LoadGenerator& generator, const PodWatch& watch)
      : generator_(generator),
        watch_(watch),
        generator_before_(generator.requests() - generator.bindings()),
        watch_before_(watch.requests_made()),
        server_before_(generator.apiserver_requests()) {}

  // Waits until the server is quiet (see kQuiet), then closes the window.
  void close_when_quiet() {
    RequestCounts last = generator_.apiserver_requests();
    const Clock::time_point limit = Clock::now() + kSettleLimit;
    while (Clock::now() < limit) {
      std::this_thread::sleep_for(kQuiet);
      RequestCounts now = generator_.apiserver_requests();
      RequestCounts changed = difference(now, last);
      changed.erase("GET ");  // the /metrics reads (a non-resource URL)
      last = std::move(now);
      if (changed.empty()) break;
    }
    generator_after_ = generator_.requests() - generator_.bindings();
    watch_after_ = watch_.requests_made();
    server_after_ = std::move(last);
  }

  RequestCounts server_by_kind() const { return difference(server_after_, server_before_); }
  double server() const { return total(server_by_kind()); }
  double generator() const { return static_cast<double>(generator_after_ - generator_before_); }
  double watch() const { return watch_after_ - watch_before_; }
  // Everything but the generator's creates and reads and the watch's own requests: what the
  // scheduler (or the baseline's binders) caused.
  double scheduler() const { return server() - generator() - watch(); }

  json to_json() const {
    return {{"server", server()},
            {"generator", generator()},
            {"watch", watch()},
            {"scheduler", scheduler()},
            {"server_by_verb_and_resource", server_by_kind()}};
  }

 private:
  LoadGenerator& generator_;
  const PodWatch& watch_;
  std::uint64_t generator_before_, generator_after_ = 0;
  int watch_before_, watch_after_ = 0;
  RequestCounts server_before_, server_after_;
};

[[noreturn]] void fail(const std::string& what, SchedulerProcess* scheduler) {
  std::string message = what;
  if (scheduler != nullptr)
    message += "\nthe scheduler's last log lines:\n" + scheduler->log_tail();
  throw std::runtime_error(message);
}

}  // namespace

json run_live(const LiveWorkload& w, SchedulerKind kind,
              const testing::ControlPlaneBinaries& binaries, const RunSettings& settings,
              std::ostream& progress) {
  const bool bind_only = kind == SchedulerKind::kBindOnly;
  if (bind_only && w.arrival != Arrival::kWhileRunning) {
    throw std::runtime_error("the bind-only baseline is for pods created while it runs");
  }
  RunLog log(progress, w.name + " " + scheduler_name(kind));
  const Clock::time_point setup_start = Clock::now();

  testing::ControlPlane plane(binaries);
  const pid_t apiserver = find_child_process("kube-apiserver");
  const pid_t etcd = find_child_process("etcd");
  if (apiserver < 0 || etcd < 0) throw std::runtime_error("cannot find the API server's PID");
  log.line("etcd and " + binaries.version + " API server up");

  LoadGenerator generator(plane.admin_config(), settings.connections);
  generator.create_namespace(kInitNamespace);
  generator.create_namespace(kMeasuredNamespace);
  PodWatch watch(plane.admin_config());
  watch.start();
  const std::string config = write_scheduler_config(plane);

  if (w.arrival == Arrival::kUnschedulableBurst) {
    generator.create_nodes("small-node-", w.small_nodes, NodeSize::kTooSmall);
    log.line(std::to_string(w.small_nodes) + " nodes too small for any pod");
  } else {
    generator.create_nodes("node-", w.nodes, NodeSize::kDefault);
    log.line(std::to_string(w.nodes) + " nodes");
  }

  std::unique_ptr<SchedulerProcess> scheduler;
  int instances = 0;
  auto start_scheduler = [&] {
    scheduler = std::make_unique<SchedulerProcess>(kind, plane, config, ++instances);
  };
  if (!bind_only) start_scheduler();

  const std::size_t bind_to = bind_only ? w.nodes : 0;
  if (w.init > 0) {
    generator.create_pods(w.init_kind, kInitNamespace, "init-", w.init, bind_to);
    if (!watch.wait_bound(kInitNamespace, w.init, settings.stall_limit)) {
      fail(std::to_string(watch.bound_count(kInitNamespace)) + " of " + std::to_string(w.init) +
               " init pods bound, none more for " + std::to_string(settings.stall_limit.count()) +
               " s",
           scheduler.get());
    }
    log.line(std::to_string(w.init) + " init pods bound");
  }

  std::vector<Clock::time_point> sent;
  if (w.arrival == Arrival::kPreCreated) {
    scheduler->stop();
    scheduler.reset();
    sent = generator.create_pods(w.measured_kind, kMeasuredNamespace, "pod-", w.measured);
    log.line("scheduler stopped, " + std::to_string(w.measured) + " pods created");
  }
  std::optional<RequestWindow> unschedulable_requests;
  if (w.arrival == Arrival::kUnschedulableBurst) {
    // What finding a pod unschedulable costs: from the first create (once the scheduler's
    // start-up requests have been answered) until the server is quiet with every pod marked
    // unschedulable.
    RequestWindow(generator, watch).close_when_quiet();
    unschedulable_requests.emplace(generator, watch);
    sent = generator.create_pods(w.measured_kind, kMeasuredNamespace, "pod-", w.measured);
    if (!watch.wait_unschedulable(kMeasuredNamespace, w.measured, settings.stall_limit)) {
      fail("the scheduler did not find every pod unschedulable", scheduler.get());
    }
    unschedulable_requests->close_when_quiet();
    log.line(std::to_string(w.measured) + " pods found unschedulable");
  }
  const double setup_seconds = seconds(Clock::now() - setup_start);

  // The window opens once the set-up's requests (the init pods' events) have been answered.
  RequestWindow(generator, watch).close_when_quiet();
  RequestWindow requests(generator, watch);
  // For /PreCreated no scheduler runs yet: the one started below counts from zero.
  const CpuSample cpu_before = sample_cpu(scheduler ? scheduler->pid() : -1, apiserver, etcd);
  // For /PreCreated the scheduler starts inside the window: perf follows it from its start.
  std::unique_ptr<testing::ChildProcess> perf;
  auto start_perf = [&] {
    if (settings.perf_dir.empty() || !scheduler) return;
    std::string file = w.name + "-" + scheduler_name(kind) + ".perf.data";
    std::replace(file.begin(), file.end(), '/', '_');
    perf = std::make_unique<testing::ChildProcess>(
        // DWARF unwinding: the build keeps no frame pointers, so -g's call chains stop at
        // the first frame of our own code.
        std::vector<std::string>{"/usr/bin/env", "perf", "record", "--call-graph", "dwarf,8192",
                                 "-F", "999", "-p", std::to_string(scheduler->pid()), "-o",
                                 settings.perf_dir + "/" + file},
        settings.perf_dir + "/" + file + ".log");
  };
  start_perf();
  Clock::time_point window_start = Clock::now();
  switch (w.arrival) {
    case Arrival::kWhileRunning:
      log.line("creating " + std::to_string(w.measured) + " pods");
      sent =
          generator.create_pods(w.measured_kind, kMeasuredNamespace, "pod-", w.measured, bind_to);
      window_start = *std::min_element(sent.begin(), sent.end());
      break;
    case Arrival::kPreCreated:
      start_scheduler();
      start_perf();
      log.line("scheduler started");
      break;
    case Arrival::kUnschedulableBurst:
      generator.create_nodes("node-", w.nodes, NodeSize::kDefault);
      log.line(std::to_string(w.nodes) + " nodes added");
      break;
  }
  const bool all_bound = watch.wait_bound(kMeasuredNamespace, w.measured, settings.stall_limit);
  const pid_t scheduler_pid = scheduler ? scheduler->pid() : -1;
  const CpuSample cpu_after = sample_cpu(scheduler_pid, apiserver, etcd);
  if (perf) perf->stop();  // SIGTERM: perf writes its data and exits
  const double peak_rss = scheduler_pid > 0 ? process_peak_rss_mib(scheduler_pid) : -1;
  if (!all_bound) {
    fail(std::to_string(watch.bound_count(kMeasuredNamespace)) + " of " +
             std::to_string(w.measured) + " measured pods bound, none more for " +
             std::to_string(settings.stall_limit.count()) + " s",
         scheduler.get());
  }
  requests.close_when_quiet();
  if (scheduler && !scheduler->running()) fail("the scheduler exited", scheduler.get());
  log.line("all " + std::to_string(w.measured) + " pods bound");

  // Per pod: first seen bound, against the later of its create and the window's start.
  std::vector<double> bound_since_start;
  std::vector<double> latencies_ms;
  for (std::size_t i = 0; i < w.measured; ++i) {
    const auto bound = watch.bound_at(kMeasuredNamespace, "pod-" + std::to_string(i));
    if (!bound) fail("pod-" + std::to_string(i) + " has no binding time", scheduler.get());
    bound_since_start.push_back(seconds(*bound - window_start));
    latencies_ms.push_back(seconds(*bound - std::max(sent.at(i), window_start)) * 1e3);
  }
  std::sort(bound_since_start.begin(), bound_since_start.end());
  std::vector<double> bound_since_first;
  for (double t : bound_since_start)
    bound_since_first.push_back(t - bound_since_start.front());
  const double window = bound_since_start.back();
  const double measured = static_cast<double>(w.measured);

  const double scheduler_cpu = bind_only ? -1 : cpu_after.scheduler - cpu_before.scheduler;

  json row = {
      {"workload", w.name},
      {"scheduler", scheduler_name(kind)},
      {"arrival", arrival_name(w.arrival)},
      {"nodes", w.nodes},
      {"init_pods", w.init},
      {"measured_pods", w.measured},
      {"setup_s", setup_seconds},
      {"window_s", window},
      {"pods_per_s", measured / window},
      {"throughput", throughput_samples(bound_since_first)},
      {"latency_p50_ms", schedhost_bench::percentile(latencies_ms, 50)},
      {"latency_p99_ms", schedhost_bench::percentile(latencies_ms, 99)},
      {"scheduler_cpu_s", number_or_null(scheduler_cpu)},
      {"scheduler_cpu_ms_per_pod", number_or_null(bind_only ? -1 : scheduler_cpu / measured * 1e3)},
      {"scheduler_peak_rss_mib", number_or_null(peak_rss)},
      {"apiserver_cpu_s", cpu_after.apiserver - cpu_before.apiserver},
      {"etcd_cpu_s", cpu_after.etcd - cpu_before.etcd},
      {"generator_cpu_s", cpu_after.generator - cpu_before.generator},
      {"api_requests", requests.to_json()},
      {"requests_per_pod", requests.scheduler() / measured},
      {"connections", settings.connections}};
  if (unschedulable_requests) {
    row["unschedulable_api_requests"] = unschedulable_requests->to_json();
    row["requests_per_unschedulable_pod"] = unschedulable_requests->scheduler() / measured;
  }
  if (scheduler) {
    scheduler->stop();
    // schedhost's last words: what it bound and what its Event recorder wrote and dropped.
    const std::string tail = scheduler->log_tail();
    if (const auto at = tail.rfind("serve: stopped:"); at != std::string::npos)
      row["scheduler_summary"] = tail.substr(at, tail.find('\n', at) - at);
  }
  return row;
}

}  // namespace schedhost_live_bench
