// schedhost/kept_cache.hpp - data a plugin keeps from one scheduling cycle to the next.
//
// Counting over the whole cluster in every PreFilter is what makes spreading and affinity slow.
// With ABI 1.2 a plugin can count once, keep the result, and on later pods replay only the
// snapshot's changes (Context::snapshot_version, Context::for_each_change). KeptCache holds such
// results: a few values by signature (a string of everything the value depends on), each valid
// for one snapshot id. The value records the revision it is up to date with.
//
//   schedhost::KeptCache<Counts> cache_;
//   const auto now = ctx.snapshot_version();
//   std::shared_ptr<Counts> counts = cache_.find(signature, now.id);
//   if (counts == nullptr) {
//     counts = count_everything(ctx);      // counts->revision = now.revision
//     cache_.keep(signature, now.id, counts);
//   } else {
//     ctx.for_each_change(counts->revision, now.revision, ...);  // then counts->revision = now
//   }
//
// find and keep may be called from any thread; a value found is the caller's to update while
// it runs a [cycle] hook (one at a time per plugin instance).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedhost {

template <class T>
class KeptCache {
 public:
  explicit KeptCache(std::size_t capacity = 16) : capacity_(std::max<std::size_t>(capacity, 1)) {}

  // The value kept under this signature for snapshot id, or nullptr. Always nullptr for id 0 (a
  // host without a snapshot journal: nothing can be brought up to date there).
  std::shared_ptr<T> find(std::string_view signature, std::uint64_t snapshot_id) {
    if (snapshot_id == 0) return nullptr;
    const std::lock_guard<std::mutex> lock(mutex_);
    for (Entry& e : entries_) {
      if (e.snapshot_id == snapshot_id && e.signature == signature) {
        e.last_used = ++tick_;
        return e.value;
      }
    }
    return nullptr;
  }

  // Keeps value under signature for snapshot id, replacing what was kept under that signature
  // and dropping the least recently used value past the capacity. Does nothing for id 0.
  void keep(std::string signature, std::uint64_t snapshot_id, std::shared_ptr<T> value) {
    if (snapshot_id == 0 || value == nullptr) return;
    const std::lock_guard<std::mutex> lock(mutex_);
    entries_.erase(std::remove_if(entries_.begin(), entries_.end(),
                                  [&](const Entry& e) { return e.signature == signature; }),
                   entries_.end());
    if (entries_.size() >= capacity_) {
      entries_.erase(std::min_element(
          entries_.begin(), entries_.end(),
          [](const Entry& a, const Entry& b) { return a.last_used < b.last_used; }));
    }
    entries_.push_back(Entry{std::move(signature), snapshot_id, ++tick_, std::move(value)});
  }

  std::size_t size() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return entries_.size();
  }

 private:
  struct Entry {
    std::string signature;
    std::uint64_t snapshot_id;
    std::uint64_t last_used;
    std::shared_ptr<T> value;
  };

  std::size_t capacity_;
  mutable std::mutex mutex_;
  std::uint64_t tick_ = 0;
  std::vector<Entry> entries_;
};

}  // namespace schedhost
