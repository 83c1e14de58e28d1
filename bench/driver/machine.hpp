// The machine a run happened on, for the results file: figures mean little without it.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace schedhost_bench {

// cores (nproc), CPU model, memory in GiB, the 1/5/15-minute load averages, kernel.
nlohmann::json describe_machine();

// CPU time (user + system, every thread) this process has used so far, in seconds.
double cpu_seconds();

// Peak resident set of this process, in MiB (getrusage).
double peak_rss_mib();

// The current UTC time in strftime's format (results files are named and dated with it).
std::string utc_now(const char* format);

}  // namespace schedhost_bench
