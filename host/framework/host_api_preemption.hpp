// The preemption functions of the host API table (random, parallel_for, dry runs, victims,
// PodDisruptionBudgets).
#pragma once

#include <schedhost/abi.h>

namespace schedhost::framework {

// Sets random, parallel_for, every dry_run_* function, add_victim, pdb_count and pdb_json.
void fill_preemption_functions(schedhost_host_api_t& table);

}  // namespace schedhost::framework
