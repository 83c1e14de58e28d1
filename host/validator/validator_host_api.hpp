// The host API table the validator gives plugins: the framework's table, with the cycle-state
// functions pointed at AuditedState so that every value a plugin stores is accounted for.
#pragma once

#include <schedhost/abi.h>

namespace schedhost::validator {

const schedhost_host_api_t* validator_host_api();

}  // namespace schedhost::validator
