// Which API server `schedhost serve` talks to, and how fast: clientConnection.kubeconfig, then
// --kubeconfig, then the in-cluster configuration, then $KUBECONFIG / ~/.kube/config; and
// clientConnection's qps, burst and content types. No server: temporary kubeconfig files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "common/input_error.hpp"
#include "config/config_parser.hpp"
#include "kube/in_cluster_config.hpp"
#include "kube_config/temp_dir.hpp"
#include "live/connection.hpp"

namespace schedhost::live {
namespace {

namespace fs = std::filesystem;
using kube::testing::error_of;
using kube::testing::ScopedEnv;
using kube::testing::TempDir;

std::string kubeconfig_text(const std::string& server) {
  return "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
         "clusters:\n- name: k\n  cluster:\n    server: " +
         server +
         "\n    insecure-skip-tls-verify: true\n"
         "contexts:\n- name: c\n  context: {cluster: k, user: u}\n"
         "users:\n- name: u\n  user:\n    token: t\n";
}

// A KubeSchedulerConfiguration with clientConnection lines (indented by the caller) after line 2.
config::SchedulerConfiguration configuration(const std::string& client_connection = "") {
  std::string text =
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";
  if (!client_connection.empty()) text += "clientConnection:\n" + client_connection;
  return config::parse_configuration(text, "sched.yaml");
}

// The working directory changed for one test.
class ScopedCwd {
 public:
  explicit ScopedCwd(const fs::path& dir) : old_(fs::current_path()) { fs::current_path(dir); }
  ScopedCwd(const ScopedCwd&) = delete;
  ScopedCwd& operator=(const ScopedCwd&) = delete;
  ~ScopedCwd() { fs::current_path(old_); }

 private:
  fs::path old_;
};

// Each test starts off-cluster, with no $KUBECONFIG and an empty home.
struct ResolveClientConfigTest : ::testing::Test {
  std::string write_kubeconfig(const std::string& name, const std::string& server) {
    return dir.write(name, kubeconfig_text(server));
  }
  std::string source_of(const std::string& path) {
    return "kubeconfig " + fs::weakly_canonical(path).string() + " (context c)";
  }

  TempDir dir;
  TempDir home;
  ScopedEnv kubeconfig_env{"KUBECONFIG", nullptr};
  ScopedEnv home_env{"HOME", home.str().c_str()};
  ScopedEnv service_host{"KUBERNETES_SERVICE_HOST", nullptr};
  ScopedEnv service_port{"KUBERNETES_SERVICE_PORT", nullptr};
};

TEST_F(ResolveClientConfigTest, ClientConnectionKubeconfigComesFirst) {
  const std::string from_config = write_kubeconfig("config.kubeconfig", "https://config:6443");
  const std::string from_flag = write_kubeconfig("flag.kubeconfig", "https://flag:6443");
  const std::string from_env = write_kubeconfig("env.kubeconfig", "https://env:6443");
  ScopedEnv env("KUBECONFIG", from_env.c_str());
  ScopedEnv host("KUBERNETES_SERVICE_HOST", "10.96.0.1");
  ScopedEnv port("KUBERNETES_SERVICE_PORT", "443");
  const kube::ClientConfig c =
      resolve_client_config(configuration("  kubeconfig: " + from_config + "\n"), from_flag);
  EXPECT_EQ(c.server, "https://config:6443");
  EXPECT_EQ(c.source, source_of(from_config));
}

TEST_F(ResolveClientConfigTest, TheFlagComesBeforeInClusterAndTheEnvironment) {
  const std::string from_flag = write_kubeconfig("flag.kubeconfig", "https://flag:6443");
  const std::string from_env = write_kubeconfig("env.kubeconfig", "https://env:6443");
  ScopedEnv env("KUBECONFIG", from_env.c_str());
  ScopedEnv host("KUBERNETES_SERVICE_HOST", "10.96.0.1");
  ScopedEnv port("KUBERNETES_SERVICE_PORT", "443");
  const kube::ClientConfig c = resolve_client_config(configuration(), from_flag);
  EXPECT_EQ(c.server, "https://flag:6443");
  EXPECT_EQ(c.source, source_of(from_flag));
}

TEST_F(ResolveClientConfigTest, InClusterComesBeforeTheKubeconfigVariable) {
  const std::string from_env = write_kubeconfig("env.kubeconfig", "https://env:6443");
  ScopedEnv env("KUBECONFIG", from_env.c_str());
  ScopedEnv host("KUBERNETES_SERVICE_HOST", "10.96.0.1");
  ScopedEnv port("KUBERNETES_SERVICE_PORT", "443");
  const std::string token = std::string(kube::kServiceAccountDir) + "/token";
  if (fs::exists(token)) {  // this test runs in a pod
    EXPECT_EQ(resolve_client_config(configuration(), "").source, "in-cluster service account");
  } else {
    // The service account's files are looked for: in-cluster was chosen, not $KUBECONFIG.
    EXPECT_EQ(error_of<InputError>([&] { resolve_client_config(configuration(), ""); }),
              "unable to load in-cluster configuration: " + token +
                  ": No such file or directory: mount the pod's service account token "
                  "(automountServiceAccountToken), or pass --kubeconfig");
  }
}

TEST_F(ResolveClientConfigTest, ThenTheKubeconfigVariableThenTheHomeKubeconfig) {
  const std::string from_home = home.write(".kube/config", kubeconfig_text("https://home:6443"));
  EXPECT_EQ(resolve_client_config(configuration(), "").server, "https://home:6443");

  const std::string from_env = write_kubeconfig("env.kubeconfig", "https://env:6443");
  ScopedEnv env("KUBECONFIG", from_env.c_str());
  const kube::ClientConfig c = resolve_client_config(configuration(), "");
  EXPECT_EQ(c.server, "https://env:6443");
  EXPECT_EQ(c.source, source_of(from_env));
}

TEST_F(ResolveClientConfigTest, NoServerAnywhere) {
  EXPECT_EQ(error_of<InputError>([&] { resolve_client_config(configuration(), ""); }),
            "no API server to talk to: pass --kubeconfig FILE, set clientConnection.kubeconfig "
            "in sched.yaml, or run in a pod (in-cluster configuration)");
}

TEST_F(ResolveClientConfigTest, ARelativeClientConnectionKubeconfigIsReadFromTheWorkingDirectory) {
  // As kube-scheduler: relative to where it runs, not to the config file.
  TempDir cwd;
  cwd.write("cluster.kubeconfig", kubeconfig_text("https://cwd:6443"));
  write_kubeconfig("cluster.kubeconfig", "https://beside-the-config:6443");
  const config::SchedulerConfiguration cfg = configuration("  kubeconfig: cluster.kubeconfig\n");
  {
    ScopedCwd in(cwd.path());
    EXPECT_EQ(resolve_client_config(cfg, "").server, "https://cwd:6443");
  }
  ScopedCwd in(home.path());
  EXPECT_EQ(error_of<InputError>([&] { resolve_client_config(cfg, ""); }),
            "sched.yaml:4:3: clientConnection.kubeconfig \"cluster.kubeconfig\" does not exist "
            "in the working directory " +
                fs::current_path().string() +
                " (a relative path is read from there, as kube-scheduler reads it): give its "
                "absolute path");
}

TEST_F(ResolveClientConfigTest, AnUnreadableKubeconfigIsTheLoadersError) {
  const std::string missing = dir.str() + "/missing.kubeconfig";
  EXPECT_EQ(error_of<InputError>([&] { resolve_client_config(configuration(), missing); }),
            missing + ": cannot read the kubeconfig: No such file or directory");
}

TEST_F(ResolveClientConfigTest, QpsAndBurstDefaultToKubeSchedulers) {
  const std::string flag = write_kubeconfig("flag.kubeconfig", "https://flag:6443");
  kube::ClientConfig c = resolve_client_config(configuration(), flag);
  EXPECT_EQ(c.qps, 50);
  EXPECT_EQ(c.burst, 100);
  EXPECT_EQ(c.content_type, "application/json");

  c = resolve_client_config(configuration("  qps: 0\n  burst: 0\n"), flag);  // 0: the default
  EXPECT_EQ(c.qps, 50);
  EXPECT_EQ(c.burst, 100);
}

TEST_F(ResolveClientConfigTest, QpsAndBurstAreApplied) {
  const std::string flag = write_kubeconfig("flag.kubeconfig", "https://flag:6443");
  kube::ClientConfig c = resolve_client_config(configuration("  qps: 12.5\n  burst: 7\n"), flag);
  EXPECT_EQ(c.qps, 12.5);
  EXPECT_EQ(c.burst, 7);
  // Upstream does not reject a negative qps: client-go then does not rate limit.
  c = resolve_client_config(configuration("  qps: -1\n"), flag);
  EXPECT_EQ(c.qps, -1);
  EXPECT_EQ(c.burst, 100);
}

TEST_F(ResolveClientConfigTest, ANegativeBurstIsRefusedAtItsBlock) {
  const std::string flag = write_kubeconfig("flag.kubeconfig", "https://flag:6443");
  EXPECT_EQ(error_of<InputError>(
                [&] { resolve_client_config(configuration("  qps: 10\n  burst: -5\n"), flag); }),
            "sched.yaml:4:3: clientConnection.burst -5 is not valid: it must be non-negative (0 "
            "or unset means the default, 100)");
  EXPECT_EQ(
      error_of<InputError>([&] { resolve_client_config(configuration("  qps: .inf\n"), flag); }),
      "sched.yaml:4:3: clientConnection.qps is not a finite number: set a number of "
      "requests per second (the default is 50)");
}

TEST_F(ResolveClientConfigTest, ContentTypesTheClientCanSendAreSentAsJson) {
  const std::string flag = write_kubeconfig("flag.kubeconfig", "https://flag:6443");
  for (const std::string type :
       {"application/vnd.kubernetes.protobuf", "application/json", "application/yaml"}) {
    const kube::ClientConfig c = resolve_client_config(
        configuration("  contentType: " + type +
                      "\n  acceptContentTypes: application/vnd.kubernetes.protobuf,"
                      "application/json\n"),
        flag);
    EXPECT_EQ(c.content_type, "application/json") << type;
  }
  EXPECT_EQ(error_of<InputError>(
                [&] { resolve_client_config(configuration("  contentType: text/plain\n"), flag); }),
            "sched.yaml:4:3: clientConnection.contentType \"text/plain\" is not a type the client "
            "can send: use application/json or application/vnd.kubernetes.protobuf (schedhost "
            "sends JSON either way)");
}

TEST_F(ResolveClientConfigTest, TheConfigurationIsCheckedBeforeAnyKubeconfigIsRead) {
  EXPECT_EQ(error_of<InputError>([&] {
              resolve_client_config(configuration("  burst: -1\n"), dir.str() + "/missing");
            }),
            "sched.yaml:4:3: clientConnection.burst -1 is not valid: it must be non-negative (0 "
            "or unset means the default, 100)");
}

}  // namespace
}  // namespace schedhost::live
