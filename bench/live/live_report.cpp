#include "live_report.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace schedhost_live_bench {
namespace {

using nlohmann::json;

// One figure of a row: its header and where it is in the row.
struct Column {
  const char* header;
  std::function<json(const json& row)> value;
  int decimals;
};

const std::vector<Column>& columns() {
  static const std::vector<Column> all = {
      {"pods/s", [](const json& r) { return r["pods_per_s"]; }, 0},
      {"thr avg", [](const json& r) { return r["throughput"]["average"]; }, 0},
      {"thr p50", [](const json& r) { return r["throughput"]["p50"]; }, 0},
      {"thr p90", [](const json& r) { return r["throughput"]["p90"]; }, 0},
      {"thr p99", [](const json& r) { return r["throughput"]["p99"]; }, 0},
      {"lat p50 ms", [](const json& r) { return r["latency_p50_ms"]; }, 0},
      {"lat p99 ms", [](const json& r) { return r["latency_p99_ms"]; }, 0},
      {"sched CPU s", [](const json& r) { return r["scheduler_cpu_s"]; }, 2},
      {"CPU ms/pod", [](const json& r) { return r["scheduler_cpu_ms_per_pod"]; }, 2},
      {"RSS MiB", [](const json& r) { return r["scheduler_peak_rss_mib"]; }, 0},
      {"apiserver CPU s", [](const json& r) { return r["apiserver_cpu_s"]; }, 2},
      {"req/pod", [](const json& r) { return r["requests_per_pod"]; }, 2},
      {"req/unsched pod",
       [](const json& r) { return r.value("requests_per_unschedulable_pod", json()); }, 2},
  };
  return all;
}

std::string fixed(const json& v, int decimals) {
  if (!v.is_number()) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v.get<double>());
  return buf;
}

const json* find_row(const json& rows, const std::string& workload, const char* scheduler) {
  for (const json& r : rows) {
    if (r.value("workload", "") == workload && r.value("scheduler", "") == scheduler &&
        !r.contains("error")) {
      return &r;
    }
  }
  return nullptr;
}

void print_ratio(std::ostream& out, const std::string& workload, const json& ours,
                 const json& theirs) {
  out << "| " << workload << " | **schedhost ÷ kube-scheduler** |";
  for (const Column& c : columns()) {
    const json a = c.value(ours);
    const json b = c.value(theirs);
    if (a.is_number() && b.is_number() && b.get<double>() != 0) {
      out << " " << fixed(a.get<double>() / b.get<double>(), 2) << " |";
    } else {
      out << " - |";
    }
  }
  out << "\n";
}

}  // namespace

void print_live_table(std::ostream& out, const json& rows) {
  out << "| workload | scheduler |";
  for (const Column& c : columns())
    out << " " << c.header << " |";
  out << "\n|---|---|";
  for (std::size_t i = 0; i < columns().size(); ++i)
    out << "---|";
  out << "\n";
  std::string previous;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const json& r = rows[i];
    const std::string workload = r.value("workload", "?");
    out << "| " << workload << " | " << r.value("scheduler", "?") << " |";
    if (r.contains("error")) {
      std::string first_line = r["error"].get<std::string>();
      first_line = first_line.substr(0, first_line.find('\n'));
      out << " error: " << first_line << " |\n";
    } else {
      for (const Column& c : columns())
        out << " " << fixed(c.value(r), c.decimals) << " |";
      out << "\n";
    }
    const bool last_of_workload =
        i + 1 == rows.size() || rows[i + 1].value("workload", "") != workload;
    if (!last_of_workload) continue;
    const json* ours = find_row(rows, workload, "schedhost");
    const json* theirs = find_row(rows, workload, "kube-scheduler");
    if (ours != nullptr && theirs != nullptr) print_ratio(out, workload, *ours, *theirs);
  }
}

json median_rows(const json& runs) {
  // The figures the table shows, as JSON pointers into a row.
  static const char* const kFigures[] = {"/pods_per_s",
                                         "/throughput/average",
                                         "/throughput/p50",
                                         "/throughput/p90",
                                         "/throughput/p99",
                                         "/latency_p50_ms",
                                         "/latency_p99_ms",
                                         "/scheduler_cpu_s",
                                         "/scheduler_cpu_ms_per_pod",
                                         "/scheduler_peak_rss_mib",
                                         "/apiserver_cpu_s",
                                         "/requests_per_pod",
                                         "/requests_per_unschedulable_pod"};
  json out = json::array();
  std::vector<std::pair<std::string, std::string>> seen;
  for (const json& first : runs) {
    const std::pair<std::string, std::string> key{first.value("workload", ""),
                                                  first.value("scheduler", "")};
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    std::vector<const json*> ok;
    for (const json& r : runs) {
      if (r.value("workload", "") == key.first && r.value("scheduler", "") == key.second &&
          !r.contains("error")) {
        ok.push_back(&r);
      }
    }
    if (ok.empty()) {
      out.push_back(first);
      continue;
    }
    json row = *ok.front();
    row["runs"] = ok.size();
    for (const char* figure : kFigures) {
      const json::json_pointer at(figure);
      std::vector<double> values;
      for (const json* r : ok) {
        if (r->contains(at) && (*r)[at].is_number()) values.push_back((*r)[at].get<double>());
      }
      if (values.empty()) continue;
      std::sort(values.begin(), values.end());
      const std::size_t n = values.size();
      row[at] = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
    }
    out.push_back(std::move(row));
  }
  return out;
}

void print_live_notes(std::ostream& out) {
  out << "\npods/s: measured pods / the window (from the first create of a measured pod, or the "
         "scheduler's start for /PreCreated, or the first node added for UnschedulableBurst, to "
         "the last binding the generator's watch saw). thr: pods bound per full 1 s window from "
         "the first binding (scheduler_perf's SchedulingThroughput; \"-\": under 1 s). lat: from "
         "the later of a pod's create and the window's start to its binding, as the watch saw it. "
         "sched CPU s, apiserver CPU s: user + system time in the window (/proc/<pid>/stat); "
         "RSS: the scheduler's VmHWM. req/pod: apiserver_request_total from the window's start "
         "until the server has been quiet for 1 s after the last binding, less the generator's "
         "and its watch's own requests, / measured pods (for bind-only: its bindings). req/unsched "
         "pod (UnschedulableBurst): the same from the first create of the pods that fit nowhere "
         "until each is marked unschedulable and the server is quiet. The ratio row divides "
         "schedhost's figure by "
         "kube-scheduler's: above 1 is better for pods/s and thr, worse for the others.\n";
}

}  // namespace schedhost_live_bench
