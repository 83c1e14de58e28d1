// The control plane the live tests run against, on its own (no schedhost serve): etcd and the
// real kube-apiserver start, say which version they are, and take a node, a pod and a binding
// through schedhost's own API client.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <thread>

#include "kube/api_client.hpp"
#include "kube/kubeconfig.hpp"
#include "live/control_plane.hpp"

namespace schedhost::testing {
namespace {

using nlohmann::json;

json ready_node(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", {{"kubernetes.io/hostname", name}}}}},
          {"status",
           {{"capacity", {{"cpu", "4"}, {"memory", "32Gi"}, {"pods", "110"}}},
            {"allocatable", {{"cpu", "4"}, {"memory", "32Gi"}, {"pods", "110"}}}}}};
}

TEST(ControlPlane, ServesV135AndBindsAPodThroughTheBindingSubresource) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  std::cout << "control plane: kube-apiserver " << plane->binaries().version << " from "
            << plane->binaries().source << ", etcd " << plane->binaries().etcd << "\n";
  kube::ApiClient client(plane->admin_config());

  const json version = client.get("/version");
  const std::string git_version = version.value("gitVersion", "");
  if (plane->binaries().source.find("make controlplane") != std::string::npos ||
      control_plane_required()) {
    // The project's own build is v1.35; CI (SCHEDHOST_REQUIRE_APISERVER=1) must run on it.
    EXPECT_EQ(git_version.rfind("v1.35.", 0), 0u) << git_version;
    EXPECT_EQ(version.value("major", ""), "1");
    EXPECT_EQ(version.value("minor", ""), "35");
  }
  EXPECT_EQ(git_version, plane->binaries().version);
  if (git_version.rfind("v1.35.", 0) == 0) {
    // The API groups later live tests need are served: dynamic resource allocation is GA.
    const json dra = client.get("/apis/resource.k8s.io/v1");
    std::vector<std::string> kinds;
    for (const json& r : dra["resources"])
      kinds.push_back(r["name"]);
    EXPECT_NE(std::find(kinds.begin(), kinds.end(), "resourceclaims"), kinds.end()) << dra.dump();
  }

  // A node, made Ready through the status subresource (the create drops status).
  const json created = client.create("/api/v1/nodes", ready_node("node-a"));
  EXPECT_EQ(created["metadata"]["name"], "node-a");
  json status_patch = {
      {"status",
       {{"conditions",
         json::array({{{"type", "Ready"}, {"status", "True"}, {"reason", "KubeletReady"}}})},
        {"capacity", {{"cpu", "4"}, {"memory", "32Gi"}, {"pods", "110"}}},
        {"allocatable", {{"cpu", "4"}, {"memory", "32Gi"}, {"pods", "110"}}}}}};
  client.patch("/api/v1/nodes/node-a/status", status_patch, kube::PatchType::StrategicMerge);
  const json node = client.get("/api/v1/nodes/node-a");
  ASSERT_EQ(node["status"]["conditions"].size(), 1u);
  EXPECT_EQ(node["status"]["conditions"][0]["type"], "Ready");
  EXPECT_EQ(node["status"]["allocatable"]["cpu"], "4");

  // A pending pod, then its binding.
  const json pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", "web-1"}, {"namespace", "default"}}},
      {"spec",
       {{"containers", json::array({{{"name", "app"},
                                     {"image", "registry.k8s.io/pause:3.10"},
                                     {"resources", {{"requests", {{"cpu", "500m"}}}}}}})}}}};
  const json pending = client.create("/api/v1/namespaces/default/pods", pod);
  EXPECT_FALSE(pending["spec"].contains("nodeName"));
  EXPECT_EQ(pending["spec"]["schedulerName"], "default-scheduler");  // defaulted by the server
  const std::string uid = pending["metadata"]["uid"];

  const json binding = {{"apiVersion", "v1"},
                        {"kind", "Binding"},
                        {"metadata", {{"name", "web-1"}, {"namespace", "default"}, {"uid", uid}}},
                        {"target", {{"kind", "Node"}, {"name", "node-a"}}}};
  client.create("/api/v1/namespaces/default/pods/web-1/binding", binding);

  const json bound = client.get("/api/v1/namespaces/default/pods/web-1");
  EXPECT_EQ(bound["spec"]["nodeName"], "node-a");
  bool scheduled_condition = false;
  for (const json& c : bound["status"]["conditions"]) {
    if (c["type"] == "PodScheduled" && c["status"] == "True") scheduled_condition = true;
  }
  EXPECT_TRUE(scheduled_condition) << bound["status"].dump();

  // A second binding of the same pod is refused with 409, as a racing scheduler would see it.
  try {
    client.create("/api/v1/namespaces/default/pods/web-1/binding", binding);
    ADD_FAILURE() << "a second binding was accepted";
  } catch (const kube::ApiError& e) {
    EXPECT_EQ(e.code(), 409) << e.what();
    EXPECT_EQ(e.reason(), "Conflict");
    EXPECT_NE(e.message().find("is already assigned to node \"node-a\""), std::string::npos)
        << e.message();
  }

  // A missing object is a 404 with the server's NotFound status.
  try {
    client.get("/api/v1/namespaces/default/pods/nope");
    ADD_FAILURE() << "a missing pod was found";
  } catch (const kube::ApiError& e) {
    EXPECT_EQ(e.code(), 404);
    EXPECT_EQ(e.reason(), "NotFound");
    EXPECT_EQ(std::string(e.what()),
              "GET /api/v1/namespaces/default/pods/nope: 404 NotFound: pods \"nope\" not found");
  }
}

TEST(ControlPlane, AClientCertificateFromTheKubeconfigAuthenticates) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  // Paths relative to the kubeconfig's folder, as kubectl reads them.
  kube::ApiClient client(kube::load_kubeconfig(plane->client_cert_kubeconfig()));
  // system:masters may list nodes; an anonymous request may not.
  EXPECT_TRUE(client.get("/api/v1/nodes")["items"].is_array());

  kube::ClientConfig anonymous = plane->admin_config();
  anonymous.token.clear();
  kube::ApiClient nobody(anonymous);
  try {
    nobody.get("/api/v1/nodes");
    ADD_FAILURE() << "an anonymous request listed nodes";
  } catch (const kube::ApiError& e) {
    EXPECT_TRUE(e.code() == 401 || e.code() == 403) << e.what();
  }
}

TEST(ControlPlane, ATokenFileIsReadAgainWhenItChanges) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  const std::string token_file = plane->dir() + "/token";
  std::ofstream(token_file) << plane->admin_token() << "\n";
  kube::ClientConfig config = plane->admin_config();
  config.token.clear();
  config.token_file = token_file;
  kube::ApiClient client(config);
  EXPECT_TRUE(client.get("/api/v1/nodes")["items"].is_array());

  // Rotated to a token the server does not know: refused. Then to the right one again. The
  // file is checked at most once a second.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  std::ofstream(token_file) << "not-a-token-the-server-knows\n";
  try {
    client.get("/api/v1/nodes");
    ADD_FAILURE() << "the old token was still sent";
  } catch (const kube::ApiError& e) {
    EXPECT_EQ(e.code(), 401) << e.what();
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  std::ofstream(token_file) << plane->admin_token() << "\n";
  EXPECT_TRUE(client.get("/api/v1/nodes")["items"].is_array());
}

TEST(ControlPlane, TheAdminKubeconfigIsReadAsKubectlReadsIt) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  const kube::ClientConfig config = kube::load_kubeconfig(plane->kubeconfig());
  EXPECT_EQ(config.server, plane->server());
  EXPECT_EQ(config.token, plane->admin_token());
  kube::ApiClient client(config);
  EXPECT_EQ(client.get("/version").value("gitVersion", ""), plane->binaries().version);
  if (!plane->binaries().kubectl.empty()) {
    auto [rc, out] = run_command({plane->binaries().kubectl, "--kubeconfig", plane->kubeconfig(),
                                  "get", "namespaces", "-o", "name"});
    EXPECT_EQ(rc, 0) << out;
    EXPECT_NE(out.find("namespace/default"), std::string::npos) << out;
  }
}

TEST(ControlPlane, AServerWithAnotherCaIsRefusedWithTheTlsReason) {
  SCHEDHOST_START_CONTROL_PLANE(plane);
  kube::ClientConfig config = plane->admin_config();
  config.ca_pem.clear();  // the system trust store does not know the test CA
  kube::ApiClient client(config);
  try {
    client.get("/version");
    ADD_FAILURE() << "an unverified server was trusted";
  } catch (const kube::ApiError& e) {
    EXPECT_EQ(e.code(), 0);
    EXPECT_NE(std::string(e.what()).find("SSL certificate problem"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace schedhost::testing
