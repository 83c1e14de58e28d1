#include "scheduler_process.hpp"

#include <fstream>
#include <string>
#include <vector>

#include "support/fixtures.hpp"

namespace schedhost_live_bench {

namespace testing = schedhost::testing;

const char* scheduler_name(SchedulerKind kind) {
  switch (kind) {
    case SchedulerKind::kSchedhost:
      return "schedhost";
    case SchedulerKind::kKubeScheduler:
      return "kube-scheduler";
    case SchedulerKind::kBindOnly:
      return "bind-only";
  }
  return "?";
}

std::string write_scheduler_config(const testing::ControlPlane& plane) {
  const std::string path = plane.dir() + "/scheduler-config.yaml";
  std::ofstream(path) << "apiVersion: kubescheduler.config.k8s.io/v1\n"
                         "kind: KubeSchedulerConfiguration\n"
                         "clientConnection:\n"
                         "  kubeconfig: "
                      << plane.kubeconfig()
                      << "\n"
                         "  qps: 5000\n"
                         "  burst: 5000\n"
                         "leaderElection:\n"
                         "  leaderElect: false\n"
                         "profiles:\n"
                         "- schedulerName: default-scheduler\n";
  return path;
}

namespace {

std::vector<std::string> command_line(SchedulerKind kind, const testing::ControlPlane& plane,
                                      const std::string& config, int instance) {
  const std::string port = std::to_string(testing::free_loopback_port());
  if (kind == SchedulerKind::kSchedhost) {
    return {
        testing::schedhost_binary(), "serve",          "--config",  config,          "--kubeconfig",
        plane.kubeconfig(),          "--bind-address", "127.0.0.1", "--secure-port", port};
  }
  // The script ends in exec: the child's PID becomes kube-scheduler's own.
  return {"/usr/bin/env",
          "KUBE_SCHEDULER=" + plane.binaries().scheduler,
          "/bin/bash",
          std::string(SCHEDHOST_SOURCE_DIR) + "/tests/controlplane/start-kube-scheduler.sh",
          "--kubeconfig",
          plane.kubeconfig(),
          "--config",
          config,
          "--port",
          port,
          "--workdir",
          plane.dir() + "/kube-scheduler-" + std::to_string(instance)};
}

}  // namespace

SchedulerProcess::SchedulerProcess(SchedulerKind kind, const testing::ControlPlane& plane,
                                   const std::string& config, int instance)
    : child_(std::make_unique<testing::ChildProcess>(
          command_line(kind, plane, config, instance),
          plane.dir() + "/scheduler-" + std::to_string(instance) + ".log")) {}

SchedulerProcess::~SchedulerProcess() = default;

void SchedulerProcess::stop() {
  child_->stop(15'000);
}

}  // namespace schedhost_live_bench
