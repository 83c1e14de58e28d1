// Leader election over a coordination.k8s.io/v1 Lease, as kube-scheduler does it (client-go's
// leaderelection with a LeaseLock): several `serve` replicas, one schedules. A candidate takes a
// Lease that is free, or whose record it has seen unchanged for leaseDuration by its own clock
// (so clock skew between machines does not matter); every write carries the resourceVersion it
// read, so two candidates never both win. The leader renews every retryPeriod; if no renewal
// succeeds within renewDeadline it has lost and must stop scheduling at once. On a clean stop it
// releases the Lease (holder "", 1 s) so a follower takes over without waiting.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "config/scheduler_configuration.hpp"
#include "kube/api_client.hpp"

namespace schedhost::live {

struct LeaderElectionConfig {
  bool enabled = true;  // upstream's default: leaderElect true
  std::chrono::milliseconds lease_duration{15'000};
  std::chrono::milliseconds renew_deadline{10'000};
  std::chrono::milliseconds retry_period{2'000};
  std::string resource_lock = "leases";
  std::string name = "kube-scheduler";
  std::string namespace_name = "kube-system";
};

// The configuration's leaderElection block over upstream's defaults, then `flags` (the command
// line's --leader-elect* flags; it returns whether it changed anything). Throws InputError naming
// the block (file:line:column) for a duration Go would not parse, and, when election is on, for a
// lock other than "leases" or durations that break upstream's rule
// leaseDuration > renewDeadline > 1.2 x retryPeriod > 0.
LeaderElectionConfig leader_election_config(
    const config::SchedulerConfiguration& configuration,
    const std::function<bool(LeaderElectionConfig&)>& flags = {});
// Upstream's rule on the three durations: empty when they keep it, else why not.
std::string check_leader_election(const LeaderElectionConfig& config);

// "<hostname>_<random UUID>", upstream's identity of a candidate.
std::string leader_identity();

class LeaderElector {
 public:
  // client: a client of its own (the elector has a thread of its own). component: the
  // schedulerName its events come from.
  LeaderElector(const kube::ClientConfig& client, LeaderElectionConfig config, std::string identity,
                std::string component);
  ~LeaderElector();  // stops renewing; does not release (release() does)
  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;

  // Tries every retryPeriod (jittered up to x1.2) until this candidate holds the Lease (true), or
  // stop is set (false).
  bool acquire(const std::atomic<bool>& stop);
  // Renews every retryPeriod on a thread of its own. When no renewal succeeds within
  // renewDeadline, leadership is lost: on_lost runs once, on that thread.
  void keep_renewing(std::function<void()> on_lost);
  // Stops renewing and, if this candidate still holds the Lease as last seen, gives it up.
  void release();

  const std::string& identity() const { return identity_; }
  bool leading() const { return leading_.load(); }
  // The leaderElection health check (upstream's HealthzAdaptor): this replica leads but has not
  // renewed for longer than leaseDuration + tolerance. Any thread.
  bool renewal_overdue(std::chrono::seconds tolerance) const;
  std::string lease_path() const;

 private:
  bool try_acquire_or_renew();
  bool attempt();  // try_acquire_or_renew's body, under mutex_
  void record_event(const std::string& message);

  kube::ApiClient client_;
  const LeaderElectionConfig config_;
  const std::string identity_;
  const std::string component_;
  std::mutex mutex_;               // guards the observed record
  nlohmann::json observed_lease_;  // the whole Lease as last read or written
  std::string observed_spec_;      // its spec as JSON text, to notice a change
  std::chrono::steady_clock::time_point observed_time_{};
  std::atomic<bool> leading_{false};
  std::atomic<std::chrono::steady_clock::rep> renewed_at_{0};  // steady ticks of the last success
  std::thread renewer_;
  std::atomic<bool> stop_renewing_{false};
  std::mutex wake_mutex_;
  std::condition_variable wake_;
};

}  // namespace schedhost::live
