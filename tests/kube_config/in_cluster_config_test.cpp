#include "kube/in_cluster_config.hpp"

#include <gtest/gtest.h>

#include "common/input_error.hpp"
#include "temp_dir.hpp"

namespace schedhost::kube {
namespace {

using testing::error_of;
using testing::ScopedEnv;
using testing::TempDir;

const std::string kInClusterCaPem =
    "-----BEGIN CERTIFICATE-----\nMIIBca\n-----END CERTIFICATE-----\n";

// A service account directory as the kubelet mounts it.
struct InClusterTest : ::testing::Test {
  InClusterTest() {
    dir.write("token", "eyJhbGciOi.token");
    dir.write("ca.crt", kInClusterCaPem);
    dir.write("namespace", "kube-system\n");
  }
  std::string load_error() {
    return error_of<InputError>([&] { load_in_cluster_config(dir.str()); });
  }

  TempDir dir;
  ScopedEnv pod_namespace{"POD_NAMESPACE", nullptr};
};

TEST_F(InClusterTest, ServiceAccount) {
  ScopedEnv host("KUBERNETES_SERVICE_HOST", "10.96.0.1");
  ScopedEnv port("KUBERNETES_SERVICE_PORT", "443");
  const ClientConfig config = load_in_cluster_config(dir.str());
  EXPECT_EQ(config.server, "https://10.96.0.1:443");
  EXPECT_EQ(config.token_file, dir.str() + "/token");
  EXPECT_EQ(config.token, "");  // the client reads the file (it rotates)
  EXPECT_EQ(config.ca_pem, kInClusterCaPem);
  EXPECT_EQ(config.namespace_, "kube-system");
  EXPECT_EQ(config.source, "in-cluster service account");
  EXPECT_FALSE(config.insecure_skip_tls_verify);
  EXPECT_FALSE(config.exec.has_value());
}

TEST_F(InClusterTest, Ipv6HostIsBracketed) {
  ScopedEnv host("KUBERNETES_SERVICE_HOST", "fd00:10:96::1");
  ScopedEnv port("KUBERNETES_SERVICE_PORT", "6443");
  EXPECT_EQ(load_in_cluster_config(dir.str()).server, "https://[fd00:10:96::1]:6443");
}

TEST_F(InClusterTest, VariablesMustBeDefined) {
  const std::string expected =
      "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and "
      "KUBERNETES_SERVICE_PORT must be defined: pass --kubeconfig, or run schedhost in a pod";
  {
    ScopedEnv host("KUBERNETES_SERVICE_HOST", nullptr);
    ScopedEnv port("KUBERNETES_SERVICE_PORT", "443");
    EXPECT_EQ(load_error(), expected);
  }
  {
    ScopedEnv host("KUBERNETES_SERVICE_HOST", "10.96.0.1");
    ScopedEnv port("KUBERNETES_SERVICE_PORT", nullptr);
    EXPECT_EQ(load_error(), expected);
  }
  {
    ScopedEnv host("KUBERNETES_SERVICE_HOST", "10.96.0.1");
    ScopedEnv port("KUBERNETES_SERVICE_PORT", "https");
    EXPECT_EQ(load_error(),
              "unable to load in-cluster configuration: KUBERNETES_SERVICE_PORT \"https\" is not "
              "a port number: pass --kubeconfig, or run schedhost in a pod");
  }
}

TEST_F(InClusterTest, EnvironmentIsRestoredAfterScopedEnv) {
  ::setenv("KUBERNETES_SERVICE_HOST", "before", 1);
  { ScopedEnv host("KUBERNETES_SERVICE_HOST", nullptr); }
  EXPECT_STREQ(std::getenv("KUBERNETES_SERVICE_HOST"), "before");
  ::unsetenv("KUBERNETES_SERVICE_HOST");
}

TEST_F(InClusterTest, NamespaceDefaultsAndPodNamespace) {
  ScopedEnv host("KUBERNETES_SERVICE_HOST", "10.96.0.1");
  ScopedEnv port("KUBERNETES_SERVICE_PORT", "443");
  {
    ScopedEnv pod("POD_NAMESPACE", "scheduling");
    EXPECT_EQ(load_in_cluster_config(dir.str()).namespace_, "scheduling");
  }
  std::filesystem::remove(dir.path() / "namespace");
  EXPECT_EQ(load_in_cluster_config(dir.str()).namespace_, "default");
  dir.write("namespace", "  \n");
  EXPECT_EQ(load_in_cluster_config(dir.str()).namespace_, "default");
}

TEST_F(InClusterTest, MissingTokenOrCa) {
  ScopedEnv host("KUBERNETES_SERVICE_HOST", "10.96.0.1");
  ScopedEnv port("KUBERNETES_SERVICE_PORT", "443");
  std::filesystem::remove(dir.path() / "ca.crt");
  EXPECT_EQ(load_error(), "unable to load in-cluster configuration: " + dir.str() +
                              "/ca.crt: No such file or directory: mount the pod's service "
                              "account token (automountServiceAccountToken), or pass --kubeconfig");
  std::filesystem::remove(dir.path() / "token");
  EXPECT_EQ(load_error(), "unable to load in-cluster configuration: " + dir.str() +
                              "/token: No such file or directory: mount the pod's service "
                              "account token (automountServiceAccountToken), or pass --kubeconfig");
}

}  // namespace
}  // namespace schedhost::kube
