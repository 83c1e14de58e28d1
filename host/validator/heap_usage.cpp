#include "validator/heap_usage.hpp"

#include <malloc.h>

#include <cstdint>

// Present when a sanitizer runtime is linked in: its allocator replaces glibc's, which then sees
// nothing.
extern "C" std::size_t __sanitizer_get_current_allocated_bytes() __attribute__((weak));
// Present when jemalloc is (bin/schedhost links it): likewise.
extern "C" int mallctl(const char* name, void* oldp, std::size_t* oldlenp, void* newp,
                       std::size_t newlen) __attribute__((weak));

namespace schedhost::validator {

std::size_t heap_in_use() {
  if (&__sanitizer_get_current_allocated_bytes != nullptr) {
    return __sanitizer_get_current_allocated_bytes();
  }
  if (&mallctl != nullptr) {
    // Memory this thread freed waits in its cache, counted as allocated, and a leak drains the
    // cache in steps: flushing it first makes the count exact. The statistics are refreshed when
    // the epoch is written.
    mallctl("thread.tcache.flush", nullptr, nullptr, nullptr, 0);
    std::uint64_t epoch = 1;
    std::size_t length = sizeof epoch;
    mallctl("epoch", &epoch, &length, &epoch, length);
    std::size_t allocated = 0;
    length = sizeof allocated;
    if (mallctl("stats.allocated", &allocated, &length, nullptr, 0) == 0) return allocated;
  }
  const struct mallinfo2 info = ::mallinfo2();
  return info.uordblks + info.hblkhd;
}

}  // namespace schedhost::validator
