// simdjson's on-demand read of a pod watch event, in a file of its own compiled for AVX2 (the
// on-demand API is built for the compiler's target): pod_event_decode_bench.cpp registers it
// only where the CPU has AVX2.
#pragma once

#include <benchmark/benchmark.h>

#include <string>

namespace schedhost_bench {

// Reads line on demand for what a scheduler's Pod takes from it (type; name, namespace, uid,
// resourceVersion, labels; nodeName, schedulerName, priority, each container's requests and
// ports, tolerations; phase) and the object's raw text, once per iteration.
void pod_event_on_demand(benchmark::State& st, const std::string& line);

}  // namespace schedhost_bench
