#include "validator/audited_state.hpp"

#include "loader/abi_layout.hpp"

namespace schedhost::validator {
namespace {

schedhost_state_ops_t read_ops(const schedhost_state_ops_t* ops) {
  if (ops == nullptr || ops->struct_size < loader::kStateOpsSize_1_0) return {};
  return loader::copy_struct_prefix(ops, ops->struct_size);
}

DestroyProgress g_destroy_progress = nullptr;

}  // namespace

void StateAudit::problem(std::string text) {
  std::lock_guard lock(mutex_);
  for (const std::string& p : problems_) {
    if (p == text) return;
  }
  if (problems_.size() < 16) problems_.push_back(std::move(text));  // the first few say enough
}

std::vector<std::string> StateAudit::problems() const {
  std::lock_guard lock(mutex_);
  return problems_;
}

StateAudit& state_audit() {
  static StateAudit audit;
  return audit;
}

void set_destroy_progress(DestroyProgress progress) {
  g_destroy_progress = progress;
}

std::shared_ptr<void> AuditedState::own(std::string key, void* value, void (*destroy)(void*)) {
  return std::shared_ptr<void>(value, [key = std::move(key), destroy](void* v) {
    if (g_destroy_progress != nullptr) g_destroy_progress(key);
    destroy(v);
    ++state_audit().destroyed;
  });
}

AuditedState::~AuditedState() = default;

bool AuditedState::write(std::string_view key, void* value, const schedhost_state_ops_t* ops) {
  if (value == nullptr) return false;
  const schedhost_state_ops_t known = read_ops(ops);
  const std::string quoted = "\"" + std::string(key) + "\"";
  if (known.destroy == nullptr) {
    ++state_audit().leaked;
    state_audit().problem(
        "value " + quoted +
        " written with ops that have no destroy function: the host can never free "
        "it (leaked)");
    return false;
  }
  ++state_audit().written;
  std::shared_ptr<void> owned = own(std::string(key), value, known.destroy);
  if (!read_only_hook_.empty()) {
    state_audit().problem("value " + quoted + " written during " + read_only_hook_ +
                          ", where the cycle state is read-only (refused)");
    return false;
  }
  for (Entry& e : entries_) {
    if (e.key == key) {
      e = Entry{e.key, ops, std::move(owned)};
      return true;
    }
  }
  entries_.push_back(Entry{std::string(key), ops, std::move(owned)});
  return true;
}

void* AuditedState::read(std::string_view key, const schedhost_state_ops_t* ops) const {
  for (const Entry& e : entries_) {
    if (e.key == key) return e.ops == ops ? e.value.get() : nullptr;
  }
  return nullptr;
}

std::unique_ptr<AuditedState> AuditedState::clone() const {
  auto copy = std::make_unique<AuditedState>();
  for (const Entry& e : entries_) {
    const schedhost_state_ops_t known = read_ops(e.ops);
    if (known.clone == nullptr) {
      copy->entries_.push_back(e);  // immutable: shared
      continue;
    }
    void* cloned = known.clone(e.value.get());
    const std::string quoted = "\"" + e.key + "\"";
    if (cloned == nullptr) {
      state_audit().problem("clone of value " + quoted +
                            " returned NULL: preemption dry runs of this pod would fail");
      continue;
    }
    if (cloned == e.value.get()) {
      state_audit().problem("clone of value " + quoted +
                            " returned the value itself: the host would destroy it twice");
      continue;  // not owned twice here, so the validator itself does not double-free
    }
    ++state_audit().cloned;
    ++state_audit().written;
    copy->entries_.push_back(Entry{e.key, e.ops, own(e.key, cloned, known.destroy)});
  }
  return copy;
}

}  // namespace schedhost::validator
