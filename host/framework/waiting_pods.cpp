#include "framework/waiting_pods.hpp"

#include <algorithm>
#include <iterator>

namespace schedhost::framework {
namespace {

// A duration as Go's time.Duration prints it (upstream's messages use %v): "500ms", "10s",
// "1.5s", "1m30s", "15m0s".
std::string go_duration(std::uint32_t ms) {
  if (ms == 0) return "0s";
  if (ms < 1000) return std::to_string(ms) + "ms";
  const std::uint32_t minutes = ms / 60000;
  const std::uint32_t rest = ms % 60000;
  std::string seconds = std::to_string(rest / 1000);
  if (rest % 1000 != 0) {
    std::string frac = std::to_string(1000 + rest % 1000).substr(1);  // 3 digits, leading zeros
    while (frac.back() == '0')
      frac.pop_back();
    seconds += "." + frac;
  }
  return (minutes > 0 ? std::to_string(minutes) + "m" : "") + seconds + "s";
}

std::string timeout_message(const WaitingPods::Wait& w) {
  return "rejected due to timeout after waiting " + go_duration(w.timeout_ms) + " at plugin " +
         w.plugin;
}

}  // namespace

void WaitingPods::add(std::shared_ptr<const cluster::Pod> pod, std::string node,
                      std::vector<Wait> waits) {
  entries_.push_back({std::move(pod),
                      std::move(node),
                      std::move(waits),
                      std::nullopt,
                      {},
                      std::chrono::steady_clock::now()});
}

const cluster::Pod* WaitingPods::pod_at(std::size_t index) const {
  return index < entries_.size() ? entries_[index].pod.get() : nullptr;
}

WaitingPods::Entry* WaitingPods::find(std::string_view uid) {
  for (Entry& e : entries_) {
    if (e.pod->uid() == uid) return &e;
  }
  return nullptr;
}

bool WaitingPods::allow(std::string_view uid, std::string_view plugin) {
  Entry* e = find(uid);
  if (e == nullptr || e->rejected) return false;
  auto it = std::find_if(e->pending.begin(), e->pending.end(),
                         [&](const Wait& w) { return w.plugin == plugin; });
  if (it == e->pending.end()) return false;
  e->pending.erase(it);
  return true;
}

bool WaitingPods::reject(std::string_view uid, std::string_view plugin, std::string_view message) {
  Entry* e = find(uid);
  if (e == nullptr || e->rejected) return false;
  e->rejected =
      std::string(message.empty() ? "rejected by plugin " + std::string(plugin) : message);
  e->rejected_by = std::string(plugin);
  return true;
}

std::vector<WaitingPods::Entry> WaitingPods::take_resolved() {
  std::vector<Entry> resolved;
  auto keep = std::stable_partition(entries_.begin(), entries_.end(), [](const Entry& e) {
    return !e.rejected && !e.pending.empty();
  });
  std::move(keep, entries_.end(), std::back_inserter(resolved));
  entries_.erase(keep, entries_.end());
  return resolved;
}

std::optional<WaitingPods::Entry> WaitingPods::expire_first() {
  std::size_t best_entry = entries_.size();
  std::size_t best_wait = 0;
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    const auto& waits = entries_[i].pending;
    for (std::size_t j = 0; j < waits.size(); ++j) {
      if (best_entry == entries_.size() ||
          waits[j].timeout_ms < entries_[best_entry].pending[best_wait].timeout_ms) {
        best_entry = i;
        best_wait = j;
      }
    }
  }
  if (best_entry == entries_.size()) return std::nullopt;
  Entry e = std::move(entries_[best_entry]);
  entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(best_entry));
  const Wait& w = e.pending[best_wait];
  e.rejected = timeout_message(w);
  e.rejected_by = w.plugin;
  return e;
}

std::optional<WaitingPods::Entry> WaitingPods::expire_first_due(
    std::chrono::steady_clock::time_point now) {
  std::size_t best_entry = entries_.size();
  std::size_t best_wait = 0;
  std::chrono::steady_clock::time_point best_deadline{};
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].rejected) continue;
    const auto& waits = entries_[i].pending;
    for (std::size_t j = 0; j < waits.size(); ++j) {
      const auto deadline = entries_[i].started + std::chrono::milliseconds(waits[j].timeout_ms);
      if (deadline <= now && (best_entry == entries_.size() || deadline < best_deadline)) {
        best_entry = i;
        best_wait = j;
        best_deadline = deadline;
      }
    }
  }
  if (best_entry == entries_.size()) return std::nullopt;
  Entry e = std::move(entries_[best_entry]);
  entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(best_entry));
  e.rejected = timeout_message(e.pending[best_wait]);
  e.rejected_by = e.pending[best_wait].plugin;
  return e;
}

std::optional<std::chrono::steady_clock::time_point> WaitingPods::next_deadline() const {
  std::optional<std::chrono::steady_clock::time_point> next;
  for (const Entry& e : entries_) {
    for (const Wait& w : e.pending) {
      const auto deadline = e.started + std::chrono::milliseconds(w.timeout_ms);
      if (!next || deadline < *next) next = deadline;
    }
  }
  return next;
}

}  // namespace schedhost::framework
