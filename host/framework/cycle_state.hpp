// CycleState: one pod's scheduling-attempt state, where plugins keep what PreFilter/PreScore
// computed for Filter/Score to read. Values are plugin-allocated and typed by their ops pointer;
// the host owns them and frees each exactly once through ops->destroy.
#pragma once

#include <schedhost/abi.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace schedhost::framework {

class CycleState {
 public:
  CycleState() = default;
  CycleState(const CycleState&) = delete;
  CycleState& operator=(const CycleState&) = delete;
  CycleState(CycleState&&) = default;
  CycleState& operator=(CycleState&&) = default;

  // Takes ownership of value in every case; false (value destroyed, or leaked when the ops are
  // too short to have a destroy function) when the write is refused: read-only state or bad ops.
  bool write(std::string_view key, void* value, const schedhost_state_ops_t* ops);
  // The value under key, or nullptr when absent or stored with other ops.
  void* read(std::string_view key, const schedhost_state_ops_t* ops) const;

  // A copy for nominated-pod and preemption dry runs: values with a clone function are deep
  // copied, the others are shared (immutable). Returns nullptr when a plugin's clone fails.
  std::unique_ptr<CycleState> clone() const;

  // While read-only (Filter and Score run on many threads) writes are refused.
  void set_read_only(bool read_only) { read_only_ = read_only; }
  std::size_t size() const { return entries_.size(); }

  schedhost_cycle_state_t* handle() { return reinterpret_cast<schedhost_cycle_state_t*>(this); }
  const schedhost_cycle_state_t* handle() const {
    return reinterpret_cast<const schedhost_cycle_state_t*>(this);
  }
  static CycleState& from(schedhost_cycle_state_t* h) { return *reinterpret_cast<CycleState*>(h); }
  static const CycleState& from(const schedhost_cycle_state_t* h) {
    return *reinterpret_cast<const CycleState*>(h);
  }

 private:
  struct Entry {
    std::string key;
    const schedhost_state_ops_t* ops;  // identity, compared by address
    void* (*clone)(const void*);
    std::shared_ptr<void> value;  // deleter calls ops->destroy once
  };
  std::vector<Entry> entries_;  // few keys per cycle: a flat vector beats a hash map
  bool read_only_ = false;
};

}  // namespace schedhost::framework
