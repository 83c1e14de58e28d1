#include "live/leader_election.hpp"

#include <limits.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <random>

#include "common/go_duration.hpp"
#include "common/input_error.hpp"
#include "common/thread_name.hpp"
#include "kube/micro_time.hpp"

namespace schedhost::live {
namespace {

using nlohmann::json;
using std::chrono::duration_cast;
using std::chrono::milliseconds;
using std::chrono::seconds;
using std::chrono::steady_clock;
using std::chrono::system_clock;

std::string random_hex(std::size_t bytes) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  std::string out;
  for (std::size_t i = 0; i < bytes; ++i) {
    char b[3];
    std::snprintf(b, sizeof b, "%02x", static_cast<unsigned>(rng() & 0xFF));
    out += b;
  }
  return out;
}

std::string hostname() {
  char host[HOST_NAME_MAX + 1] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return host;
}

std::int64_t whole_seconds(milliseconds d) {
  return duration_cast<seconds>(d).count();
}

}  // namespace

std::string leader_identity() {
  // A version 4 UUID: 8-4-4-4-12 hex digits, version nibble 4, variant bits 10.
  std::string hex = random_hex(16);
  hex[12] = '4';
  hex[16] = "89ab"[std::stoi(hex.substr(16, 1), nullptr, 16) & 3];
  return hostname() + "_" + hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) +
         "-" + hex.substr(16, 4) + "-" + hex.substr(20, 12);
}

std::string check_leader_election(const LeaderElectionConfig& c) {
  if (c.resource_lock != "leases") {
    return "resourceLock \"" + c.resource_lock +
           "\" is not supported: kube-scheduler elects its leader on a Lease, write \"leases\"";
  }
  if (c.retry_period.count() <= 0 || c.renew_deadline.count() <= 0 ||
      c.lease_duration.count() <= 0) {
    return "leaseDuration, renewDeadline and retryPeriod must be greater than zero";
  }
  if (c.lease_duration <= c.renew_deadline) {
    return "leaseDuration must be greater than renewDeadline";
  }
  if (c.renew_deadline.count() * 10 <= c.retry_period.count() * 12) {
    return "renewDeadline must be greater than 1.2 x retryPeriod";
  }
  if (c.name.empty() || c.namespace_name.empty()) {
    return "resourceName and resourceNamespace must not be empty";
  }
  return {};
}

LeaderElectionConfig leader_election_config(
    const config::SchedulerConfiguration& configuration,
    const std::function<bool(LeaderElectionConfig&)>& flags) {
  LeaderElectionConfig c;
  const auto it = configuration.upstream_only_fields.find("leaderElection");
  const std::string where = configuration.location_of("leaderElection").to_string();
  if (it != configuration.upstream_only_fields.end() && it->second.is_object()) {
    const json& block = it->second;
    c.enabled = block.value("leaderElect", c.enabled);
    auto duration = [&](const char* field, milliseconds& out) {
      if (!block.contains(field)) return;
      const std::string text = block.at(field).get<std::string>();
      const auto d = parse_go_duration(text);
      if (!d) {
        throw InputError(where + ": leaderElection." + field + ": \"" + text +
                         "\" is not a duration: write it as Kubernetes does, e.g. \"15s\"");
      }
      out = duration_cast<milliseconds>(*d);
    };
    duration("leaseDuration", c.lease_duration);
    duration("renewDeadline", c.renew_deadline);
    duration("retryPeriod", c.retry_period);
    c.resource_lock = block.value("resourceLock", c.resource_lock);
    c.name = block.value("resourceName", c.name);
    c.namespace_name = block.value("resourceNamespace", c.namespace_name);
  }
  const bool flagged = flags && flags(c);
  if (std::string why = check_leader_election(c); c.enabled && !why.empty()) {
    throw InputError(where + ": leaderElection" +
                     (flagged ? " (with the --leader-elect flags)" : "") + ": " + why);
  }
  return c;
}

LeaderElector::LeaderElector(const kube::ClientConfig& client, LeaderElectionConfig config,
                             std::string identity, std::string component)
    : client_(client, "/leader-election"),
      config_(std::move(config)),
      identity_(std::move(identity)),
      component_(std::move(component)) {}

LeaderElector::~LeaderElector() {
  stop_renewing_.store(true);
  wake_.notify_all();
  if (renewer_.joinable()) renewer_.join();
}

std::string LeaderElector::lease_path() const {
  return "/apis/coordination.k8s.io/v1/namespaces/" + kube::url_escape(config_.namespace_name) +
         "/leases/" + kube::url_escape(config_.name);
}

// One attempt, client-go's tryAcquireOrRenew: read the Lease; create it when there is none; take
// or renew it when it is free, ours, or unchanged for leaseDuration since this candidate last saw
// it change; the write carries the resourceVersion read, so a concurrent writer makes it fail.
// A Lease someone wrote with fields of the wrong type is a failed attempt, not a crash.
bool LeaderElector::renewal_overdue(std::chrono::seconds tolerance) const {
  if (!leading_.load()) return false;
  const steady_clock::time_point renewed{steady_clock::duration(renewed_at_.load())};
  return steady_clock::now() - renewed > config_.lease_duration + tolerance;
}

bool LeaderElector::try_acquire_or_renew() {
  std::lock_guard lock(mutex_);
  try {
    if (!attempt()) return false;
    renewed_at_.store(steady_clock::now().time_since_epoch().count());
    return true;
  } catch (const std::exception& e) {
    spdlog::warn("leader election: {}: {}", lease_path(), e.what());
    return false;
  }
}

bool LeaderElector::attempt() {
  const auto now = steady_clock::now();
  const std::string stamp = kube::format_micro_time(system_clock::now());
  json spec = {{"holderIdentity", identity_},
               {"leaseDurationSeconds", whole_seconds(config_.lease_duration)},
               {"acquireTime", stamp},
               {"renewTime", stamp},
               {"leaseTransitions", 0}};
  json lease;
  try {
    lease = client_.get(lease_path());
  } catch (const kube::ApiError& e) {
    if (!e.not_found()) {
      spdlog::debug("leader election: reading {}: {}", lease_path(), e.what());
      return false;
    }
    const json fresh = {
        {"apiVersion", "coordination.k8s.io/v1"},
        {"kind", "Lease"},
        {"metadata", {{"name", config_.name}, {"namespace", config_.namespace_name}}},
        {"spec", spec}};
    try {
      observed_lease_ = client_.create("/apis/coordination.k8s.io/v1/namespaces/" +
                                           kube::url_escape(config_.namespace_name) + "/leases",
                                       fresh);
    } catch (const kube::ApiError& created) {
      spdlog::debug("leader election: creating {}: {}", lease_path(), created.what());
      return false;
    }
    observed_spec_ = observed_lease_.value("spec", json::object()).dump();
    observed_time_ = now;
    return true;
  }
  const json old = lease.value("spec", json::object());
  if (const std::string raw = old.dump(); raw != observed_spec_) {
    observed_spec_ = raw;
    observed_time_ = now;
    observed_lease_ = lease;
  }
  const std::string holder = old.value("holderIdentity", std::string());
  const std::int64_t held_for = old.value("leaseDurationSeconds", std::int64_t{0});
  if (!holder.empty() && holder != identity_ && observed_time_ + seconds(held_for) > now) {
    return false;  // someone else holds it and has renewed within its lease, as far as we saw
  }
  const std::int64_t transitions = old.value("leaseTransitions", std::int64_t{0});
  if (holder == identity_) {
    spec["acquireTime"] = old.value("acquireTime", stamp);
    spec["leaseTransitions"] = transitions;
  } else {
    spec["leaseTransitions"] = transitions + 1;
  }
  lease["spec"] = spec;
  try {
    observed_lease_ = client_.replace(lease_path(), lease);
  } catch (const kube::ApiError& e) {
    spdlog::debug("leader election: writing {}: {}", lease_path(), e.what());
    return false;
  }
  observed_spec_ = observed_lease_.value("spec", json::object()).dump();
  observed_time_ = now;
  return true;
}

bool LeaderElector::acquire(const std::atomic<bool>& stop) {
  spdlog::info("leader election: {} is a candidate for lease {}/{}", identity_,
               config_.namespace_name, config_.name);
  std::mt19937_64 rng{std::random_device{}()};
  std::uniform_real_distribution<double> jitter(1.0, 1.2);
  while (!stop.load()) {
    if (try_acquire_or_renew()) {
      leading_.store(true);
      spdlog::info("leader election: {} became leader", identity_);
      record_event(identity_ + " became leader");
      return true;
    }
    // Sleep retryPeriod x [1, 1.2), waking early to notice stop.
    const auto until = steady_clock::now() +
                       duration_cast<steady_clock::duration>(config_.retry_period * jitter(rng));
    while (!stop.load() && steady_clock::now() < until) {
      std::this_thread::sleep_for(milliseconds(50));
    }
  }
  return false;
}

void LeaderElector::keep_renewing(std::function<void()> on_lost) {
  renewer_ = std::thread([this, on_lost = std::move(on_lost)] {
    name_this_thread("lease");
    auto last_renewal = steady_clock::now();
    while (true) {
      {
        std::unique_lock lock(wake_mutex_);
        wake_.wait_for(lock, config_.retry_period, [this] { return stop_renewing_.load(); });
      }
      if (stop_renewing_.load()) return;
      if (try_acquire_or_renew()) {
        last_renewal = steady_clock::now();
        continue;
      }
      if (steady_clock::now() - last_renewal >= config_.renew_deadline) {
        spdlog::error("leader election: {} lost lease {}/{}: not renewed within {} ms", identity_,
                      config_.namespace_name, config_.name, config_.renew_deadline.count());
        leading_.store(false);
        record_event(identity_ + " stopped leading");
        on_lost();
        return;
      }
    }
  });
}

void LeaderElector::release() {
  stop_renewing_.store(true);
  wake_.notify_all();
  if (renewer_.joinable()) renewer_.join();
  leading_.store(false);
  std::lock_guard lock(mutex_);
  const json spec = observed_lease_.value("spec", json::object());
  if (spec.value("holderIdentity", std::string()) != identity_) return;
  const std::string stamp = kube::format_micro_time(system_clock::now());
  json lease = observed_lease_;
  lease["spec"] = {{"holderIdentity", ""},
                   {"leaseDurationSeconds", 1},
                   {"acquireTime", stamp},
                   {"renewTime", stamp},
                   {"leaseTransitions", spec.value("leaseTransitions", std::int64_t{0})}};
  try {
    observed_lease_ = client_.replace(lease_path(), lease);
    spdlog::info("leader election: {} released lease {}/{}", identity_, config_.namespace_name,
                 config_.name);
  } catch (const kube::ApiError& e) {
    spdlog::warn("leader election: could not release {}: {}", lease_path(), e.what());
    return;
  }
  record_event(identity_ + " stopped leading");
}

// A core/v1 Event about the Lease, as client-go's resource lock records them. Best effort.
void LeaderElector::record_event(const std::string& message) {
  const std::string stamp = kube::format_time(system_clock::now());
  const json metadata = observed_lease_.value("metadata", json::object());
  json involved = {{"kind", "Lease"},
                   {"apiVersion", "coordination.k8s.io/v1"},
                   {"namespace", config_.namespace_name},
                   {"name", config_.name}};
  if (metadata.contains("uid")) involved["uid"] = metadata["uid"];
  if (metadata.contains("resourceVersion")) {
    involved["resourceVersion"] = metadata["resourceVersion"];
  }
  const json event = {
      {"apiVersion", "v1"},
      {"kind", "Event"},
      {"metadata",
       {{"name", config_.name + "." + random_hex(8)}, {"namespace", config_.namespace_name}}},
      {"involvedObject", involved},
      {"reason", "LeaderElection"},
      {"message", message},
      {"source", {{"component", component_}}},
      {"firstTimestamp", stamp},
      {"lastTimestamp", stamp},
      {"count", 1},
      {"type", "Normal"}};
  try {
    client_.create("/api/v1/namespaces/" + kube::url_escape(config_.namespace_name) + "/events",
                   event);
  } catch (const kube::ApiError& e) {
    spdlog::warn("leader election: could not record the event \"{}\": {}", message, e.what());
  }
}

}  // namespace schedhost::live
