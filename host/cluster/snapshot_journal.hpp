// SnapshotJournal: every pod placed on or removed from a snapshot since it was taken (or since its
// nodes last changed, see restart()), in order. A plugin that keeps data derived from the
// snapshot across scheduling cycles (per-domain pod counts, say) replays the entries it has not
// seen instead of recounting the whole cluster.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "cluster/pod.hpp"

namespace schedhost::cluster {

class SnapshotJournal {
 public:
  struct Change {
    std::shared_ptr<const Pod> pod;  // kept alive here, so a removed pod's handle stays valid
    size_t node_index;               // position of the node in the snapshot
    int32_t delta;                   // +1 placed, -1 removed
  };

  SnapshotJournal() : id_(next_id()) {}
  // A copy is a new timeline: its own id, no changes yet (revision 0 is the state it starts with).
  SnapshotJournal(const SnapshotJournal&) : id_(next_id()) {}
  SnapshotJournal& operator=(const SnapshotJournal& other) {
    if (this != &other) {
      id_ = next_id();
      changes_.clear();
    }
    return *this;
  }
  SnapshotJournal(SnapshotJournal&&) noexcept = default;
  SnapshotJournal& operator=(SnapshotJournal&&) noexcept = default;
  ~SnapshotJournal() = default;

  // Unique among the snapshots of this process (never 0).
  uint64_t id() const { return id_; }
  // How many changes were recorded; change k is at(k).
  uint64_t revision() const { return changes_.size(); }
  const Change& at(uint64_t k) const { return changes_[k]; }

  void record(std::shared_ptr<const Pod> pod, size_t node_index, int32_t delta) {
    changes_.push_back({std::move(pod), node_index, delta});
  }

  // A new timeline, as a copy starts one: a new id and no changes. For a change that entries
  // cannot express (a node added, updated or removed moves positions and labels), so every
  // plugin drops what it kept under the old id and recounts.
  void restart() {
    id_ = next_id();
    changes_.clear();
  }

 private:
  static uint64_t next_id();

  uint64_t id_;
  std::vector<Change> changes_;
};

}  // namespace schedhost::cluster
