// The metric functions of the host API table (ABI 1.9): a plugin finds the id of a metric it
// declared, and records to it from any thread.
#pragma once

#include <schedhost/abi.h>

namespace schedhost::framework {

// Sets metric_id and metric_record. Once, while the table is built.
void fill_metric_functions(schedhost_host_api_t& table);

}  // namespace schedhost::framework
