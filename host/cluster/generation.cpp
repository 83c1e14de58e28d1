#include "cluster/generation.hpp"

#include <atomic>

namespace schedhost::cluster {

uint64_t next_generation() {
  static std::atomic<uint64_t> counter{0};
  return counter.fetch_add(1, std::memory_order_relaxed) + 1;
}

}  // namespace schedhost::cluster
