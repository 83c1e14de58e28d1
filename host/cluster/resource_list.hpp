// Resource name -> amount, in the units plugins see.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cluster/quantity.hpp"

namespace schedhost::cluster {

// The ABI's unit for a resource: "cpu" in millicores (MilliValue), every other resource in whole
// units rounded up (Value: bytes for memory, ephemeral-storage and hugepages-*, a count for pods
// and extended resources).
int64_t resource_amount(std::string_view resource, const Quantity& quantity);

// a + b, clamped to the int64 range; *saturated (when given) is set when it clamped.
int64_t saturating_add(int64_t a, int64_t b, bool* saturated = nullptr);

// A small map kept as a vector sorted by name in byte order: lists hold a handful of entries,
// iterate in the ABI's order and copy cheaply when NodeInfos are cloned. The native resources
// (cpu, memory, pods, ephemeral-storage) are mirrored in fixed slots inside the object, so the
// lookups Filter and Score make per node read one cache line and compare no strings.
class ResourceList {
 public:
  struct Entry {
    std::string name;
    int64_t value = 0;
    bool operator==(const Entry&) const = default;
  };
  using const_iterator = std::vector<Entry>::const_iterator;

  ResourceList() = default;
  ResourceList(std::initializer_list<std::pair<std::string_view, int64_t>> entries);

  std::optional<int64_t> get(std::string_view name) const {
    const int slot = native_slot(name);
    if (slot < 0) return get_by_name(name);
    if ((native_present_ & (1U << slot)) == 0) return std::nullopt;
    return native_[slot];
  }
  int64_t get_or_zero(std::string_view name) const { return get(name).value_or(0); }
  bool contains(std::string_view name) const { return get(name).has_value(); }

  void set(std::string_view name, int64_t value);
  // Adds delta (creating the entry at 0 first), saturating; returns false when it saturated.
  bool add(std::string_view name, int64_t delta);
  // Entry-wise add / subtract of another list; false when any entry saturated.
  bool add(const ResourceList& other);
  bool subtract(const ResourceList& other);
  bool erase(std::string_view name);
  // Drops the entries whose value is 0, so that aggregates compare equal however they were built.
  void erase_zeros();

  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  const Entry& at(size_t index) const { return entries_.at(index); }
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }

  bool operator==(const ResourceList& other) const { return entries_ == other.entries_; }

 private:
  // The fixed slot of a native resource name, -1 for any other name. Compares through memcmp
  // with a constant length, which the compiler turns into a few loads: string_view's == called
  // the library's memcmp here, a tenth of a SchedulingBasic run's main thread.
  static int native_slot(std::string_view name) {
    // Only called once the sizes matched.
    const auto is = [&name](const auto& literal) {
      return std::memcmp(name.data(), literal, sizeof(literal) - 1) == 0;
    };
    switch (name.size()) {
      case 3:
        return is("cpu") ? 0 : -1;
      case 6:
        return is("memory") ? 1 : -1;
      case 4:
        return is("pods") ? 2 : -1;
      case 17:
        return is("ephemeral-storage") ? 3 : -1;
      default:
        return -1;
    }
  }
  std::optional<int64_t> get_by_name(std::string_view name) const;
  std::vector<Entry>::iterator lower_bound(std::string_view name);
  void sync_native_slots();  // after any change to entries_

  std::vector<Entry> entries_;
  int64_t native_[4] = {0, 0, 0, 0};
  uint8_t native_present_ = 0;  // bit i: native_[i] holds an entry
};

}  // namespace schedhost::cluster
