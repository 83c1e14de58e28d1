#include "framework/cycle_state.hpp"

#include <cstdint>
#include <cstring>

#include "framework/plugin_call_record.hpp"
#include "loader/abi_layout.hpp"

namespace schedhost::framework {
namespace {

// Keys are short ("PreFilterNodeResourcesFit"), read once per plugin and node, and nearly always
// equal: compared eight bytes at a time inline, where std::string's == called the library's
// memcmp (5 % of a 5000-node replay).
bool same_key(const std::string& stored, std::string_view key) {
  const std::size_t n = stored.size();
  if (key.size() != n) return false;
  const char* a = stored.data();
  const char* b = key.data();
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t x = 0;
    std::uint64_t y = 0;
    std::memcpy(&x, a + i, 8);
    std::memcpy(&y, b + i, 8);
    if (x != y) return false;
  }
  for (; i < n; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

// The ops as this host reads them: NULL functions when the plugin's struct is too short.
schedhost_state_ops_t read_ops(const schedhost_state_ops_t* ops) {
  if (ops == nullptr || ops->struct_size < loader::kStateOpsSize_1_0) return {};
  return loader::copy_struct_prefix(ops, ops->struct_size);
}

// Frees a value with its plugin's destroy(), as that plugin's code (for the crash line): values
// outlive the hook that wrote them.
struct PluginDestroy {
  void (*destroy)(void*);
  const loader::PluginDefinition* owner;  // the plugin whose hook wrote the value, if known
  void operator()(void* value) const {
    if (owner == nullptr) {
      destroy(value);
      return;
    }
    const PluginCallScope scope(*owner, {"the destroy() of its cycle-state value"});
    destroy(value);
  }
};

// The plugin whose hook is running (the one writing a value).
const loader::PluginDefinition* running_plugin() {
  const PluginCallRecord* r = current_plugin_call();
  return r != nullptr ? r->plugin : nullptr;
}

const loader::PluginDefinition* owner_of(const std::shared_ptr<void>& value) {
  return std::get_deleter<PluginDestroy>(value)->owner;  // every value is held this way
}

}  // namespace

bool CycleState::write(std::string_view key, void* value, const schedhost_state_ops_t* ops) {
  const schedhost_state_ops_t known = read_ops(ops);
  if (value == nullptr || known.destroy == nullptr) return false;  // nothing we could free
  // From here on, freed exactly once.
  std::shared_ptr<void> owned(value, PluginDestroy{known.destroy, running_plugin()});
  if (read_only_) return false;
  for (Entry& e : entries_) {
    if (e.key == key) {
      e = Entry{e.key, ops, known.clone, std::move(owned)};
      return true;
    }
  }
  entries_.push_back(Entry{std::string(key), ops, known.clone, std::move(owned)});
  return true;
}

void* CycleState::read(std::string_view key, const schedhost_state_ops_t* ops) const {
  // Keys are unique, so "the entry under key, if its ops are these" is "an entry with these ops
  // and this key": comparing the ops pointer first skips most string compares (Score reads its
  // PreScore state once per node).
  for (const Entry& e : entries_) {
    if (e.ops == ops && same_key(e.key, key)) return e.value.get();
  }
  return nullptr;
}

std::unique_ptr<CycleState> CycleState::clone() const {
  auto copy = std::make_unique<CycleState>();
  copy->entries_.reserve(entries_.size());
  for (const Entry& e : entries_) {
    if (e.clone == nullptr) {
      copy->entries_.push_back(e);  // immutable: shared, destroyed once with the last owner
      continue;
    }
    void* cloned = e.clone(e.value.get());
    if (cloned == nullptr) return nullptr;
    const schedhost_state_ops_t known = read_ops(e.ops);
    copy->entries_.push_back(
        Entry{e.key, e.ops, e.clone,
              std::shared_ptr<void>(cloned, PluginDestroy{known.destroy, owner_of(e.value)})});
  }
  return copy;
}

}  // namespace schedhost::framework
