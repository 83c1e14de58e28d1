// Version stamps for pods and NodeInfos.
#pragma once

#include <cstdint>

namespace schedhost::cluster {

// A process-wide, strictly increasing stamp (first value 1). One counter for every object, like
// upstream's nextGeneration(), so a stamp never repeats even when a node is rebuilt under the same
// name and plugins may cache by (name, generation).
uint64_t next_generation();

}  // namespace schedhost::cluster
