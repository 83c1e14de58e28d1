// The host API table the validator gives plugins: the framework's table, with the cycle-state
// functions pointed at AuditedState so that every value a plugin stores is accounted for, and
// record_event (ABI 1.9) checked as the host checks it and tallied, so that an Event the host
// would refuse is reported instead of silently lost.
#pragma once

#include <schedhost/abi.h>

#include <cstddef>
#include <string>

namespace schedhost::validator {

const schedhost_host_api_t* validator_host_api();

// What the plugin's record_event calls came to (one plugin is checked per process).
struct EventTally {
  std::size_t recorded = 0;
  std::size_t refused = 0;
  std::string first_refusal;  // why the first refused one was
};
EventTally event_tally();
// Starts the tally again, for the next plugin of the library.
void reset_event_tally();

}  // namespace schedhost::validator
