// The real control plane for the live tests: etcd and kube-apiserver started on free loopback
// ports, with certificates and a service-account key made at start, stopped by PID. No mock: the
// API server is upstream's own binary, v1.35 built by `make controlplane` (tests/controlplane/),
// or one found as envtest finds it.
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kube/client_config.hpp"
#include "support/fixtures.hpp"

namespace schedhost::testing {

struct ControlPlaneBinaries {
  std::string apiserver;
  std::string etcd;
  std::string kubectl;    // empty when none was found
  std::string scheduler;  // kube-scheduler, empty when none was found
  std::string version;    // what `kube-apiserver --version` says, e.g. "v1.35.4"
  std::string source;     // where they were found, for messages
};

// Looks for the binaries in this order: the project's build (`make controlplane`:
// SCHEDHOST_CONTROLPLANE_DIR/bin), $KUBEBUILDER_ASSETS, ../shared/k8s/bin beside the checkout,
// PATH; etcd also as Debian installs it. nullopt with *why set when there is no API server or etcd.
std::optional<ControlPlaneBinaries> find_control_plane(std::string* why);

// True when SCHEDHOST_REQUIRE_APISERVER=1: a missing control plane fails a test, not skips it.
bool control_plane_required();

// A child process started with its output in a log file, killed by PID when the object dies
// (and, through PR_SET_PDEATHSIG, when the test process dies first).
class ChildProcess {
 public:
  ChildProcess(std::vector<std::string> argv, std::string log_path);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  bool running();
  // Waits for the process to exit by itself. Returns the exit status (waitpid's).
  int wait();
  // SIGTERM, then SIGKILL after grace; waits for the exit. Returns the exit status (waitpid's).
  int stop(int grace_ms = 10'000);
  std::string log_tail(std::size_t bytes = 2000) const;

 private:
  pid_t pid_ = -1;
  int status_ = 0;
  std::string log_path_;
};

class ControlPlane {
 public:
  // Starts etcd and the API server and waits until /readyz answers. Throws std::runtime_error
  // with the last lines of the failing server's log.
  explicit ControlPlane(ControlPlaneBinaries binaries);
  ~ControlPlane();  // stops both by PID

  const ControlPlaneBinaries& binaries() const { return binaries_; }
  const std::string& server() const { return server_; }  // https://127.0.0.1:<port>
  const std::string& admin_token() const { return admin_token_; }
  std::string ca_pem() const;
  // A kubeconfig for the admin token (for kubectl and `schedhost serve --kubeconfig`).
  const std::string& kubeconfig() const { return kubeconfig_; }
  // The same admin, authenticated by a client certificate (CN admin, O system:masters).
  std::string client_cert_kubeconfig() const;
  // A kubeconfig named file (in dir()) for server (e.g. a TcpProxy in front of this one) and
  // the user block user_yaml (default: the admin token), trusting the test CA.
  std::string write_kubeconfig(const std::string& file, const std::string& server,
                               const std::string& user_yaml = {}) const;
  kube::ClientConfig admin_config() const;
  std::string dir() const { return dir_.path(); }
  const std::string& etcd_url() const { return etcd_url_; }

  // Service accounts in kube-system, as a scheduler's pod runs under one.
  void create_service_account(const std::string& name) const;
  // Binds it to the bootstrap ClusterRoles system:kube-scheduler (ClusterRoleBinding `name`) and
  // system:volume-scheduler (`name`-volumes), as kube-scheduler is bound.
  void grant_kube_scheduler_role(const std::string& service_account) const;
  // A token from the TokenRequest API, valid an hour. With bound_secret, the token is bound to
  // a Secret of that name in kube-system (made here): deleting the Secret revokes the token.
  std::string service_account_token(const std::string& name,
                                    const std::string& bound_secret = {}) const;

  // Compacts etcd's history up to its current revision (physically), so a watch from an older
  // resourceVersion that the API server's watch cache does not hold gets 410 Gone. Returns the
  // revision.
  long long compact_etcd();

  // Stops the API server (etcd keeps its data) and starts it again on the same port.
  void stop_apiserver();
  void start_apiserver();

 private:
  void make_certificates();
  void start_etcd();
  std::vector<std::string> apiserver_args() const;

  ControlPlaneBinaries binaries_;
  ScratchDir dir_;
  std::string server_;
  std::string etcd_url_;
  int apiserver_port_ = 0;
  std::string admin_token_;
  std::string kubeconfig_;
  std::unique_ptr<ChildProcess> etcd_;
  std::unique_ptr<ChildProcess> apiserver_;
};

// A free TCP port on 127.0.0.1 (bound to port 0 and released).
int free_loopback_port();

// Runs argv to completion (no shell), returns {exit status, stdout+stderr}.
std::pair<int, std::string> run_command(const std::vector<std::string>& argv);

}  // namespace schedhost::testing

// In a test body: a started control plane, or a skip with the reason (a failure when
// SCHEDHOST_REQUIRE_APISERVER=1). Declares `plane` (std::unique_ptr<ControlPlane>).
#define SCHEDHOST_START_CONTROL_PLANE(plane)                                             \
  std::unique_ptr<::schedhost::testing::ControlPlane> plane;                             \
  {                                                                                      \
    std::string why_;                                                                    \
    auto binaries_ = ::schedhost::testing::find_control_plane(&why_);                    \
    if (!binaries_) {                                                                    \
      if (::schedhost::testing::control_plane_required()) {                              \
        FAIL() << "SCHEDHOST_REQUIRE_APISERVER=1 but " << why_;                          \
      }                                                                                  \
      GTEST_SKIP() << why_;                                                              \
    }                                                                                    \
    plane = std::make_unique<::schedhost::testing::ControlPlane>(std::move(*binaries_)); \
  }
