// schedhost-bench-live's command line.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace schedhost_live_bench {

struct LiveOptions {
  bool quick = false;                   // --quick, or QUICK=1 in the environment
  std::vector<std::string> workloads;   // --workload NAME (repeatable): names that contain NAME
  std::vector<std::string> schedulers;  // --scheduler schedhost|kube-scheduler|bind-only
  std::optional<std::size_t> nodes, init, measured;  // override the selected workloads' counts
  std::size_t connections = 8;                       // --connections N
  std::size_t stall_seconds = 120;                   // --stall-seconds N
  // --repeat N: each workload N rounds, the schedulers in turn (reversed every other round, so
  // a machine getting slower or faster favours none); the table shows each figure's median.
  std::size_t repeat = 1;
  std::string out;       // --out FILE; default bench/results/live-<UTC date-time>.json
  std::string perf_dir;  // --perf DIR: `perf record -g` on the scheduler over each window
  bool list = false;
};

// Exits with a usage line on a bad argument (status 2), or after --help (status 0).
LiveOptions parse_live_options(int argc, char** argv);

}  // namespace schedhost_live_bench
