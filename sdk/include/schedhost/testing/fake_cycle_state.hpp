// schedhost/testing/fake_cycle_state.hpp - one pod's CycleState, with the host's rules: values
// are typed by their ops pointer, freed exactly once through ops->destroy, and writes are refused
// while Filter or Score run (the host runs them on many threads).
#pragma once

#include <schedhost/abi.h>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace schedhost::testing {

class FakeCycleState {
 public:
  FakeCycleState() = default;
  FakeCycleState(const FakeCycleState&) = delete;
  FakeCycleState& operator=(const FakeCycleState&) = delete;
  FakeCycleState(FakeCycleState&&) = default;
  FakeCycleState& operator=(FakeCycleState&&) = default;

  // Takes ownership of value in every case; false (value destroyed) when refused.
  bool write(std::string_view key, void* value, const schedhost_state_ops_t* ops) {
    if (value == nullptr || ops == nullptr || ops->destroy == nullptr) return false;
    std::shared_ptr<void> owned(value, ops->destroy);
    if (read_only_) return false;
    for (Entry& e : entries_) {
      if (e.key == key) {
        e = Entry{e.key, ops, std::move(owned)};
        return true;
      }
    }
    entries_.push_back(Entry{std::string(key), ops, std::move(owned)});
    return true;
  }
  void* read(std::string_view key, const schedhost_state_ops_t* ops) const {
    for (const Entry& e : entries_) {
      if (e.key == key) return e.ops == ops ? e.value.get() : nullptr;
    }
    return nullptr;
  }
  // A copy as the host makes for preemption dry runs: values with clone() are deep-copied, the
  // others shared. nullptr when a clone fails.
  std::unique_ptr<FakeCycleState> clone() const {
    auto copy = std::make_unique<FakeCycleState>();
    for (const Entry& e : entries_) {
      if (e.ops->clone == nullptr) {
        copy->entries_.push_back(e);
        continue;
      }
      void* cloned = e.ops->clone(e.value.get());
      if (cloned == nullptr) return nullptr;
      copy->entries_.push_back(Entry{e.key, e.ops, std::shared_ptr<void>(cloned, e.ops->destroy)});
    }
    return copy;
  }

  bool contains(std::string_view key) const {
    for (const Entry& e : entries_) {
      if (e.key == key) return true;
    }
    return false;
  }
  std::size_t size() const { return entries_.size(); }
  bool read_only() const { return read_only_; }
  void set_read_only(bool read_only) { read_only_ = read_only; }

  schedhost_cycle_state_t* handle() { return reinterpret_cast<schedhost_cycle_state_t*>(this); }
  static FakeCycleState* from(schedhost_cycle_state_t* h) {
    return reinterpret_cast<FakeCycleState*>(h);
  }
  static const FakeCycleState* from(const schedhost_cycle_state_t* h) {
    return reinterpret_cast<const FakeCycleState*>(h);
  }

 private:
  struct Entry {
    std::string key;
    const schedhost_state_ops_t* ops;
    std::shared_ptr<void> value;
  };
  std::vector<Entry> entries_;
  bool read_only_ = false;
};

}  // namespace schedhost::testing
