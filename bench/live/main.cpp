// schedhost-bench-live (`make bench-live`): scheduler_perf's workloads through the real etcd and
// API server of the live tests, scheduled once by `schedhost serve` and once by upstream's
// kube-scheduler, each on a fresh control plane with the same load generator; for some
// workloads also the generator binding pods itself, the ceiling the API server allows. One
// table on stdout (with the ratio schedhost / kube-scheduler), the rows in
// bench/results/live-<UTC date-time>.json.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "driver/machine.hpp"
#include "live/control_plane.hpp"
#include "live_options.hpp"
#include "live_report.hpp"
#include "live_runner.hpp"
#include "live_workloads.hpp"
#include "scheduler_process.hpp"

namespace {

namespace live = schedhost_live_bench;
namespace fs = std::filesystem;

bool wanted(const live::LiveWorkload& w, const live::LiveOptions& o) {
  if (o.workloads.empty()) return o.quick == w.quick;
  for (const std::string& name : o.workloads) {
    if (w.name.find(name) != std::string::npos) return true;
  }
  return false;
}

bool wanted(live::SchedulerKind kind, const live::LiveOptions& o) {
  if (o.schedulers.empty()) return true;
  for (const std::string& s : o.schedulers) {
    if (s == live::scheduler_name(kind)) return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  const live::LiveOptions options = live::parse_live_options(argc, argv);
  std::vector<live::LiveWorkload> workloads;
  for (live::LiveWorkload w : live::live_workloads()) {
    if (options.list) {
      std::cout << w.name << "  (" << live::arrival_name(w.arrival) << (w.quick ? "; quick" : "")
                << ")\n";
      continue;
    }
    if (!wanted(w, options)) continue;
    if (options.nodes) w.nodes = *options.nodes;
    if (options.init) w.init = *options.init;
    if (options.measured) w.measured = *options.measured;
    workloads.push_back(w);
  }
  if (options.list) return 0;
  if (workloads.empty()) {
    std::cerr << "error: no workload matches (see --list)\n";
    return 2;
  }

  std::string why;
  const auto binaries = schedhost::testing::find_control_plane(&why);
  if (!binaries) {
    std::cerr << "error: " << why << "\n";
    return 2;
  }
  const bool have_kube_scheduler = !binaries->scheduler.empty();
  nlohmann::json results = {{"date", schedhost_bench::utc_now("%Y-%m-%dT%H:%M:%SZ")},
                            {"machine", schedhost_bench::describe_machine()},
                            {"build_type", SCHEDHOST_BENCH_BUILD_TYPE},
                            {"command_line", nlohmann::json::array()},
                            {"control_plane",
                             {{"version", binaries->version},
                              {"source", binaries->source},
                              {"apiserver", binaries->apiserver},
                              {"etcd", binaries->etcd},
                              {"kube_scheduler", binaries->scheduler}}},
                            {"connections", options.connections},
                            {"rows", nlohmann::json::array()}};
  for (int i = 0; i < argc; ++i)
    results["command_line"].push_back(argv[i]);
  const nlohmann::json& machine = results["machine"];
  std::cout << "schedhost-bench-live: " << machine["cores"] << " cores, "
            << machine["cpu"].get<std::string>() << ", load " << machine["load_average"][0]
            << "\ncontrol plane: Kubernetes " << binaries->version << " from " << binaries->source
            << "\n";
  if (have_kube_scheduler) {
    std::cout << "kube-scheduler: " << binaries->scheduler << "\n";
  } else {
    std::cout << "kube-scheduler: none found beside the API server, in $KUBEBUILDER_ASSETS, "
                 "../shared/k8s/bin or on PATH: running schedhost alone\n";
  }
  std::cout.flush();

  live::RunSettings settings;
  settings.connections = options.connections;
  settings.stall_limit = std::chrono::seconds(options.stall_seconds);
  settings.perf_dir = options.perf_dir;
  if (!options.perf_dir.empty()) fs::create_directories(options.perf_dir);
  nlohmann::json runs = nlohmann::json::array();
  for (const live::LiveWorkload& w : workloads) {
    std::vector<live::SchedulerKind> kinds = {live::SchedulerKind::kSchedhost};
    if (have_kube_scheduler) kinds.push_back(live::SchedulerKind::kKubeScheduler);
    if (w.bind_only_baseline) kinds.push_back(live::SchedulerKind::kBindOnly);
    for (std::size_t round = 1; round <= options.repeat; ++round) {
      std::vector<live::SchedulerKind> order = kinds;
      if (round % 2 == 0) std::reverse(order.begin(), order.end());
      for (const live::SchedulerKind kind : order) {
        if (!wanted(kind, options)) continue;
        nlohmann::json row;
        try {
          row = live::run_live(w, kind, *binaries, settings, std::cerr);
        } catch (const std::exception& e) {
          std::cerr << w.name << " " << live::scheduler_name(kind) << ": " << e.what() << "\n";
          row = {
              {"workload", w.name}, {"scheduler", live::scheduler_name(kind)}, {"error", e.what()}};
        }
        row["round"] = round;
        runs.push_back(std::move(row));
      }
    }
  }
  // One row per workload and scheduler: the run itself, or the medians of its rounds.
  results["rows"] = options.repeat > 1 ? live::median_rows(runs) : runs;
  if (options.repeat > 1) results["runs"] = runs;
  results["machine_after"] = {
      {"load_average", schedhost_bench::describe_machine()["load_average"]}};

  std::cout << "\n";
  if (options.repeat > 1) {
    std::cout << "Each row: the median of " << options.repeat
              << " rounds (the schedulers in turn, in reverse every other round).\n\n";
  }
  live::print_live_table(std::cout, results["rows"]);
  live::print_live_notes(std::cout);
  const fs::path out = options.out.empty()
                           ? fs::path(SCHEDHOST_BENCH_RESULTS_DIR) /
                                 ("live-" + schedhost_bench::utc_now("%Y-%m-%dT%H%M%SZ") + ".json")
                           : fs::path(options.out);
  if (out.has_parent_path()) fs::create_directories(out.parent_path());
  std::ofstream(out) << results.dump(2) << "\n";
  std::cout << "results: " << out.string() << "\n";
  for (const auto& row : runs) {
    if (row.contains("error")) return 1;
  }
  return 0;
}
