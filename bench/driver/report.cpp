#include "report.hpp"

#include <cstdio>
#include <string>

namespace schedhost_bench {
namespace {

std::string fixed(const nlohmann::json& v, int decimals) {
  if (!v.is_number()) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v.get<double>());
  return buf;
}

std::string cell(const std::string& s, int width) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "%*s", width, s.c_str());
  return buf;
}

}  // namespace

void print_header(std::ostream& out) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-38s %6s %6s %6s %9s %8s %8s %8s %9s %9s %9s %8s %6s %10s\n",
                "workload", "nodes", "init", "meas", "pods/s", "win_p50", "win_p90", "win_p99",
                "lat_p50us", "lat_p99us", "cpu_us/pod", "rss_MiB", "eval", "calls/pod");
  out << buf;
}

void print_row(std::ostream& out, const nlohmann::json& row) {
  char name[64];
  std::snprintf(name, sizeof name, "%-38s", row.value("name", "?").c_str());
  out << name;
  if (row.contains("error")) {
    out << " error: " << row["error"].get<std::string>() << "\n";
    return;
  }
  out << ' ' << cell(std::to_string(row["nodes"].get<long>()), 6) << ' '
      << cell(std::to_string(row["init_pods"].get<long>()), 6) << ' '
      << cell(std::to_string(row["measured_pods"].get<long>()), 6) << ' '
      << cell(fixed(row["pods_per_s"], 0), 9) << ' ' << cell(fixed(row["window_p50"], 0), 8) << ' '
      << cell(fixed(row["window_p90"], 0), 8) << ' ' << cell(fixed(row["window_p99"], 0), 8) << ' '
      << cell(fixed(row["latency_p50_us"], 0), 9) << ' ' << cell(fixed(row["latency_p99_us"], 0), 9)
      << ' ' << cell(fixed(row["cpu_us_per_pod"], 0), 9) << ' '
      << cell(fixed(row["peak_rss_mib"], 0), 8) << ' '
      << cell(std::to_string(row["nodes_to_find"].get<long>()), 6) << ' '
      << cell(fixed(row["plugin_calls_per_pod"], 0), 10) << "\n";
  out.flush();
}

void print_notes(std::ostream& out, const nlohmann::json& rows) {
  out << "\npods/s: measured pods / (start of run_scheduler to the last measured pod bound), the "
         "setup included; win_*: pods per full 1 s window (\"-\": the run took under 1 s, only "
         "the average is meaningful); lat: time between consecutive bindings; cpu_us/pod: CPU time "
         "of all threads during the run "
         "/ measured pods (less sensitive to a loaded machine than the wall-clock figures); eval: "
         "numFeasibleNodesToFind (nodes Filter must pass per pod); calls/pod: plugin hook "
         "invocations "
         "during the run (every extension point but QueueSort's comparisons) / measured pods.\n";
  for (const auto& row : rows) {
    if (row.contains("error")) continue;
    const std::string name = row["name"];
    if (row["scheduled"].get<long>() != row["measured_pods"].get<long>() ||
        row["init_placed"].get<long>() != row["init_pods"].get<long>()) {
      out << name << ": scheduled " << row["scheduled"] << " of " << row["measured_pods"]
          << " measured pods, placed " << row["init_placed"] << " of " << row["init_pods"]
          << " init pods\n";
    }
    if (!row["timing_ok"].get<bool>())
      out << name << ": per-pod times unavailable (a pod was placed and then preempted)\n";
    if (row.contains("file")) {
      const auto& f = row["file"];
      out << name << ": as a " << fixed(f["file_mib"], 1) << " MiB YAML file, parse "
          << fixed(f["parse_s"], 2)
          << " s in-process (as JSON: " << fixed(f.value("json_parse_s", nlohmann::json()), 2)
          << " s)";
      if (f.contains("dir")) out << ", files kept in " << f["dir"].get<std::string>();
      out << "\n";
      if (f.contains("whole_process")) {
        out << "\nWhole process, file to output (`schedhost run --cluster FILE -o json`, median of "
               "3 runs):\n"
            << "workload                                 file          MiB   wall s   pods/s    "
               "CPU s  RSS MiB  exit\n";
        for (const auto& p : f["whole_process"]) {
          out << cell(name, 40) << ' ' << cell(p["file"].get<std::string>(), 12) << ' '
              << cell(fixed(p["file_mib"], 1), 5) << ' ' << cell(fixed(p["wall_s"], 2), 8) << ' '
              << cell(fixed(p["pods_per_s"], 0), 8) << ' ' << cell(fixed(p["cpu_s"], 2), 8) << ' '
              << cell(fixed(p["max_rss_mib"], 0), 8) << ' ' << p["exit"] << "\n";
        }
      }
      out << "\n";
    }
  }
}

}  // namespace schedhost_bench
