// AuditedState: the cycle state the validator hands to plugins instead of the framework's. It
// stores values the same way (typed by their ops pointer, freed through ops->destroy) but counts
// every value written and destroyed and records each way a value can leak or be freed twice:
//   - written with ops that have no destroy function (or ops too short): the host can never free
//     it (the framework's CycleState refuses it, and the value leaks);
//   - clone() returning NULL (a preemption dry run would fail) or the value itself (the host would
//     then destroy the same pointer twice);
//   - a write while the state is read-only (Filter, Score: refused, and a data race upstream).
#pragma once

#include <schedhost/abi.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace schedhost::validator {

// What happened to cycle-state values over one child's run.
class StateAudit {
 public:
  std::atomic<std::size_t> written{0};    // values stored
  std::atomic<std::size_t> destroyed{0};  // ops->destroy calls
  std::atomic<std::size_t> cloned{0};     // clone calls that returned a new value
  std::atomic<std::size_t> leaked{0};     // values written with no destroy function
  // Records a problem once, however often it happens.
  void problem(std::string text);
  std::vector<std::string> problems() const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> problems_;
};

StateAudit& state_audit();

// Called before ops->destroy, so a crash there names the value (set by the validator).
using DestroyProgress = void (*)(std::string_view key);
void set_destroy_progress(DestroyProgress progress);

class AuditedState {
 public:
  AuditedState() = default;
  ~AuditedState();
  AuditedState(const AuditedState&) = delete;
  AuditedState& operator=(const AuditedState&) = delete;

  bool write(std::string_view key, void* value, const schedhost_state_ops_t* ops);
  void* read(std::string_view key, const schedhost_state_ops_t* ops) const;
  // A deep copy as the framework makes for preemption; values without clone are shared.
  std::unique_ptr<AuditedState> clone() const;

  // Read-only writes are reported with the hook name given here.
  void set_read_only(std::string hook) { read_only_hook_ = std::move(hook); }
  void set_writable() { read_only_hook_.clear(); }

  schedhost_cycle_state_t* handle() { return reinterpret_cast<schedhost_cycle_state_t*>(this); }
  static AuditedState& from(schedhost_cycle_state_t* h) {
    return *reinterpret_cast<AuditedState*>(h);
  }
  static const AuditedState& from(const schedhost_cycle_state_t* h) {
    return *reinterpret_cast<const AuditedState*>(h);
  }

 private:
  struct Entry {
    std::string key;
    const schedhost_state_ops_t* ops;
    std::shared_ptr<void> value;  // the deleter counts and calls ops->destroy
  };
  static std::shared_ptr<void> own(std::string key, void* value, void (*destroy)(void*));

  std::string read_only_hook_;
  std::vector<Entry> entries_;
};

}  // namespace schedhost::validator
