// The live benchmark's table: one row per workload and scheduler, and under each workload run by
// both schedulers the ratio schedhost / kube-scheduler of every figure. Markdown, so the same
// text reads in a terminal and goes into docs/benchmarks.md.
#pragma once

#include <ostream>

#include <nlohmann/json.hpp>

namespace schedhost_live_bench {

// rows: as run_live() returns them, or {workload, scheduler, error} for a run that failed.
void print_live_table(std::ostream& out, const nlohmann::json& rows);

// What each column means, under the table.
void print_live_notes(std::ostream& out);

}  // namespace schedhost_live_bench
