#include "validator/heap_usage.hpp"

#include <malloc.h>

// Present when a sanitizer runtime is linked in: its allocator replaces glibc's, which then sees
// nothing.
extern "C" std::size_t __sanitizer_get_current_allocated_bytes() __attribute__((weak));

namespace schedhost::validator {

std::size_t heap_in_use() {
  if (&__sanitizer_get_current_allocated_bytes != nullptr) {
    return __sanitizer_get_current_allocated_bytes();
  }
  const struct mallinfo2 info = ::mallinfo2();
  return info.uordblks + info.hblkhd;
}

}  // namespace schedhost::validator
