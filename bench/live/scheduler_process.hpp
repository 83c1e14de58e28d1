// A scheduler under test, as a child process against the benchmark's control plane: schedhost
// serve, or upstream's kube-scheduler started as the live tests start it
// (tests/controlplane/start-kube-scheduler.sh). Both read the same configuration.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "live/control_plane.hpp"

namespace schedhost_live_bench {

enum class SchedulerKind {
  kSchedhost,
  kKubeScheduler,
  // No scheduler: the load generator binds every pod itself, round-robin over the nodes.
  kBindOnly,
};

// "schedhost", "kube-scheduler", "bind-only".
const char* scheduler_name(SchedulerKind kind);

// The default profile with scheduler_perf's client limits (qps and burst 5000: at the default
// 50 qps one binding a request would be the whole story) and no leader election, for both
// schedulers; written into the plane's directory. Returns its path.
std::string write_scheduler_config(const schedhost::testing::ControlPlane& plane);

class SchedulerProcess {
 public:
  // kind is kSchedhost or kKubeScheduler; instance numbers the log file (scheduler-<n>.log).
  SchedulerProcess(SchedulerKind kind, const schedhost::testing::ControlPlane& plane,
                   const std::string& config, int instance);
  ~SchedulerProcess();
  SchedulerProcess(const SchedulerProcess&) = delete;
  SchedulerProcess& operator=(const SchedulerProcess&) = delete;

  pid_t pid() const { return child_->pid(); }
  bool running() { return child_->running(); }
  std::string log_tail() const { return child_->log_tail(3000); }
  // SIGTERM, and waits for the exit (SIGKILL after 15 s).
  void stop();

 private:
  std::unique_ptr<schedhost::testing::ChildProcess> child_;
};

}  // namespace schedhost_live_bench
