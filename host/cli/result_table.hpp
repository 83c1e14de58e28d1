// `schedhost run -o table`: the human view of the run result.
#pragma once

#include <ostream>

#include "scheduler/run_result.hpp"

namespace schedhost::cli {

// One row per pod (POD PROFILE RESULT NODE MESSAGE; an empty profile or node shows as <none>),
// then a blank line and "scheduled: N, unschedulable: N, skipped: N, errors: N". A pod with an
// explanation is followed by its nodes, indented: NODE, FILTER (the verdict's code), one column
// per Score plugin with its normalized score and TOTAL (the weighted sum) when any node was
// scored ("-" for a node that was not), and REASON: "Plugin: reason; reason".
void write_table(const scheduler::RunResult& result, std::ostream& out);

}  // namespace schedhost::cli
