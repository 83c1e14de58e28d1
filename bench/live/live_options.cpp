#include "live_options.hpp"

#include <cstdlib>
#include <iostream>
#include <string_view>

namespace schedhost_live_bench {
namespace {

constexpr const char* kUsage =
    "usage: schedhost-bench-live [--quick] [--workload NAME]... [--scheduler "
    "schedhost|kube-scheduler|bind-only]... [--nodes N] [--init N] [--measured N] "
    "[--connections N] [--stall-seconds N] [--repeat N] [--out FILE] [--perf DIR] [--list] "
    "[--help]\n";

[[noreturn]] void usage_error(const std::string& problem) {
  std::cerr << "error: " << problem << "\n" << kUsage;
  std::exit(2);
}

std::size_t count_value(std::string_view flag, const char* value) {
  char* end = nullptr;
  const unsigned long long n = std::strtoull(value, &end, 10);
  if (end == value || *end != '\0')
    usage_error(std::string(flag) + " wants a number, got " + value);
  return static_cast<std::size_t>(n);
}

}  // namespace

LiveOptions parse_live_options(int argc, char** argv) {
  LiveOptions o;
  if (const char* q = std::getenv("QUICK"); q != nullptr && std::string_view(q) == "1")
    o.quick = true;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage_error(std::string(a) + " needs a value");
      return argv[++i];
    };
    if (a == "--perf") {
      o.perf_dir = value();
    } else if (a == "--quick") {
      o.quick = true;
    } else if (a == "--workload") {
      o.workloads.emplace_back(value());
    } else if (a == "--scheduler") {
      const std::string s = value();
      if (s != "schedhost" && s != "kube-scheduler" && s != "bind-only")
        usage_error("--scheduler is schedhost, kube-scheduler or bind-only, not " + s);
      o.schedulers.push_back(s);
    } else if (a == "--nodes") {
      o.nodes = count_value(a, value());
    } else if (a == "--init") {
      o.init = count_value(a, value());
    } else if (a == "--measured") {
      o.measured = count_value(a, value());
    } else if (a == "--connections") {
      o.connections = count_value(a, value());
      if (o.connections == 0) usage_error("--connections must be at least 1");
    } else if (a == "--stall-seconds") {
      o.stall_seconds = count_value(a, value());
    } else if (a == "--repeat") {
      o.repeat = count_value(a, value());
      if (o.repeat == 0) usage_error("--repeat must be at least 1");
    } else if (a == "--out") {
      o.out = value();
    } else if (a == "--list") {
      o.list = true;
    } else if (a == "--help" || a == "-h") {
      std::cout << kUsage
                << "Runs scheduler_perf workloads through a real etcd and API server (a fresh one "
                   "per run), once with `schedhost serve`, once with kube-scheduler (when one is "
                   "found), and for some workloads with the generator binding pods itself; prints "
                   "one table and writes bench/results/live-<UTC date-time>.json. --quick: one "
                   "small SchedulingBasic workload. --workload picks the workloads whose name "
                   "contains NAME (see --list). --repeat N: N rounds of each workload, the "
                   "schedulers alternating, and the median of each figure in the table.\n";
      std::exit(0);
    } else {
      usage_error("unknown argument " + std::string(a));
    }
  }
  return o;
}

}  // namespace schedhost_live_bench
