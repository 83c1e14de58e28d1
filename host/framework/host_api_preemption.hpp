// The preemption functions of the host API table (random, parallel_for, dry runs, victims,
// PodDisruptionBudgets, the extenders' say on the candidates).
#pragma once

#include <schedhost/abi.h>

namespace schedhost::framework {

// Sets random, parallel_for, every dry_run_* function, add_victim, pdb_count, pdb_json and
// process_preemption.
void fill_preemption_functions(schedhost_host_api_t& table);

}  // namespace schedhost::framework
