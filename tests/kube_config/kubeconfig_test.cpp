#include "kube/kubeconfig.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/input_error.hpp"
#include "temp_dir.hpp"

namespace schedhost::kube {
namespace {

using testing::error_of;
using testing::ScopedEnv;
using testing::TempDir;

const std::string kCaPem = "-----BEGIN CERTIFICATE-----\nMIIBca\n-----END CERTIFICATE-----\n";
const std::string kCaBase64 =
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJjYQotLS0tLUVORCBDRVJUSUZJQ0FURS0tLS0tCg==";
const std::string kCertPem = "-----BEGIN CERTIFICATE-----\nMIIBclient\n-----END CERTIFICATE-----\n";
const std::string kCertBase64 =
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJjbGllbnQKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=";
const std::string kKeyPem =
    "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIkey\n-----END EC PRIVATE KEY-----\n";
const std::string kKeyBase64 =
    "LS0tLS1CRUdJTiBFQyBQUklWQVRFIEtFWS0tLS0tCk1IY0NBUUVFSWtleQotLS0tLUVORCBFQyBQUklWQVRFIEtFWS0t"
    "LS0tCg==";

// Two contexts: dev (cluster kind, user dev, namespace shop) and prod (cluster prod, user ops).
const std::string kTwoContexts = R"(apiVersion: v1
kind: Config
current-context: dev
contexts:
- name: dev
  context: {cluster: kind, user: dev, namespace: shop}
- name: prod
  context: {cluster: prod, user: ops}
clusters:
- name: kind
  cluster:
    server: https://127.0.0.1:6443/
    insecure-skip-tls-verify: true
- name: prod
  cluster:
    server: https://prod.example.com
    tls-server-name: api.prod.internal
users:
- name: dev
  user: {token: dev-token}
- name: ops
  user: {username: ops, password: secret}
)";

std::string load_error(const std::string& path, const std::string& context = "") {
  return error_of<InputError>([&] { load_kubeconfig(path, context); });
}

// A kubeconfig whose one context "c" uses cluster "k" (server https://k:6443) and user "u".
std::string with_user(const std::string& user_yaml) {
  return "current-context: c\n"
         "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
         "clusters: [{name: k, cluster: {server: 'https://k:6443'}}]\n"
         "users:\n"
         "- name: u\n"
         "  user:\n" +
         user_yaml;
}

// The same with the cluster's fields given.
std::string with_cluster(const std::string& cluster_yaml) {
  return "current-context: c\n"
         "contexts: [{name: c, context: {cluster: k}}]\n"
         "clusters:\n"
         "- name: k\n"
         "  cluster:\n" +
         cluster_yaml;
}

TEST(KubeconfigTest, CurrentContextChoosesClusterUserAndNamespace) {
  TempDir dir;
  const std::string path = dir.write("config", kTwoContexts);
  const ClientConfig config = load_kubeconfig(path);
  EXPECT_EQ(config.server, "https://127.0.0.1:6443");  // trailing '/' stripped
  EXPECT_TRUE(config.insecure_skip_tls_verify);
  EXPECT_EQ(config.tls_server_name, "");
  EXPECT_EQ(config.ca_pem, "");
  EXPECT_EQ(config.token, "dev-token");
  EXPECT_EQ(config.token_file, "");
  EXPECT_EQ(config.username, "");
  EXPECT_FALSE(config.exec.has_value());
  EXPECT_EQ(config.namespace_, "shop");
  EXPECT_EQ(config.source, "kubeconfig " + path + " (context dev)");
}

TEST(KubeconfigTest, ContextOverride) {
  TempDir dir;
  const std::string path = dir.write("config", kTwoContexts);
  const ClientConfig config = load_kubeconfig(path, "prod");
  EXPECT_EQ(config.server, "https://prod.example.com");
  EXPECT_FALSE(config.insecure_skip_tls_verify);
  EXPECT_EQ(config.tls_server_name, "api.prod.internal");
  EXPECT_EQ(config.token, "");
  EXPECT_EQ(config.username, "ops");
  EXPECT_EQ(config.password, "secret");
  EXPECT_EQ(config.namespace_, "default");
  EXPECT_EQ(config.source, "kubeconfig " + path + " (context prod)");
}

TEST(KubeconfigTest, RelativePathIsMadeAbsoluteInSource) {
  TempDir dir;
  dir.write("sub/config", kTwoContexts);
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  std::string source;
  try {
    source = load_kubeconfig("./sub/../sub/config").source;
  } catch (...) {
    std::filesystem::current_path(cwd);
    throw;
  }
  std::filesystem::current_path(cwd);
  EXPECT_EQ(source, "kubeconfig " + dir.str() + "/sub/config (context dev)");
}

TEST(KubeconfigTest, OverrideNamingNoContext) {
  TempDir dir;
  const std::string path = dir.write("config", kTwoContexts);
  EXPECT_EQ(load_error(path, "staging"),
            path +
                ": context \"staging\" (asked for instead of current-context) names no context in "
                "contexts[]: set the context asked for to one of: dev, prod");
}

TEST(KubeconfigTest, CurrentContextNamingNoContext) {
  TempDir dir;
  std::string text = kTwoContexts;
  text.replace(text.find("current-context: dev"), 20, "current-context: qa");
  const std::string path = dir.write("config", text);
  EXPECT_EQ(load_error(path), path +
                                  ":3:18: current-context \"qa\" names no context in contexts[]: "
                                  "set current-context to one of: dev, prod");
}

TEST(KubeconfigTest, CurrentContextNotSet) {
  TempDir dir;
  const std::string path = dir.write("config", "apiVersion: v1\nkind: Config\ncontexts: []\n");
  EXPECT_EQ(load_error(path),
            path + ": current-context is not set: contexts[] is empty: add a context to it");
  const std::string empty = dir.write("empty", "");
  EXPECT_EQ(load_error(empty),
            empty + ": current-context is not set: contexts[] is empty: add a context to it");
}

TEST(KubeconfigTest, ContextNamingNoClusterOrUser) {
  TempDir dir;
  std::string text = kTwoContexts;
  text.replace(text.find("cluster: prod, user: ops"), 24, "cluster: gone, user: ops");
  const std::string no_cluster = dir.write("no_cluster", text);
  EXPECT_EQ(load_error(no_cluster, "prod"),
            no_cluster +
                ":8:22: context \"prod\": cluster \"gone\" names no cluster in clusters[]: set "
                "cluster to one of: kind, prod");

  text = kTwoContexts;
  text.replace(text.find("user: ops}"), 10, "user: root}");
  const std::string no_user = dir.write("no_user", text);
  EXPECT_EQ(load_error(no_user, "prod"),
            no_user +
                ":8:34: context \"prod\": user \"root\" names no user in users[]: set user to one "
                "of: dev, ops");

  const std::string unset =
      dir.write("unset", "current-context: c\ncontexts:\n- name: c\n  context: {namespace: x}\n");
  EXPECT_EQ(load_error(unset),
            unset +
                ":3:3: context \"c\": cluster is not set: clusters[] is empty: add a cluster "
                "to it");
}

TEST(KubeconfigTest, ContextWithoutUserHasNoCredentials) {
  TempDir dir;
  const std::string path = dir.write("config",
                                     "current-context: c\n"
                                     "contexts: [{name: c, context: {cluster: k}}]\n"
                                     "clusters: [{name: k, cluster: {server: 'http://k:8080'}}]\n");
  const ClientConfig config = load_kubeconfig(path);
  EXPECT_EQ(config.server, "http://k:8080");
  EXPECT_EQ(config.token, "");
  EXPECT_EQ(config.client_cert_pem, "");
  EXPECT_FALSE(config.exec.has_value());
}

TEST(KubeconfigTest, DataFieldsAreDecoded) {
  TempDir dir;
  const std::string path = dir.write(
      "config",
      "current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n"
      "clusters:\n- name: k\n  cluster:\n    server: https://k:6443\n"
      "    certificate-authority-data: " +
          kCaBase64 + "\nusers:\n- name: u\n  user:\n    client-certificate-data: " + kCertBase64 +
          "\n    client-key-data: " + kKeyBase64 + "\n");
  const ClientConfig config = load_kubeconfig(path);
  EXPECT_EQ(config.ca_pem, kCaPem);
  EXPECT_EQ(config.client_cert_pem, kCertPem);
  EXPECT_EQ(config.client_key_pem, kKeyPem);
}

TEST(KubeconfigTest, Base64DecodingGivesTheExactBytes) {
  EXPECT_EQ(decode_base64("QUJD"), "ABC");
  EXPECT_EQ(decode_base64("QUI="), "AB");
  EXPECT_EQ(decode_base64("QQ=="), "A");
  EXPECT_EQ(decode_base64(""), "");
  EXPECT_EQ(decode_base64("AAH+/w=="), std::string("\x00\x01\xfe\xff", 4));
  EXPECT_EQ(decode_base64("QUJD\nRA==\n"), "ABCD");  // line breaks are ignored, as Go does
  EXPECT_EQ(decode_base64("QUJD\r\nRA=="), "ABCD");
  EXPECT_EQ(decode_base64("QQ="), std::nullopt);   // wrong length
  EXPECT_EQ(decode_base64("QQ"), std::nullopt);    // padding is required
  EXPECT_EQ(decode_base64("Q=Q="), std::nullopt);  // '=' inside
  EXPECT_EQ(decode_base64("Q==="), std::nullopt);
  EXPECT_EQ(decode_base64("QU D"), std::nullopt);
  EXPECT_EQ(decode_base64("QUJ!"), std::nullopt);
  EXPECT_EQ(decode_base64("QUJD-_=="), std::nullopt);  // the URL alphabet is not accepted

  EXPECT_EQ(encode_base64("ABC"), "QUJD");
  EXPECT_EQ(encode_base64("AB"), "QUI=");
  EXPECT_EQ(encode_base64(std::string("\x00\x01\xfe\xff", 4)), "AAH+/w==");
  EXPECT_EQ(encode_base64(""), "");
}

TEST(KubeconfigTest, BadBase64IsReportedWithLineAndColumn) {
  TempDir dir;
  const std::string path = dir.write("config", with_user("    client-certificate-data: QUJ!\n"
                                                         "    client-key-data: " +
                                                         kKeyBase64 + "\n"));
  EXPECT_EQ(load_error(path),
            path +
                ":7:30: user \"u\": client-certificate-data is not valid base64: give the PEM text "
                "base64-encoded (base64 -w0 FILE), or the file's path in client-certificate");

  const std::string ca = dir.write(
      "ca", with_cluster("    server: https://k:6443\n    certificate-authority-data: QQ=\n"));
  EXPECT_EQ(
      load_error(ca),
      ca + ":7:33: cluster \"k\": certificate-authority-data is not valid base64: give the PEM "
           "text base64-encoded (base64 -w0 FILE), or the file's path in "
           "certificate-authority");
}

TEST(KubeconfigTest, DecodedDataMustBePem) {
  TempDir dir;
  const std::string path = dir.write(
      "config", with_cluster("    server: https://k:6443\n    certificate-authority-data: QUJD\n"));
  EXPECT_EQ(load_error(path),
            path +
                ":7:33: cluster \"k\": certificate-authority-data does not hold a PEM certificate "
                "(no -----BEGIN CERTIFICATE----- line): give certificate in PEM");
}

TEST(KubeconfigTest, PathFieldsAreReadRelativeToTheKubeconfig) {
  TempDir dir;
  dir.write("kube/certs/ca.crt", kCaPem);
  dir.write("keys/client.crt", kCertPem);
  const std::string key = dir.write("elsewhere/client.key", kKeyPem);
  const std::string path =
      dir.write("kube/config",
                "current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n"
                "clusters:\n- name: k\n  cluster:\n    server: https://k:6443\n"
                "    certificate-authority: certs/ca.crt\n"
                "users:\n- name: u\n  user:\n    client-certificate: ../keys/./client.crt\n"
                "    client-key: " +
                    key + "\n");
  const ClientConfig config = load_kubeconfig(path);
  EXPECT_EQ(config.ca_pem, kCaPem);
  EXPECT_EQ(config.client_cert_pem, kCertPem);
  EXPECT_EQ(config.client_key_pem, kKeyPem);
}

TEST(KubeconfigTest, MissingReferencedFile) {
  TempDir dir;
  const std::string path = dir.write(
      "config", with_cluster("    server: https://k:6443\n    certificate-authority: ca.pem\n"));
  EXPECT_EQ(load_error(path),
            path + ":7:28: cluster \"k\": cannot read certificate-authority " + dir.str() +
                "/ca.pem: No such file or directory: fix the path (a relative one is relative to "
                "the kubeconfig's directory), or give the contents base64-encoded in "
                "certificate-authority-data");
}

TEST(KubeconfigTest, DataAndPathBothSet) {
  TempDir dir;
  const std::string path = dir.write(
      "config", with_cluster("    server: https://k:6443\n    certificate-authority: ca.pem\n"
                             "    certificate-authority-data: " +
                             kCaBase64 + "\n"));
  EXPECT_EQ(load_error(path), path +
                                  ":8:33: cluster \"k\": both certificate-authority-data and "
                                  "certificate-authority are set: keep one");
}

TEST(KubeconfigTest, InsecureWithCaIsRefused) {
  TempDir dir;
  const std::string path = dir.write("config", with_cluster("    server: https://k:6443\n"
                                                            "    insecure-skip-tls-verify: true\n"
                                                            "    certificate-authority-data: " +
                                                            kCaBase64 + "\n"));
  EXPECT_EQ(load_error(path),
            path +
                ":7:31: cluster \"k\": insecure-skip-tls-verify is true and a certificate "
                "authority is given: remove one (the server's certificate is either checked "
                "against the CA or not at all)");
  const std::string not_bool =
      dir.write("not_bool",
                with_cluster("    server: https://k:6443\n    insecure-skip-tls-verify: maybe\n"));
  EXPECT_EQ(load_error(not_bool),
            not_bool + ":7:31: cluster \"k\": insecure-skip-tls-verify must be true or false");
}

TEST(KubeconfigTest, ClientCertificateWithoutKey) {
  TempDir dir;
  const std::string path =
      dir.write("config", with_user("    client-certificate-data: " + kCertBase64 + "\n"));
  EXPECT_EQ(load_error(path),
            path +
                ":7:30: user \"u\": a client certificate is given without its key: set "
                "client-key-data or client-key");
}

TEST(KubeconfigTest, AuthProviderIsRefused) {
  TempDir dir;
  const std::string path = dir.write("config", with_user("    auth-provider:\n"
                                                         "      name: gcp\n"
                                                         "      config: {cmd-path: gcloud}\n"));
  EXPECT_EQ(load_error(path),
            path +
                ":7:5: user \"u\": auth-provider is not supported (it was removed from kubectl in "
                "1.26): use an exec credential plugin such as gke-gcloud-auth-plugin");
  const std::string oidc =
      dir.write("oidc", with_user("    auth-provider: {name: oidc, config: {}}\n"));
  EXPECT_EQ(load_error(oidc),
            oidc +
                ":7:5: user \"u\": auth-provider is not supported: use an exec credential plugin "
                "such as kubelogin (kubectl oidc-login)");
}

TEST(KubeconfigTest, ImpersonationIsRefused) {
  TempDir dir;
  const std::string path = dir.write("config", with_user("    token: t\n    as: admin\n"));
  EXPECT_EQ(load_error(path),
            path +
                ":8:9: user \"u\": as (impersonation) is not supported: remove it and use a user "
                "that has the rights itself");
}

TEST(KubeconfigTest, TokenFileIsResolvedButNotRead) {
  TempDir dir;
  dir.write("tokens/sa", "");  // empty: it is not read here
  const std::string path = dir.write("kube/config", with_user("    tokenFile: ../tokens/sa\n"));
  const ClientConfig config = load_kubeconfig(path);
  EXPECT_EQ(config.token_file, dir.str() + "/tokens/sa");
  EXPECT_EQ(config.token, "");

  const std::string missing = dir.write("kube/missing", with_user("    tokenFile: sa-token\n"));
  EXPECT_EQ(load_error(missing),
            missing + ":7:16: user \"u\": tokenFile " + dir.str() +
                "/kube/sa-token: No such file or directory: fix the path (a relative one is "
                "relative to the kubeconfig's directory)");
}

TEST(KubeconfigTest, TokenAndBasicAuthTogetherAreRefused) {
  TempDir dir;
  const std::string path =
      dir.write("config", with_user("    token: t\n    username: admin\n    password: pw\n"));
  EXPECT_EQ(load_error(path),
            path +
                ":8:15: user \"u\": both a token and a username/password are set: keep one "
                "authentication method");
}

TEST(KubeconfigTest, ExecPluginFields) {
  TempDir dir;
  const std::string path =
      dir.write("kube/config", with_user("    exec:\n"
                                         "      apiVersion: client.authentication.k8s.io/v1\n"
                                         "      command: bin/../bin/get-token\n"
                                         "      args: [--region, eu-west-1, '']\n"
                                         "      env:\n"
                                         "      - {name: AWS_PROFILE, value: prod}\n"
                                         "      - {name: EMPTY}\n"
                                         "      installHint: |\n"
                                         "        Install get-token:\n"
                                         "          brew install get-token\n"
                                         "      provideClusterInfo: true\n"
                                         "      interactiveMode: Never\n"));
  const ClientConfig config = load_kubeconfig(path);
  ASSERT_TRUE(config.exec.has_value());
  const ExecCredentialPlugin& exec = *config.exec;
  EXPECT_EQ(exec.command, dir.str() + "/kube/bin/get-token");
  EXPECT_EQ(exec.args, (std::vector<std::string>{"--region", "eu-west-1", ""}));
  EXPECT_EQ(exec.env, (std::vector<std::pair<std::string, std::string>>{{"AWS_PROFILE", "prod"},
                                                                        {"EMPTY", ""}}));
  EXPECT_EQ(exec.api_version, "client.authentication.k8s.io/v1");
  EXPECT_EQ(exec.install_hint, "Install get-token:\n  brew install get-token\n");
  EXPECT_TRUE(exec.provide_cluster_info);
}

TEST(KubeconfigTest, ExecCommandResolution) {
  TempDir dir;
  auto command = [&](const std::string& value) {
    const std::string path = dir.write(
        "kube/config",
        with_user("    exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: '" +
                  value + "'}\n"));
    return load_kubeconfig(path).exec->command;
  };
  EXPECT_EQ(command("aws"), "aws");  // a bare name: looked up in PATH when run
  EXPECT_EQ(command("./plugin"), dir.str() + "/kube/plugin");
  EXPECT_EQ(command("../bin/plugin"), dir.str() + "/bin/plugin");
  EXPECT_EQ(command("/usr/local/bin/aws"), "/usr/local/bin/aws");
}

TEST(KubeconfigTest, ExecPluginErrors) {
  TempDir dir;
  const std::string old =
      dir.write("old", with_user("    exec:\n"
                                 "      apiVersion: client.authentication.k8s.io/v1alpha1\n"
                                 "      command: aws\n"));
  EXPECT_EQ(load_error(old),
            old +
                ":8:19: user \"u\": exec.apiVersion \"client.authentication.k8s.io/v1alpha1\" is "
                "not supported: use client.authentication.k8s.io/v1 (or v1beta1)");

  const std::string no_command =
      dir.write("no_command", with_user("    exec:\n"
                                        "      apiVersion: client.authentication.k8s.io/v1\n"));
  EXPECT_EQ(load_error(no_command),
            no_command +
                ":8:7: user \"u\": exec.command is not set: set it to the credential plugin's "
                "name or path");

  const std::string always =
      dir.write("always", with_user("    exec:\n"
                                    "      apiVersion: client.authentication.k8s.io/v1\n"
                                    "      command: aws\n"
                                    "      interactiveMode: Always\n"));
  EXPECT_EQ(load_error(always),
            always +
                ":10:24: user \"u\": exec.interactiveMode is Always, but schedhost runs the plugin "
                "without a terminal: use a plugin that runs unattended, with interactiveMode "
                "Never or IfAvailable");

  const std::string bad_env =
      dir.write("bad_env", with_user("    exec:\n"
                                     "      apiVersion: client.authentication.k8s.io/v1\n"
                                     "      command: aws\n"
                                     "      env: [{value: x}]\n"));
  EXPECT_EQ(load_error(bad_env),
            bad_env + ":10:13: user \"u\": exec.env[0] has no name: give it one");
}

TEST(KubeconfigTest, ServerMustBeAnHttpsUrl) {
  TempDir dir;
  const std::string path = dir.write("config", with_cluster("    server: k.local:6443\n"));
  EXPECT_EQ(load_error(path), path +
                                  ":6:13: cluster \"k\": server \"k.local:6443\" is not an "
                                  "https:// URL: write it as https://host:port");
  const std::string unset = dir.write("unset", with_cluster("    tls-server-name: k\n"));
  EXPECT_EQ(load_error(unset),
            unset +
                ":4:3: cluster \"k\": server is not set: set it to the API server's URL, "
                "https://host:port");
  const std::string no_body =
      dir.write("no_body",
                "current-context: c\ncontexts: [{name: c, context: {cluster: k}}]\n"
                "clusters:\n- name: k\n");
  EXPECT_EQ(load_error(no_body),
            no_body +
                ":4:3: cluster \"k\": server is not set: set it to the API server's URL, "
                "https://host:port");
}

TEST(KubeconfigTest, DuplicateNames) {
  TempDir dir;
  std::string text = kTwoContexts;
  text.replace(text.find("- name: prod\n  context"), 12, "- name: dev ");
  const std::string path = dir.write("config", text);
  EXPECT_EQ(load_error(path), path + ":7:9: context \"dev\" is defined twice (also at " + path +
                                  ":5:3): remove or rename one");
}

TEST(KubeconfigTest, MissingFileAndBadYaml) {
  TempDir dir;
  EXPECT_EQ(load_error(dir.str() + "/nope"),
            dir.str() + "/nope: cannot read the kubeconfig: No such file or directory");
  EXPECT_EQ(load_error(dir.str()), dir.str() + ": cannot read the kubeconfig: Is a directory");
  const std::string bad = dir.write("bad", "current-context: c\ncontexts: [\n");
  EXPECT_THAT(load_error(bad),
              ::testing::StartsWith(bad + ":3:1: the kubeconfig is not valid YAML: "));
  const std::string list = dir.write("list", "- a\n- b\n");
  EXPECT_EQ(load_error(list),
            list +
                ":1:1: a kubeconfig must be a mapping (apiVersion: v1, kind: Config, clusters, "
                "users, contexts): is this a kubeconfig?");
  const std::string pod = dir.write("pod", "apiVersion: v1\nkind: Pod\n");
  EXPECT_EQ(load_error(pod), pod + ":2:7: kind is \"Pod\", not Config: is this a kubeconfig?");
}

TEST(KubeconfigTest, DefaultPath) {
  TempDir dir;
  {
    ScopedEnv kubeconfig("KUBECONFIG", "/a/config:/b/config");
    EXPECT_EQ(default_kubeconfig_path(), "/a/config");
  }
  {
    ScopedEnv kubeconfig("KUBECONFIG", ":/b/config");
    EXPECT_EQ(default_kubeconfig_path(), "/b/config");
  }
  ScopedEnv kubeconfig("KUBECONFIG", nullptr);
  ScopedEnv home("HOME", dir.str().c_str());
  EXPECT_EQ(default_kubeconfig_path(), "");
  dir.write(".kube/config", kTwoContexts);
  EXPECT_EQ(default_kubeconfig_path(), dir.str() + "/.kube/config");
  ScopedEnv empty("KUBECONFIG", "");
  EXPECT_EQ(default_kubeconfig_path(), dir.str() + "/.kube/config");
}

}  // namespace
}  // namespace schedhost::kube
