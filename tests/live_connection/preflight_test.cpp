// The checks `schedhost serve` makes before it schedules, against the real kube-apiserver: the
// admin passes; a dead address, a certificate from another CA, a wrong token and a service account
// without RBAC each fail with their one line; the bootstrap ClusterRole system:kube-scheduler is
// enough, except for get/update of a Lease not named kube-scheduler.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <thread>

#include "common/input_error.hpp"
#include "kube/api_client.hpp"
#include "kube/kubeconfig.hpp"
#include "kube_config/temp_dir.hpp"
#include "live/connection.hpp"
#include "live/control_plane.hpp"

namespace schedhost::live {
namespace {

namespace fs = std::filesystem;
using kube::testing::error_of;
using nlohmann::json;
using testing::ControlPlane;
using testing::ScratchDir;

// A kubeconfig for server, trusting ca_file (none: no TLS check), with a bearer token.
std::string write_kubeconfig(const ScratchDir& dir, const std::string& name,
                             const std::string& server, const std::string& ca_file,
                             const std::string& token) {
  const std::string tls =
      ca_file.empty() ? "insecure-skip-tls-verify: true" : "certificate-authority: " + ca_file;
  return dir.write(name,
                   "apiVersion: v1\nkind: Config\ncurrent-context: test\n"
                   "clusters:\n- name: test\n  cluster:\n    server: " +
                       server + "\n    " + tls +
                       "\ncontexts:\n- name: test\n  context: {cluster: test, user: u}\n"
                       "users:\n- name: u\n  user:\n    token: " +
                       token + "\n");
}

std::string source_of(const std::string& kubeconfig) {
  return "kubeconfig " + fs::weakly_canonical(kubeconfig).string() + " (context test)";
}

std::string openssl() {
  std::stringstream dirs(std::getenv("PATH") != nullptr ? std::getenv("PATH") : "");
  for (std::string d; std::getline(dirs, d, ':');) {
    if (!d.empty() && fs::exists(d + "/openssl")) return d + "/openssl";
  }
  return "";
}

std::string preflight_error(const kube::ClientConfig& config,
                            const std::optional<LeaseLock>& lease = std::nullopt) {
  kube::ApiClient client(config);
  return error_of<InputError>([&] { preflight(client, lease); });
}

// A service account in kube-system and a token for it (the TokenRequest API).
kube::ClientConfig service_account(const ControlPlane& plane, const std::string& name) {
  plane.create_service_account(name);
  kube::ClientConfig config = plane.admin_config();
  config.token = plane.service_account_token(name);
  config.source = "service account " + name;
  return config;
}

// Retries f until it returns true: RBAC changes reach the authorizer through an informer.
template <typename F>
bool eventually(F f) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (std::chrono::steady_clock::now() < deadline) {
    if (f()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return f();
}

const std::string kServiceAccountUser = "system:serviceaccount:kube-system:schedhost";
const std::string kEveryPermission =
    "list nodes, watch nodes, list pods, watch pods, list namespaces, watch namespaces, list "
    "poddisruptionbudgets.policy, watch poddisruptionbudgets.policy, create pods/binding, patch "
    "pods/status, delete pods, create events.events.k8s.io, patch events.events.k8s.io";
const std::string kBindCommand =
    "kubectl create clusterrolebinding schedhost --clusterrole=system:kube-scheduler "
    "--serviceaccount=kube-system:schedhost";

TEST(Preflight, TheAdminPassesAndLearnsTheServerVersion) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient client(kube::load_kubeconfig(plane->kubeconfig()));
  const ServerInfo info = preflight(client, LeaseLock{});
  EXPECT_EQ(info.version, plane->binaries().version);
  EXPECT_EQ(info.version.rfind("v1.", 0), 0u) << info.version;
  EXPECT_EQ(info.user, "admin");
}

TEST(Preflight, NothingListeningAtTheServerAddress) {
  // No control plane needed: nothing answers on a free port.
  ScratchDir dir;
  const int port = testing::free_loopback_port();
  const std::string server = "https://127.0.0.1:" + std::to_string(port);
  const std::string kubeconfig = write_kubeconfig(dir, "dead.kubeconfig", server, "", "t");
  kube::ClientConfig config = kube::load_kubeconfig(kubeconfig);
  EXPECT_EQ(preflight_error(config),
            "cannot reach the API server at " + server + ": Failed to connect to 127.0.0.1 port " +
                std::to_string(port) +
                ": Couldn't connect to server: check the server address in " +
                source_of(kubeconfig));
}

TEST(Preflight, AServerCertificateFromAnotherCa) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  const std::string tool = openssl();
  ASSERT_FALSE(tool.empty()) << "no openssl on PATH";
  ScratchDir dir;
  auto [rc, out] = testing::run_command({tool, "req", "-x509", "-newkey", "ec", "-pkeyopt",
                                         "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
                                         dir.file("other-ca.key"), "-out", dir.file("other-ca.crt"),
                                         "-days", "1", "-subj", "/CN=another-ca"});
  ASSERT_EQ(rc, 0) << out;
  const std::string kubeconfig = write_kubeconfig(dir, "other-ca.kubeconfig", plane->server(),
                                                  dir.file("other-ca.crt"), plane->admin_token());
  EXPECT_EQ(preflight_error(kube::load_kubeconfig(kubeconfig)),
            "cannot verify the certificate of the API server at " + plane->server() +
                ": SSL certificate problem: unable to get local issuer certificate: set "
                "certificate-authority (or certificate-authority-data) in " +
                source_of(kubeconfig) +
                " to the CA that signed the server's certificate (insecure-skip-tls-verify: true "
                "turns the check off, for a test cluster only)");
}

TEST(Preflight, AWrongToken) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  ScratchDir dir;
  const std::string kubeconfig = write_kubeconfig(dir, "wrong-token.kubeconfig", plane->server(),
                                                  plane->dir() + "/ca.crt", "not-a-known-token");
  EXPECT_EQ(preflight_error(kube::load_kubeconfig(kubeconfig)),
            "the API server refused the credentials of " + source_of(kubeconfig) +
                " (401 Unauthorized): its token is wrong or has expired: replace it (kubectl "
                "create token NAME gives a service account's)");
}

TEST(Preflight, AServiceAccountWithoutRbacMissesEveryPermission) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  const kube::ClientConfig config = service_account(*plane, "schedhost");
  EXPECT_EQ(preflight_error(config),
            "the API server's user \"" + kServiceAccountUser + "\" may not: " + kEveryPermission +
                ": bind it to the ClusterRole system:kube-scheduler (" + kBindCommand + ")");
  // With leader election: the Lease too; system:kube-scheduler grants it for kube-scheduler's.
  EXPECT_EQ(preflight_error(config, LeaseLock{}),
            "the API server's user \"" + kServiceAccountUser + "\" may not: " + kEveryPermission +
                ", get leases.coordination.k8s.io \"kube-scheduler\" in kube-system, create "
                "leases.coordination.k8s.io in kube-system, update leases.coordination.k8s.io "
                "\"kube-scheduler\" in kube-system: bind it to the ClusterRole "
                "system:kube-scheduler (" +
                kBindCommand + ")");
  // Another Lease: the role grants its create, not its get and update.
  EXPECT_EQ(preflight_error(config, LeaseLock{"kube-system", "schedhost"}),
            "the API server's user \"" + kServiceAccountUser + "\" may not: " + kEveryPermission +
                ", get leases.coordination.k8s.io \"schedhost\" in kube-system, create "
                "leases.coordination.k8s.io in kube-system, update leases.coordination.k8s.io "
                "\"schedhost\" in kube-system: bind it to the ClusterRole system:kube-scheduler (" +
                kBindCommand +
                "), and grant it get leases.coordination.k8s.io \"schedhost\" in kube-system, "
                "update leases.coordination.k8s.io \"schedhost\" in kube-system with a Role: that "
                "ClusterRole does not");
}

TEST(Preflight, TheBootstrapKubeSchedulerRoleIsEnough) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  const kube::ClientConfig config = service_account(*plane, "schedhost");
  plane->grant_kube_scheduler_role("schedhost");
  kube::ApiClient client(config);
  std::string last_error;
  const bool passed = eventually([&] {
    last_error = error_of<InputError>([&] { preflight(client, LeaseLock{}); });
    return last_error == "no error";
  });
  ASSERT_TRUE(passed) << last_error;
  const ServerInfo info = preflight(client, LeaseLock{});
  EXPECT_EQ(info.user, kServiceAccountUser);
  EXPECT_EQ(info.version, plane->binaries().version);

  // What the role lacks for us: get and update of a Lease with another name.
  EXPECT_EQ(preflight_error(config, LeaseLock{"kube-system", "schedhost"}),
            "the API server's user \"" + kServiceAccountUser +
                "\" may not: get leases.coordination.k8s.io \"schedhost\" in kube-system, update "
                "leases.coordination.k8s.io \"schedhost\" in kube-system: grant it these with a "
                "Role (the ClusterRole system:kube-scheduler does not)");
}

}  // namespace
}  // namespace schedhost::live
