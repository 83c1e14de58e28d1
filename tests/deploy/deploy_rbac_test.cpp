// The RBAC of deploy/ is exactly what `schedhost serve` needs: the manifests' Namespace,
// ServiceAccount, Role and bindings applied to the real API server (not the Deployment), then
// schedhost run as that ServiceAccount (a token from the TokenRequest API), with the ConfigMap's
// configuration (SamplePlugin, leader election on the manifests' Lease) and the secure port on.
// It must pass its start-up permission checks, schedule, write conditions and events, hold and
// release its Lease, and answer /metrics through delegated authentication (TokenReview and
// SubjectAccessReview made with its own token). A rule missing from deploy/rbac.yaml fails this
// test: without the Role schedhost-leader-election (get/update on the Lease schedhost), or
// without the binding to system:kube-scheduler, serve exits 2 at start naming what it may not do.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "deploy/deploy_support.hpp"

namespace schedhost::testing::deploy_rbac_test {

using deploy::kNamespace;

const std::string kLeasePath =
    "/apis/coordination.k8s.io/v1/namespaces/schedhost-system/leases/schedhost";

// A pod for schedhost's profile.
json schedhost_pod(const std::string& name, const std::string& cpu) {
  json pod = test_pod(name, cpu);
  pod["spec"]["schedulerName"] = "schedhost";
  return pod;
}

// Every rendered object but the workload (the Deployment) and its ConfigMap, as one v1 List.
std::string rbac_objects(const std::vector<json>& objects) {
  json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", json::array()}};
  for (const json& o : objects) {
    if (o["kind"] != "Deployment" && o["kind"] != "ConfigMap") list["items"].push_back(o);
  }
  return list.dump();
}

// A client of serve's secure port on 127.0.0.1 (its certificate is self-signed: not verified).
kube::ApiClient port_client(int port, const std::string& token) {
  kube::ClientConfig c;
  c.server = "https://127.0.0.1:" + std::to_string(port);
  c.insecure_skip_tls_verify = true;
  c.token = token;
  return kube::ApiClient(c);
}

TEST(DeployRbac, ServeRunsAsTheManifestsServiceAccountWithLeaderElectionAndTheSecurePort) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ApiClient admin(plane->admin_config());
  ScratchDir dir;
  const std::vector<json> objects = deploy::render(plane->binaries().kubectl);
  auto [status, out] =
      deploy::kubectl(*plane, {"apply", "-f", dir.write("rbac.json", rbac_objects(objects))});
  ASSERT_EQ(status, 0) << out;

  const json token_request = admin.create(
      "/api/v1/namespaces/" + kNamespace + "/serviceaccounts/" + deploy::kServiceAccount + "/token",
      {{"apiVersion", "authentication.k8s.io/v1"},
       {"kind", "TokenRequest"},
       {"spec", {{"expirationSeconds", 3600}}}});
  const std::string token = token_request["status"]["token"];
  const std::string kubeconfig = plane->write_kubeconfig("schedhost-sa.kubeconfig", plane->server(),
                                                         "    token: " + token + "\n");

  // Two nodes: SamplePlugin passes only n-gpu (gpu-type=nvidia, one free nvidia.com/gpu).
  json gpu = test_node("n-gpu", "2");
  gpu["metadata"]["labels"]["gpu-type"] = "nvidia";
  gpu["status"]["allocatable"]["nvidia.com/gpu"] = "1";
  gpu["status"]["capacity"]["nvidia.com/gpu"] = "1";
  create_node(admin, gpu);
  create_node(admin, test_node("n-cpu", "8"));
  // web-1 and web-2 fit on both; SamplePlugin sends them to n-gpu. big needs more CPU than n-gpu
  // has, and n-cpu is not labelled. other is not schedhost's.
  for (const char* name : {"web-1", "web-2"})
    admin.create(ns_path("default") + "/pods", schedhost_pod(name, "100m"));
  admin.create(ns_path("default") + "/pods", schedhost_pod("big", "4"));
  admin.create(ns_path("default") + "/pods", test_pod("other", "100m"));

  const std::string config = dir.write("config.yaml", deploy::scheduler_config(objects));
  const int port = free_loopback_port();
  ServeProcess serve(*plane, config,
                     {"--plugin-dir", std::string(SCHEDHOST_BINARY_DIR) + "/lib/schedhost/examples",
                      "--bind-address", "127.0.0.1", "--secure-port", std::to_string(port)},
                     kubeconfig);

  // The two dots at the end are upstream's: the FitError's "." after PostFilter's own message.
  const std::string unschedulable =
      "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't have label "
      "gpu-type=nvidia. no new claims to deallocate, preemption: 0/2 nodes are available: 2 "
      "Preemption is not helpful for scheduling.";
  ASSERT_TRUE(eventually([&] {
    if (!serve.process().running()) return true;  // refused at start: a missing rule
    auto live = live_decisions(admin);
    return live["default/web-1"].node == "n-gpu" && live["default/web-2"].node == "n-gpu" &&
           live["default/big"].result == "Unschedulable";
  })) << serve.log();
  ASSERT_TRUE(serve.process().running()) << serve.log();
  auto live = live_decisions(admin);
  EXPECT_EQ(live["default/big"], (Decision{"Unschedulable", "", unschedulable}));
  EXPECT_EQ(live["default/other"], (Decision{"Pending", "", ""}));  // kube-scheduler's pod

  // The events, written with the ServiceAccount's events rules.
  for (const char* name : {"web-1", "web-2"}) {
    std::vector<json> scheduled;
    ASSERT_TRUE(eventually([&] {
      scheduled = events_about(admin, "default", name, "Scheduled");
      return scheduled.size() == 1u;
    })) << name;
    EXPECT_EQ(scheduled[0]["note"],
              "Successfully assigned default/" + std::string(name) + " to n-gpu");
    EXPECT_EQ(scheduled[0]["reportingController"], "schedhost");
  }
  ASSERT_TRUE(eventually([&] { return !first_failure_message(admin, "default", "big").empty(); }));
  EXPECT_EQ(first_failure_message(admin, "default", "big"), unschedulable);

  // The Lease of the manifests, held by this process.
  const json lease = admin.get(kLeasePath);
  const std::string holder = lease["spec"].value("holderIdentity", "");
  char host[256] = {};
  ASSERT_EQ(::gethostname(host, sizeof host - 1), 0);
  EXPECT_EQ(holder.rfind(std::string(host) + "_", 0), 0u) << holder;
  EXPECT_NE(serve.log().find(holder + " became leader"), std::string::npos) << serve.log();

  // The secure port: health for anyone; /metrics for the admin, which schedhost checks with a
  // TokenReview and a SubjectAccessReview made as its ServiceAccount.
  kube::Response r = port_client(port, "").request("GET", "/healthz");
  EXPECT_EQ(r.code, 200);
  EXPECT_EQ(r.body, "ok");
  EXPECT_EQ(port_client(port, "").request("GET", "/readyz").code, 200);
  r = port_client(port, plane->admin_token()).request("GET", "/metrics");
  EXPECT_EQ(r.code, 200) << r.body;
  EXPECT_NE(r.body.find("leader_election_master_status{name=\"schedhost\"} 1"), std::string::npos)
      << r.body;
  r = port_client(port, token).request("GET", "/metrics");  // the ServiceAccount may not read it
  EXPECT_EQ(r.code, 403) << r.body;

  // A clean stop releases the Lease (an update, by the Role).
  const int exit_status = serve.process().stop(20'000);
  EXPECT_TRUE(WIFEXITED(exit_status) && WEXITSTATUS(exit_status) == 0) << serve.log();
  EXPECT_EQ(admin.get(kLeasePath)["spec"].value("holderIdentity", "?"), "") << serve.log();
  EXPECT_EQ(serve.log().find("forbidden"), std::string::npos) << serve.log();
}

}  // namespace schedhost::testing::deploy_rbac_test
