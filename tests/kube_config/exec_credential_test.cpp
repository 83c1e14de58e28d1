#include "kube/exec_credential.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kube/kubeconfig.hpp"
#include "temp_dir.hpp"

namespace schedhost::kube {
namespace {

using testing::error_of;
using testing::ScopedEnv;
using testing::TempDir;

constexpr const char* kV1 = "client.authentication.k8s.io/v1";

struct ExecCredentialTest : ::testing::Test {
  // A plugin running `body` as a shell script.
  ExecCredentialPlugin script(const std::string& body) {
    ExecCredentialPlugin plugin;
    plugin.command = dir.write("plugin-" + std::to_string(++count) + ".sh",
                               "#!/bin/sh\n" + body + "\n", /*executable=*/true);
    plugin.api_version = kV1;
    return plugin;
  }
  // A plugin printing an ExecCredential whose status is `status` (JSON).
  ExecCredentialPlugin printing(const std::string& status) {
    return script("cat <<'EOF'\n{\"kind\":\"ExecCredential\",\"apiVersion\":\"" + std::string(kV1) +
                  "\",\"status\":" + status + "}\nEOF");
  }
  std::string run_error(const ExecCredentialPlugin& plugin,
                        std::chrono::milliseconds timeout = kExecCredentialTimeout) {
    return error_of<std::runtime_error>(
        [&] { run_exec_credential(plugin, "https://k:6443", "", timeout); });
  }
  // The message prefix naming the plugin.
  static std::string named(const ExecCredentialPlugin& plugin) {
    return "exec credential plugin \"" + plugin.command + "\": ";
  }

  TempDir dir;
  int count = 0;
};

TEST_F(ExecCredentialTest, TokenWithExpiry) {
  const ExecCredentialPlugin plugin =
      printing(R"({"token":"tok-123","expirationTimestamp":"2024-01-02T03:04:05Z"})");
  const ExecCredential credential = run_exec_credential(plugin, "https://k:6443", "");
  EXPECT_EQ(credential.token, "tok-123");
  EXPECT_EQ(credential.client_cert_pem, "");
  EXPECT_EQ(credential.client_key_pem, "");
  ASSERT_TRUE(credential.expiry.has_value());
  EXPECT_EQ(credential.expiry->time_since_epoch(), std::chrono::seconds(1704164645));
}

TEST_F(ExecCredentialTest, ClientCertificateWithoutExpiry) {
  const ExecCredentialPlugin plugin = printing(
      R"({"clientCertificateData":"-----BEGIN CERTIFICATE-----\nC\n-----END CERTIFICATE-----\n",)"
      R"("clientKeyData":"-----BEGIN PRIVATE KEY-----\nK\n-----END PRIVATE KEY-----\n"})");
  const ExecCredential credential = run_exec_credential(plugin, "https://k:6443", "");
  EXPECT_EQ(credential.token, "");
  EXPECT_EQ(credential.client_cert_pem,
            "-----BEGIN CERTIFICATE-----\nC\n-----END CERTIFICATE-----\n");
  EXPECT_EQ(credential.client_key_pem,
            "-----BEGIN PRIVATE KEY-----\nK\n-----END PRIVATE KEY-----\n");
  EXPECT_FALSE(credential.expiry.has_value());
}

// The plugin answers KUBERNETES_EXEC_INFO, base64-encoded, as its token.
constexpr const char* kEchoExecInfo =
    "printf '{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\","
    "\"status\":{\"token\":\"%s\"}}' \"$(printf %s \"$KUBERNETES_EXEC_INFO\" | base64 -w0)\"";

TEST_F(ExecCredentialTest, ExecInfoReachesThePlugin) {
  ExecCredentialPlugin plugin = script(kEchoExecInfo);
  std::string token = run_exec_credential(plugin, "https://k:6443", "CA PEM").token;
  EXPECT_EQ(decode_base64(token),
            R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
            R"("spec":{"interactive":false}})");

  plugin.provide_cluster_info = true;
  token = run_exec_credential(plugin, "https://k:6443", "CA PEM").token;
  EXPECT_EQ(
      decode_base64(token),
      R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
      R"("spec":{"cluster":{"server":"https://k:6443","certificate-authority-data":"Q0EgUEVN"},)"
      R"("interactive":false}})");
}

TEST_F(ExecCredentialTest, EnvArgsAndStdin) {
  ScopedEnv inherited("SCHEDHOST_TEST_INHERITED", "from-parent");
  ScopedEnv replaced("SCHEDHOST_TEST_REPLACED", "old");
  ExecCredentialPlugin plugin = script(
      "in=$(cat | wc -c)\n"
      "printf '{\"kind\":\"ExecCredential\",\"apiVersion\":\"%s\",\"status\":{\"token\":\"%s\"}}' "
      "\"client.authentication.k8s.io/v1\" \"$1|$2|$#|$SCHEDHOST_TEST_INHERITED|"
      "$SCHEDHOST_TEST_REPLACED|$ADDED|stdin=$in\"");
  plugin.args = {"first arg", ""};
  plugin.env = {{"SCHEDHOST_TEST_REPLACED", "new"}, {"ADDED", "a=b"}};
  EXPECT_EQ(run_exec_credential(plugin, "https://k:6443", "").token,
            "first arg||2|from-parent|new|a=b|stdin=0");
}

TEST_F(ExecCredentialTest, BareCommandIsLookedUpInPath) {
  ExecCredentialPlugin plugin = printing(R"({"token":"from-path"})");
  const std::filesystem::path path(plugin.command);
  ScopedEnv env_path("PATH", (path.parent_path().string() + ":/usr/bin:/bin").c_str());
  plugin.command = path.filename().string();
  EXPECT_EQ(run_exec_credential(plugin, "https://k:6443", "").token, "from-path");
}

TEST_F(ExecCredentialTest, ExitCodeAndStderr) {
  const ExecCredentialPlugin plugin =
      script("echo '' >&2\necho '  access   denied: no SSO session  ' >&2\necho more >&2\nexit 3");
  EXPECT_EQ(run_error(plugin), named(plugin) + "exit code 3: access denied: no SSO session");
  const ExecCredentialPlugin quiet = script("exit 1");
  EXPECT_EQ(run_error(quiet), named(quiet) + "exit code 1 (and nothing on stderr)");
  const ExecCredentialPlugin killed = script("kill -TERM $$");
  EXPECT_EQ(run_error(killed), named(killed) + "killed by signal 15 (Terminated)");
}

TEST_F(ExecCredentialTest, GarbageOutput) {
  const ExecCredentialPlugin plugin = script("echo 'Please log in first'");
  EXPECT_THAT(
      run_error(plugin),
      ::testing::StartsWith(named(plugin) + "its output is not JSON (parse error at line 1, "
                                            "column 1: syntax error while parsing value"));
  EXPECT_THAT(run_error(plugin), ::testing::EndsWith("): the plugin must print an ExecCredential"));
  const ExecCredentialPlugin nothing = script("true");
  EXPECT_THAT(run_error(nothing),
              ::testing::StartsWith(named(nothing) + "its output is not JSON (parse error"));
  const ExecCredentialPlugin array = script("echo '[1]'");
  EXPECT_EQ(run_error(array),
            named(array) + "its output is not a JSON object: it must be an ExecCredential");
}

TEST_F(ExecCredentialTest, NotAnExecCredential) {
  const ExecCredentialPlugin kind = script(R"(echo '{"kind":"Status","apiVersion":"v1"}')");
  EXPECT_EQ(run_error(kind), named(kind) + "its output has kind \"Status\", not ExecCredential");

  const ExecCredentialPlugin version = script(
      R"(echo '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1",)"
      R"("status":{"token":"t"}}')");
  EXPECT_EQ(run_error(version),
            named(version) +
                "its output has apiVersion \"client.authentication.k8s.io/v1beta1\", but the "
                "kubeconfig asks for \"client.authentication.k8s.io/v1\": set exec.apiVersion to "
                "the version the plugin prints");

  const ExecCredentialPlugin no_status =
      script(R"(echo '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1"}')");
  EXPECT_EQ(run_error(no_status),
            named(no_status) +
                "its output has no status: the plugin must print status.token or a client "
                "certificate");

  const ExecCredentialPlugin empty = printing("{}");
  EXPECT_EQ(run_error(empty),
            named(empty) +
                "its output has neither status.token nor status.clientCertificateData and "
                "status.clientKeyData");

  const ExecCredentialPlugin cert_only = printing(R"({"clientCertificateData":"C"})");
  EXPECT_EQ(run_error(cert_only),
            named(cert_only) +
                "its output has status.clientCertificateData without status.clientKeyData");

  const ExecCredentialPlugin number = printing(R"({"token":42})");
  EXPECT_EQ(run_error(number), named(number) + "status.token must be a string, got 42");

  const ExecCredentialPlugin expiry = printing(R"({"token":"t","expirationTimestamp":"tomorrow"})");
  EXPECT_EQ(run_error(expiry),
            named(expiry) +
                "its status.expirationTimestamp \"tomorrow\" is not an RFC 3339 time such as "
                "2024-01-02T03:04:05Z");
}

TEST_F(ExecCredentialTest, MissingCommandGivesTheInstallHint) {
  ExecCredentialPlugin plugin;
  plugin.command = "schedhost-test-no-such-plugin";
  plugin.api_version = kV1;
  plugin.install_hint = "Install it:\n  brew install\tno-such-plugin\n";
  EXPECT_EQ(run_error(plugin),
            "exec credential plugin \"schedhost-test-no-such-plugin\": cannot run it: No such "
            "file or directory: Install it: brew install no-such-plugin");
  plugin.install_hint = "";
  plugin.command = dir.str() + "/missing";
  EXPECT_EQ(run_error(plugin), "exec credential plugin \"" + dir.str() +
                                   "/missing\": cannot run it: No such file or directory: "
                                   "install it, or fix the user's exec.command in the kubeconfig");
  plugin.command = dir.write("not-executable", "#!/bin/sh\n");
  EXPECT_EQ(run_error(plugin), "exec credential plugin \"" + plugin.command +
                                   "\": cannot run it: Permission denied: install it, or fix the "
                                   "user's exec.command in the kubeconfig");
}

TEST_F(ExecCredentialTest, TimeoutKillsThePlugin) {
  const ExecCredentialPlugin plugin = script("echo waiting for the browser >&2\nsleep 20\necho {}");
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(run_error(plugin, std::chrono::milliseconds(300)),
            named(plugin) +
                "gave no credential within 300 ms, so it was killed: waiting for the "
                "browser");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));

  // Its stdout closed, still running: the deadline still holds.
  const ExecCredentialPlugin lingering = script("exec >&- 2>&-\nsleep 20");
  EXPECT_EQ(run_error(lingering, std::chrono::seconds(1)),
            named(lingering) + "gave no credential within 1 s, so it was killed");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(8));
}

TEST_F(ExecCredentialTest, OutputIsCapped) {
  const ExecCredentialPlugin plugin = script("head -c 2000000 /dev/zero");
  EXPECT_EQ(run_error(plugin),
            named(plugin) + "printed more than 1 MiB: is it an exec credential plugin?");
}

}  // namespace
}  // namespace schedhost::kube
