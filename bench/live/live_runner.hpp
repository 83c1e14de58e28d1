// One run of the live benchmark: a fresh etcd and API server, one workload, one scheduler (or
// the bind-only baseline), and what it cost, as one row of the results.
#pragma once

#include <chrono>
#include <cstddef>
#include <ostream>

#include <nlohmann/json.hpp>

#include "live/control_plane.hpp"
#include "live_workloads.hpp"
#include "scheduler_process.hpp"

namespace schedhost_live_bench {

struct RunSettings {
  std::size_t connections = 8;  // the generator's API connections (and as many binders)
  // A run fails when no pod has been bound (or found unschedulable) for this long.
  std::chrono::seconds stall_limit{120};
  // When set, `perf record -g` follows the scheduler over the measured window into
  // <perf_dir>/<workload>-<scheduler>.perf.data (the window's CPU figures then include perf's
  // sampling overhead).
  std::string perf_dir;
};

// Runs w with the scheduler kind on a control plane of binaries; progress lines go to progress.
// Throws std::runtime_error (with the scheduler's last log lines) when the run fails.
nlohmann::json run_live(const LiveWorkload& w, SchedulerKind kind,
                        const schedhost::testing::ControlPlaneBinaries& binaries,
                        const RunSettings& settings, std::ostream& progress);

}  // namespace schedhost_live_bench
