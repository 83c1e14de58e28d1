// The driver's output: one table row per workload on stdout, and the results file.
#pragma once

#include <ostream>

#include <nlohmann/json.hpp>

namespace schedhost_bench {

void print_header(std::ostream& out);
// row: as run_workload() returns it, or {"name", "error"} for a workload that failed.
void print_row(std::ostream& out, const nlohmann::json& row);
// Notes under the table: sub-second runs, file runs.
void print_notes(std::ostream& out, const nlohmann::json& rows);

}  // namespace schedhost_bench
