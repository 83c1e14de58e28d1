// One workload, start to finish, in the calling process: generate the cluster, schedule the
// init pods, time the measured pods through run_scheduler, and optionally time `schedhost run`
// on the same cluster written as a file.
#pragma once

#include <nlohmann/json.hpp>

#include "workloads.hpp"

namespace schedhost_bench {

struct RunnerSettings {
  bool file_run = true;     // time `schedhost run` when the workload asks for it
  bool keep_files = false;  // leave the cluster and config files in place, and say where
};

// The workload's row of the results file (see report.hpp for the fields). Throws on a setup
// failure (plugins missing, configuration refused).
nlohmann::json run_workload(const Workload& workload, const RunnerSettings& settings);

}  // namespace schedhost_bench
