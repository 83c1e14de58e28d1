// How many bytes the process's malloc heap has handed out and not got back (glibc mallinfo2,
// summed over every arena). The validator compares it across repeated scheduling cycles to find
// memory a plugin allocates per cycle and never frees. Under a sanitizer, whose allocator glibc
// does not see, it stays 0 and the check passes.
#pragma once

#include <cstddef>

namespace schedhost::validator {

std::size_t heap_in_use();

}  // namespace schedhost::validator
