// Labels, annotations and nodeSelector: string -> string, iterated in byte order of the keys.
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedhost::cluster {

// A sorted vector rather than a std::map: small, read far more often than built, and the ABI
// hands out entries by index.
class StringMap {
 public:
  using Entry = std::pair<std::string, std::string>;
  using const_iterator = std::vector<Entry>::const_iterator;

  StringMap() = default;
  // Sorts by key; when a key repeats, the last value wins (as in a JSON object).
  explicit StringMap(std::vector<Entry> entries) {
    std::stable_sort(entries.begin(), entries.end(),
                     [](const Entry& a, const Entry& b) { return a.first < b.first; });
    for (auto& entry : entries) {
      if (!entries_.empty() && entries_.back().first == entry.first) {
        entries_.back().second = std::move(entry.second);
      } else {
        entries_.push_back(std::move(entry));
      }
    }
  }

  StringMap(std::initializer_list<Entry> entries) : StringMap(std::vector<Entry>(entries)) {}

  // The value for key, or nullptr. The pointer lives as long as the map.
  const std::string* find(std::string_view key) const {
    // Labels are a handful of keys of different lengths: a scan that compares lengths first
    // does about one memcmp per lookup, where a binary search does one per step.
    if (entries_.size() <= kLinearScanMax) {
      for (const Entry& e : entries_) {
        if (e.first.size() == key.size() && std::string_view(e.first) == key) return &e.second;
      }
      return nullptr;
    }
    auto it = std::lower_bound(entries_.begin(), entries_.end(), key,
                               [](const Entry& e, std::string_view k) { return e.first < k; });
    return it != entries_.end() && it->first == key ? &it->second : nullptr;
  }
  bool contains(std::string_view key) const { return find(key) != nullptr; }

  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  const Entry& at(size_t index) const { return entries_.at(index); }
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }

  bool operator==(const StringMap&) const = default;

 private:
  static constexpr size_t kLinearScanMax = 16;
  std::vector<Entry> entries_;
};

}  // namespace schedhost::cluster
