// The live benchmark's table: one row per workload and scheduler, and under each workload run by
// both schedulers the ratio schedhost / kube-scheduler of every figure. Markdown, so the same
// text reads in a terminal and goes into docs/benchmarks.md.
#pragma once

#include <ostream>

#include <nlohmann/json.hpp>

namespace schedhost_live_bench {

// rows: as run_live() returns them, or {workload, scheduler, error} for a run that failed.
void print_live_table(std::ostream& out, const nlohmann::json& rows);

// One row per workload and scheduler from several runs of each (rows as run_live() returns
// them, in run order): each figure of the table is the median of the runs that did not fail,
// and "runs" counts them. A pair whose runs all failed keeps its first error.
nlohmann::json median_rows(const nlohmann::json& runs);

// What each column means, under the table.
void print_live_notes(std::ostream& out);

}  // namespace schedhost_live_bench
