// How many bytes the process's malloc heap has handed out and not got back: jemalloc's
// stats.allocated where jemalloc is the allocator (bin/schedhost), the sanitizer's count under a
// sanitizer, else glibc's mallinfo2 summed over every arena. The validator compares it across
// repeated scheduling cycles to find memory a plugin allocates per cycle and never frees.
#pragma once

#include <cstddef>

namespace schedhost::validator {

std::size_t heap_in_use();

}  // namespace schedhost::validator
