#include "workload_runner.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cluster/cluster.hpp"
#include "cluster/cluster_file.hpp"
#include "config/config_parser.hpp"
#include "config/profile_resolver.hpp"
#include "framework/hook_activity.hpp"
#include "loader/plugin_directories.hpp"
#include "loader/plugin_registry.hpp"
#include "scheduler/feasible_nodes.hpp"
#include "scheduler/run_result.hpp"
#include "scheduler/scheduler.hpp"

#include "cluster_yaml.hpp"
#include "machine.hpp"
#include "throughput.hpp"

extern char** environ;

namespace schedhost_bench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using schedhost::cluster::Cluster;
using schedhost::cluster::Node;
using schedhost::cluster::Pod;

// The default profile: upstream's default plugins, as `schedhost run` uses them without a profile.
constexpr const char* kDefaultConfig =
    "apiVersion: kubescheduler.config.k8s.io/v1\n"
    "kind: KubeSchedulerConfiguration\n";
// configs/batching-profile.yaml: the default profile that may batch.
constexpr const char* kBatchingConfig =
    "apiVersion: kubescheduler.config.k8s.io/v1\n"
    "kind: KubeSchedulerConfiguration\n"
    "profiles:\n"
    "- schedulerName: default-scheduler\n"
    "  pluginConfig:\n"
    "  - name: PodTopologySpread\n"
    "    args: {defaultingType: List}\n";

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string pod_name(const char* prefix, std::size_t i) {
  return prefix + std::to_string(i);
}

// The init pods' templates, one entry per pod, in creation order.
std::vector<PodKind> init_kinds(const Workload& w) {
  std::vector<PodKind> kinds;
  kinds.reserve(w.init_count());
  for (const PodGroup& g : w.init)
    kinds.insert(kinds.end(), g.count, g.kind);
  return kinds;
}

nlohmann::json init_pod_json(const std::vector<PodKind>& kinds, std::size_t i,
                             const std::string& node) {
  nlohmann::json pod = make_pod(kinds[i], pod_name("init-", i), "sched-0");
  if (!node.empty()) pod["spec"]["nodeName"] = node;
  return pod;
}

nlohmann::json measured_pod_json(const Workload& w, std::size_t i) {
  return make_pod(w.measured.kind, pod_name("pod-", i), "sched-1");
}

// Where each init pod runs: scheduled by the scheduler (untimed), or round-robin. "" when the
// scheduler could not place it.
std::vector<std::string> place_init_pods(const Workload& w, const std::vector<PodKind>& kinds,
                                         const schedhost::config::SchedulerConfiguration& config,
                                         const schedhost::loader::PluginRegistry& registry,
                                         const Cluster& nodes_only) {
  std::vector<std::string> placement(kinds.size());
  if (w.place_init_round_robin) {
    for (std::size_t i = 0; i < kinds.size(); ++i)
      placement[i] = "node-" + std::to_string(i % w.nodes);
    return placement;
  }
  Cluster c = nodes_only;
  for (std::size_t i = 0; i < kinds.size(); ++i)
    c.pending_pods.push_back(std::make_shared<const Pod>(init_pod_json(kinds, i, "")));
  const schedhost::scheduler::RunResult r =
      schedhost::scheduler::run_scheduler(config, registry, c, {});
  std::map<std::string, std::string> node_of;
  for (const auto& p : r.pods) {
    if (p.result == schedhost::scheduler::kScheduled) node_of[p.pod] = p.node;
  }
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    auto it = node_of.find("sched-0/" + pod_name("init-", i));
    if (it != node_of.end()) placement[i] = it->second;
  }
  return placement;
}

// Completion times of the measured pods that were scheduled, from the snapshot-change callback
// times. A binding reports its result and then changes the snapshot; an eviction changes the
// snapshot and then reports the victim: each Scheduled or Preempted entry owns one change, in
// order. Returns nullopt when the counts disagree (a pod placed and then preempted in the run).
std::optional<std::vector<double>> completion_times(const schedhost::scheduler::RunResult& r,
                                                    const std::vector<double>& changes) {
  std::vector<double> out;
  std::size_t next = 0;
  for (const auto& p : r.pods) {
    const bool scheduled = p.result == schedhost::scheduler::kScheduled;
    if (!scheduled && p.result != schedhost::scheduler::kPreempted) continue;
    if (next >= changes.size()) return std::nullopt;
    const double t = changes[next++];
    if (scheduled) out.push_back(t);
  }
  if (next != changes.size()) return std::nullopt;
  return out;
}

// What one run of a program cost: wall time, CPU time of all its threads, peak RSS.
struct ProgramRun {
  int exit = -1;  // the exit status; -1 when it could not start or died of a signal
  double wall_s = 0;
  double cpu_s = 0;
  double max_rss_mib = 0;
};

// Runs argv with stdout and stderr to files.
ProgramRun run_program(const std::vector<std::string>& args, const fs::path& out,
                       const fs::path& err) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> argv;
  for (const std::string& a : args)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ProgramRun run;
  const auto start = Clock::now();
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return run;
  int status = 0;
  struct rusage usage {};
  wait4(pid, &status, 0, &usage);
  run.wall_s = seconds_since(start);
  const auto tv = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  run.cpu_s = tv(usage.ru_utime) + tv(usage.ru_stime);
  run.max_rss_mib = static_cast<double>(usage.ru_maxrss) / 1024.0;  // KiB
  run.exit = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

// The whole process as a user runs it (reading the file, loading the plugins, scheduling,
// printing -o json, exiting), a few times: the median run's figures. Five, not three: on a
// shared 2-core machine three runs of one second moved the median by a third from one call to
// the next. The peak RSS is not the child's alone: posix_spawn lends it this process's memory
// until exec, and Linux keeps that high-water mark (docs/benchmarks.md).
constexpr int kWholeProcessRuns = 5;

nlohmann::json time_whole_process(const fs::path& program, const fs::path& dir,
                                  const fs::path& config_file, const fs::path& cluster_file,
                                  std::size_t measured) {
  std::vector<ProgramRun> runs;
  for (int i = 0; i < kWholeProcessRuns; ++i) {
    runs.push_back(run_program(
        {program.string(), "run", "--config", config_file.string(), "--cluster",
         cluster_file.string(), "--plugin-dir", (dir / "no-plugins").string(), "-o", "json"},
        dir / "out.json", dir / "err.txt"));
  }
  std::vector<double> walls;
  for (const ProgramRun& r : runs)
    walls.push_back(r.wall_s);
  std::sort(runs.begin(), runs.end(),
            [](const ProgramRun& a, const ProgramRun& b) { return a.wall_s < b.wall_s; });
  const ProgramRun& median = runs[runs.size() / 2];
  return {{"file", cluster_file.filename().string()},
          {"file_mib", static_cast<double>(fs::file_size(cluster_file)) / (1024.0 * 1024)},
          {"runs_wall_s", walls},
          {"wall_s", median.wall_s},
          {"pods_per_s", static_cast<double>(measured) / median.wall_s},
          {"cpu_s", median.cpu_s},
          {"max_rss_mib", median.max_rss_mib},
          {"exit", median.exit}};
}

// The cluster as files a user would hand `schedhost run`: the multi-document YAML `kubectl get
// -o yaml` prints and a JSON List (one object per line); the parse alone, in-process; and the
// whole `schedhost run -o json` process on each.
nlohmann::json time_file_run(const Workload& w, const std::vector<PodKind>& kinds,
                             const std::vector<std::string>& placement, bool keep_files) {
  const fs::path dir = fs::temp_directory_path() / ("schedhost-bench-" + std::to_string(getpid()));
  fs::create_directories(dir / "no-plugins");
  const fs::path yaml_file = dir / "cluster.yaml";
  const fs::path json_file = dir / "cluster.json";
  const fs::path config_file = dir / "config.yaml";
  std::ofstream(config_file) << kDefaultConfig;
  {
    std::vector<nlohmann::json> objects;
    objects.reserve(w.nodes + kinds.size() + w.measured.count);
    for (std::size_t i = 0; i < w.nodes; ++i)
      objects.push_back(make_node(i, w.zones));
    for (std::size_t i = 0; i < kinds.size(); ++i)
      objects.push_back(init_pod_json(kinds, i, placement[i]));
    for (std::size_t i = 0; i < w.measured.count; ++i)
      objects.push_back(measured_pod_json(w, i));
    std::vector<const nlohmann::json*> pointers;
    for (const auto& o : objects)
      pointers.push_back(&o);
    write_cluster_yaml(yaml_file, pointers);
    std::ofstream json(json_file);
    json << "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [\n";
    for (std::size_t i = 0; i < objects.size(); ++i)
      json << objects[i].dump() << (i + 1 < objects.size() ? ",\n" : "\n");
    json << "]}\n";
  }
  nlohmann::json out;
  out["file_mib"] = static_cast<double>(fs::file_size(yaml_file)) / (1024.0 * 1024);
  const auto parse_start = Clock::now();
  { const Cluster parsed = schedhost::cluster::load_cluster(yaml_file); }
  out["parse_s"] = seconds_since(parse_start);
  const auto json_parse_start = Clock::now();
  { const Cluster parsed = schedhost::cluster::load_cluster(json_file); }
  out["json_parse_s"] = seconds_since(json_parse_start);

  const fs::path program = fs::read_symlink("/proc/self/exe").parent_path() / "schedhost";
  if (fs::exists(program)) {
    out["whole_process"] = nlohmann::json::array();
    for (const fs::path& file : {json_file, yaml_file}) {
      out["whole_process"].push_back(
          time_whole_process(program, dir, config_file, file, w.measured.count));
    }
    // The figures of the older single YAML run, for scripts/bench-compare.
    out["file_run_s"] = out["whole_process"][1]["wall_s"];
    out["file_run_exit"] = out["whole_process"][1]["exit"];
  }
  if (keep_files)
    out["dir"] = dir.string();
  else
    fs::remove_all(dir);
  return out;
}

}  // namespace

nlohmann::json run_workload(const Workload& w, const RunnerSettings& settings) {
  schedhost::loader::PluginRegistry registry;
  registry.load_directories({{schedhost::loader::builtin_plugin_directory(), true, true}});
  if (!registry.failures().empty()) {
    throw std::runtime_error(registry.failures().front().path + ": " +
                             registry.failures().front().message);
  }
  const schedhost::config::Resolution resolution = schedhost::config::resolve_profiles(
      schedhost::config::parse_configuration(w.batching_profile ? kBatchingConfig : kDefaultConfig,
                                             "bench-config.yaml"),
      registry.catalog());
  const auto& config = resolution.configuration;

  Cluster nodes_only;
  nodes_only.nodes.reserve(w.nodes);
  for (std::size_t i = 0; i < w.nodes; ++i)
    nodes_only.nodes.push_back(std::make_shared<const Node>(make_node(i, w.zones)));

  const std::vector<PodKind> kinds = init_kinds(w);
  const auto init_start = Clock::now();
  const std::vector<std::string> placement =
      place_init_pods(w, kinds, config, registry, nodes_only);
  const double init_s = seconds_since(init_start);

  Cluster cluster = nodes_only;
  std::size_t init_placed = 0;
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    if (placement[i].empty()) continue;  // upstream would leave it pending; it is left out here
    cluster.running_pods.push_back(
        std::make_shared<const Pod>(init_pod_json(kinds, i, placement[i])));
    ++init_placed;
  }
  for (std::size_t i = 0; i < w.measured.count; ++i)
    cluster.pending_pods.push_back(std::make_shared<const Pod>(measured_pod_json(w, i)));

  // The timed run. The callback only reads the clock, so it costs the run ~20 ns per change.
  std::vector<double> changes;
  changes.reserve(w.measured.count * 5);
  Clock::time_point start;
  schedhost::scheduler::RunOptions options;
  options.feature_gates.opportunistic_batching = w.batching_gate;
  options.on_snapshot_change = [&changes, &start](const schedhost::cluster::Snapshot&) {
    changes.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  };
  const double cpu_before = cpu_seconds();
  const std::uint64_t calls_before = schedhost::framework::HookActivity::total_calls();
  start = Clock::now();
  const schedhost::scheduler::RunResult result =
      schedhost::scheduler::run_scheduler(config, registry, cluster, options);
  const double run_s = seconds_since(start);
  const double run_cpu_s = cpu_seconds() - cpu_before;
  const std::uint64_t calls = schedhost::framework::HookActivity::total_calls() - calls_before;
  const double rss = peak_rss_mib();

  const auto summary = result.summary();
  const std::optional<std::vector<double>> completions = completion_times(result, changes);
  const Throughput t = completions ? compute_throughput(*completions) : Throughput{};
  const int percentage = config.percentage_of_nodes_to_score.value_or(0);

  nlohmann::json row = {
      {"name", w.name},
      {"nodes", w.nodes},
      {"init_pods", w.init_count()},
      {"init_placed", init_placed},
      {"init_placement", w.place_init_round_robin ? "round-robin" : "scheduler"},
      {"measured_pods", w.measured.count},
      {"measured_template", kind_name(w.measured.kind)},
      {"scheduled", summary.scheduled},
      {"unschedulable", summary.unschedulable},
      {"errors", summary.errors},
      {"init_s", init_s},
      {"run_s", run_s},
      // CPU time of every thread: less sensitive than wall time to other load on the machine.
      {"run_cpu_s", run_cpu_s},
      {"cpu_us_per_pod", w.measured.count > 0 ? run_cpu_s * 1e6 / w.measured.count : 0.0},
      // Every hook invocation (QueueSort's comparisons aside) / measured pods.
      {"plugin_calls", calls},
      {"plugin_calls_per_pod",
       w.measured.count > 0 ? static_cast<double>(calls) / static_cast<double>(w.measured.count)
                            : 0.0},
      {"pods_per_s", t.average},
      {"windows", t.windows},
      {"window_p50", t.p50 ? nlohmann::json(*t.p50) : nlohmann::json()},
      {"window_p90", t.p90 ? nlohmann::json(*t.p90) : nlohmann::json()},
      {"window_p99", t.p99 ? nlohmann::json(*t.p99) : nlohmann::json()},
      {"latency_p50_us", t.latency_p50_us},
      {"latency_p99_us", t.latency_p99_us},
      {"first_pod_ms", t.first_pod_ms},
      {"peak_rss_mib", rss},
      {"nodes_to_find", schedhost::scheduler::num_feasible_nodes_to_find(percentage, w.nodes)},
      {"parallelism", config.parallelism},
      {"timing_ok", completions.has_value()},
  };
  if (w.file_run && settings.file_run)
    row["file"] = time_file_run(w, kinds, placement, settings.keep_files);
  return row;
}

}  // namespace schedhost_bench
