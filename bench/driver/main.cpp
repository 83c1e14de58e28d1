// schedhost-bench: upstream scheduler_perf workloads through the real host, the real plugin .so
// files and the default profile. One table row per workload; the rows also go to a JSON results
// file (bench/results/<UTC date-time>.json by default) that scripts/bench-compare reads.
//
// Each workload runs in a child process, so its peak RSS is its own and one workload's heap
// does not slow the next.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "machine.hpp"
#include "options.hpp"
#include "report.hpp"
#include "workload_runner.hpp"
#include "workloads.hpp"

namespace {

using namespace schedhost_bench;
namespace fs = std::filesystem;

bool selected(const Workload& w, const Options& o) {
  if (o.only.empty()) return !o.quick || w.quick;
  for (const std::string& s : o.only) {
    if (w.name.find(s) != std::string::npos) return true;
  }
  return false;
}

// Runs the workload in a child; its row comes back through a pipe as JSON text.
nlohmann::json run_isolated(const Workload& w, const RunnerSettings& settings) {
  int fds[2];
  if (pipe(fds) != 0) return {{"name", w.name}, {"error", "pipe failed"}};
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    nlohmann::json row;
    try {
      row = run_workload(w, settings);
    } catch (const std::exception& e) {
      row = {{"name", w.name}, {"error", e.what()}};
    }
    const std::string text = row.dump();
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = write(fds[1], text.data() + done, text.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;)
    text.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  const auto row = nlohmann::json::parse(text, nullptr, false);
  if (row.is_discarded() || !row.is_object())
    return {{"name", w.name},
            {"error", "the workload's process died (status " + std::to_string(status) + ")"}};
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse_options(argc, argv);
  std::vector<Workload> workloads;
  for (Workload w : all_workloads()) {
    if (options.list) {
      std::cout << w.name << (w.quick ? "  (quick)" : "") << "\n";
      continue;
    }
    if (!selected(w, options)) continue;
    if (options.nodes) w.nodes = *options.nodes;
    if (options.measured) w.measured.count = *options.measured;
    if (options.init) {
      // The same total, shared evenly among the init groups.
      for (PodGroup& g : w.init)
        g.count = *options.init / w.init.size();
    }
    workloads.push_back(std::move(w));
  }
  if (options.list) return 0;
  if (workloads.empty()) {
    std::cerr << "error: no workload matches (see --list)\n";
    return 2;
  }

  const fs::path out = options.out.empty() ? fs::path(SCHEDHOST_BENCH_RESULTS_DIR) /
                                                 (utc_now("%Y-%m-%dT%H%M%SZ") + ".json")
                                           : fs::path(options.out);
  nlohmann::json results = {{"date", utc_now("%Y-%m-%dT%H:%M:%SZ")},
                            {"machine", describe_machine()},
                            {"build_type", SCHEDHOST_BENCH_BUILD_TYPE},
                            {"quick", options.quick},
                            {"workloads", nlohmann::json::array()}};
  const nlohmann::json& machine = results["machine"];
  std::cout << "schedhost-bench: " << machine["cores"] << " cores, "
            << machine["cpu"].get<std::string>() << ", load " << machine["load_average"][0] << "\n";
  print_header(std::cout);
  RunnerSettings settings;
  settings.file_run = options.file_run;
  settings.keep_files = options.keep_files;
  for (const Workload& w : workloads) {
    nlohmann::json row;
    if (options.fork) {
      row = run_isolated(w, settings);
    } else {
      try {
        row = run_workload(w, settings);
      } catch (const std::exception& e) {
        row = {{"name", w.name}, {"error", e.what()}};
      }
    }
    print_row(std::cout, row);
    results["workloads"].push_back(std::move(row));
  }
  print_notes(std::cout, results["workloads"]);
  results["machine_after"] = {{"load_average", describe_machine()["load_average"]}};

  if (out.has_parent_path()) fs::create_directories(out.parent_path());
  std::ofstream(out) << results.dump(2) << "\n";
  std::cout << "results: " << out.string() << "\n";
  bool failed = false;
  for (const auto& row : results["workloads"])
    failed = failed || row.contains("error");
  return failed ? 1 : 0;
}
