// The generator's view of the schedulers' work: one watch on every pod, recording when each pod
// was first seen bound (spec.nodeName set) and first seen unschedulable (PodScheduled False).
// Times are when this process received the event, on the steady clock.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "kube/api_client.hpp"
#include "kube/informer.hpp"

namespace schedhost_live_bench {

using Clock = std::chrono::steady_clock;

class PodWatch {
 public:
  explicit PodWatch(const schedhost::kube::ClientConfig& config);
  ~PodWatch();
  PodWatch(const PodWatch&) = delete;
  PodWatch& operator=(const PodWatch&) = delete;

  // Lists and starts watching; returns once the first list has been seen.
  void start();

  // Waits until count pods of namespace ns are bound (or unschedulable). Returns false when no
  // new one came for stall_limit.
  bool wait_bound(const std::string& ns, std::size_t count, std::chrono::seconds stall_limit);
  bool wait_unschedulable(const std::string& ns, std::size_t count,
                          std::chrono::seconds stall_limit);

  std::size_t bound_count(const std::string& ns) const;
  // When pod ns/name was first seen bound.
  std::optional<Clock::time_point> bound_at(const std::string& ns, const std::string& name) const;
  // The requests the watch has made (list pages and watch calls), for the request count.
  int requests_made() const;

 private:
  void observe(const schedhost::kube::Object& pod);
  bool wait_for_count(const std::map<std::string, std::size_t>& counts, const std::string& ns,
                      std::size_t count, std::chrono::seconds stall_limit);

  schedhost::kube::ApiClient client_;
  std::unique_ptr<schedhost::kube::Informer> informer_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::unordered_map<std::string, Clock::time_point> bound_;  // "ns/name"
  std::unordered_set<std::string> unschedulable_;
  std::map<std::string, std::size_t> bound_per_namespace_;
  std::map<std::string, std::size_t> unschedulable_per_namespace_;
};

}  // namespace schedhost_live_bench
