#include "cluster/snapshot_journal.hpp"

#include <atomic>

namespace schedhost::cluster {

uint64_t SnapshotJournal::next_id() {
  static std::atomic<uint64_t> last{0};
  return last.fetch_add(1, std::memory_order_relaxed) + 1;
}

}  // namespace schedhost::cluster
