#include "cluster/resource_list.hpp"

#include <algorithm>
#include <limits>

namespace schedhost::cluster {

int64_t resource_amount(std::string_view resource, const Quantity& quantity) {
  return resource == "cpu" ? quantity.milli_value() : quantity.value();
}

int64_t saturating_add(int64_t a, int64_t b, bool* saturated) {
  int64_t sum = 0;
  bool overflow = __builtin_add_overflow(a, b, &sum);
  if (saturated != nullptr) *saturated = overflow;
  if (!overflow) return sum;
  return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

ResourceList::ResourceList(std::initializer_list<std::pair<std::string_view, int64_t>> entries) {
  for (const auto& [name, value] : entries)
    set(name, value);
}

void ResourceList::sync_native_slots() {
  native_present_ = 0;
  for (const Entry& e : entries_) {
    const int slot = native_slot(e.name);
    if (slot < 0) continue;
    native_[slot] = e.value;
    native_present_ = static_cast<uint8_t>(native_present_ | (1U << slot));
  }
}

std::vector<ResourceList::Entry>::iterator ResourceList::lower_bound(std::string_view name) {
  return std::lower_bound(entries_.begin(), entries_.end(), name,
                          [](const Entry& e, std::string_view n) { return e.name < n; });
}

std::optional<int64_t> ResourceList::get_by_name(std::string_view name) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [](const Entry& e, std::string_view n) { return e.name < n; });
  if (it == entries_.end() || it->name != name) return std::nullopt;
  return it->value;
}

void ResourceList::set(std::string_view name, int64_t value) {
  auto it = lower_bound(name);
  if (it != entries_.end() && it->name == name) {
    it->value = value;
  } else {
    entries_.insert(it, Entry{std::string(name), value});
  }
  sync_native_slots();
}

bool ResourceList::add(std::string_view name, int64_t delta) {
  auto it = lower_bound(name);
  if (it == entries_.end() || it->name != name) {
    entries_.insert(it, Entry{std::string(name), delta});
    sync_native_slots();
    return true;
  }
  bool saturated = false;
  it->value = saturating_add(it->value, delta, &saturated);
  sync_native_slots();
  return !saturated;
}

bool ResourceList::add(const ResourceList& other) {
  bool exact = true;
  for (const Entry& e : other)
    exact = add(e.name, e.value) && exact;
  return exact;
}

bool ResourceList::subtract(const ResourceList& other) {
  bool exact = true;
  for (const Entry& e : other) {
    if (e.value == std::numeric_limits<int64_t>::min()) {
      // -INT64_MIN does not fit: subtract it as +INT64_MAX, then +1.
      exact = add(e.name, std::numeric_limits<int64_t>::max()) && exact;
      exact = add(e.name, 1) && exact;
    } else {
      exact = add(e.name, -e.value) && exact;
    }
  }
  return exact;
}

bool ResourceList::erase(std::string_view name) {
  auto it = lower_bound(name);
  if (it == entries_.end() || it->name != name) return false;
  entries_.erase(it);
  sync_native_slots();
  return true;
}

void ResourceList::erase_zeros() {
  std::erase_if(entries_, [](const Entry& e) { return e.value == 0; });
  sync_native_slots();
}

}  // namespace schedhost::cluster
