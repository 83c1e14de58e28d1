#include "kube/kubeconfig.hpp"

#include <openssl/evp.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "cluster/input_file.hpp"
#include "common/input_error.hpp"

namespace schedhost::kube {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kExecV1 = "client.authentication.k8s.io/v1";
constexpr std::string_view kExecV1beta1 = "client.authentication.k8s.io/v1beta1";

bool is_set(const YAML::Node& node) {
  return node.IsDefined() && !node.IsNull();
}

// The file being read: where a node is, and how a relative path resolves.
class Kubeconfig {
 public:
  Kubeconfig(std::string file, fs::path dir) : file_(std::move(file)), dir_(std::move(dir)) {}

  const std::string& file() const { return file_; }

  std::string where(const YAML::Node& node) const {
    if (node.IsDefined()) {
      const YAML::Mark mark = node.Mark();
      if (mark.line >= 0) return source_location(file_, mark.line + 1, mark.column + 1);
    }
    return source_location(file_);
  }

  fs::path resolve(const std::string& path) const {
    const fs::path p(path);
    return (p.is_absolute() ? p : dir_ / p).lexically_normal();
  }

 private:
  std::string file_;
  fs::path dir_;
};

// A mapping of the kubeconfig and how messages name it: `cluster "kind"`, with field names
// prefixed (`exec.command`) when it is nested. A missing field is reported at the anchor: the
// mapping itself, or its list entry when the mapping is absent; nowhere (the file) when undefined.
class KubeconfigObject {
 public:
  KubeconfigObject(const Kubeconfig& file, const YAML::Node& node, std::string name,
                   std::string prefix = "")
      : KubeconfigObject(file, node, node, std::move(name), std::move(prefix)) {}
  KubeconfigObject(const Kubeconfig& file, const YAML::Node& node, const YAML::Node& anchor,
                   std::string name, std::string prefix)
      : file_(file),
        node_(node),
        anchor_(anchor),
        name_(std::move(name)),
        prefix_(std::move(prefix)) {}

  const Kubeconfig& file() const { return file_; }
  const YAML::Node& node() const { return node_; }
  const std::string& name() const { return name_; }
  std::string field_name(std::string_view key) const { return prefix_ + std::string(key); }

  // The key's node and its value's; undefined nodes when the key is absent.
  std::pair<YAML::Node, YAML::Node> field(std::string_view key) const {
    if (node_.IsMap()) {
      for (const auto& entry : node_) {
        if (entry.first.IsScalar() && entry.first.Scalar() == key) {
          return {entry.first, entry.second};
        }
      }
    }
    return {YAML::Node(YAML::NodeType::Undefined), YAML::Node(YAML::NodeType::Undefined)};
  }

  YAML::Node value(std::string_view key) const { return field(key).second; }
  bool has(std::string_view key) const { return is_set(value(key)); }

  // The value's location; the key's when the value is empty (yaml-cpp marks an empty value at
  // the next token); the object's when the key is absent.
  std::string where(std::string_view key) const {
    auto [k, v] = field(key);
    if (is_set(v)) return file_.where(v);
    if (k.IsDefined()) return file_.where(k);
    return file_.where(anchor_);
  }

  [[noreturn]] void fail_at(const std::string& where, const std::string& message) const {
    throw InputError(where + ": " + (name_.empty() ? "" : name_ + ": ") + message);
  }
  [[noreturn]] void fail(std::string_view key, const std::string& message) const {
    fail_at(where(key), message);
  }

  // A scalar as text; "" when absent or null (as kubectl, an empty string is "not set").
  std::string string(std::string_view key) const {
    const YAML::Node v = value(key);
    if (!is_set(v)) return "";
    if (!v.IsScalar()) fail(key, field_name(key) + " must be a string");
    return v.Scalar();
  }

  bool boolean(std::string_view key) const {
    const YAML::Node v = value(key);
    if (!is_set(v)) return false;
    if (v.IsScalar()) {
      bool out = false;
      if (YAML::convert<bool>::decode(v, out)) return out;
    }
    fail(key, field_name(key) + " must be true or false");
  }

 private:
  const Kubeconfig& file_;
  YAML::Node node_;
  YAML::Node anchor_;
  std::string name_;
  std::string prefix_;
};

// One entry of contexts[], clusters[] or users[].
struct Named {
  std::string name;
  YAML::Node entry;
  YAML::Node body;  // its context, cluster or user mapping; may be undefined or null
};

// kind: "context"; list: "contexts".
std::vector<Named> named_list(const KubeconfigObject& root, std::string_view list,
                              std::string_view kind) {
  std::vector<Named> out;
  const YAML::Node node = root.value(list);
  if (!is_set(node)) return out;
  const std::string l(list);
  const std::string k(kind);
  if (!node.IsSequence()) root.fail(list, l + " must be a list of {name, " + k + "}");
  for (std::size_t i = 0; i < node.size(); ++i) {
    const YAML::Node entry = node[i];
    const std::string at = l + "[" + std::to_string(i) + "]";
    if (!entry.IsMap()) {
      root.fail_at(root.file().where(entry), at + " must be a mapping with name and " + k);
    }
    const KubeconfigObject object(root.file(), entry, "", at + ".");
    std::string name = object.string("name");
    if (name.empty()) object.fail("name", at + " has no name: give it one");
    for (const Named& other : out) {
      if (other.name == name) {
        object.fail("name", k + " \"" + name + "\" is defined twice (also at " +
                                root.file().where(other.entry) + "): remove or rename one");
      }
    }
    YAML::Node body = object.value(kind);
    if (is_set(body) && !body.IsMap()) {
      object.fail(kind, k + " \"" + name + "\": " + k + " must be a mapping");
    }
    out.push_back(Named{std::move(name), entry, body});
  }
  return out;
}

const Named* find_named(const std::vector<Named>& list, const std::string& name) {
  for (const Named& named : list) {
    if (named.name == name) return &named;
  }
  return nullptr;
}

// "set <what> to one of: a, b", or "add a <kind> to <list>[]" when there is none.
std::string one_of(const std::vector<Named>& list, std::string_view what, std::string_view kind,
                   std::string_view list_name) {
  if (list.empty()) {
    return std::string(list_name) + "[] is empty: add a " + std::string(kind) + " to it";
  }
  std::string out = "set " + std::string(what) + " to one of: ";
  for (std::size_t i = 0; i < list.size(); ++i) {
    out += (i ? ", " : "") + list[i].name;
  }
  return out;
}

// A *-data field: base64 of the bytes.
std::string decoded(const KubeconfigObject& object, std::string_view key) {
  const std::string text = object.string(key);
  std::optional<std::string> bytes = decode_base64(text);
  if (!bytes) {
    object.fail(key, object.field_name(key) +
                         " is not valid base64: give the PEM text base64-encoded (base64 -w0 "
                         "FILE), or the file's path in " +
                         object.field_name(key.substr(0, key.size() - 5)));
  }
  return std::move(*bytes);
}

// A file field: the file's bytes.
std::string read_referenced(const KubeconfigObject& object, std::string_view key) {
  const fs::path path = object.file().resolve(object.string(key));
  const std::string name = object.field_name(key);
  const std::string fix =
      ": fix the path (a relative one is relative to the kubeconfig's directory), or give the "
      "contents base64-encoded in " +
      name + "-data";
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    object.fail(key,
                "cannot read " + name + " " + path.string() + ": " + std::strerror(EISDIR) + fix);
  }
  std::optional<std::string> text = read_input_file(path, "give a smaller file in " + name);
  if (!text) {
    const int error = errno;
    object.fail(key,
                "cannot read " + name + " " + path.string() + ": " + std::strerror(error) + fix);
  }
  return std::move(*text);
}

// PEM from either `key-data` or `key` (a file); "" when neither is set.
std::string pem_field(const KubeconfigObject& object, std::string_view key) {
  const std::string data_key = std::string(key) + "-data";
  const bool has_data = object.has(data_key);
  const bool has_file = object.has(key);
  if (has_data && has_file) {
    object.fail(data_key, "both " + object.field_name(data_key) + " and " + object.field_name(key) +
                              " are set: keep one");
  }
  if (has_data) return decoded(object, data_key);
  if (has_file) return read_referenced(object, key);
  return "";
}

void expect_pem(const KubeconfigObject& object, std::string_view key, const std::string& pem,
                std::string_view label, std::string_view what) {
  if (pem.empty()) return;
  const bool ok = label == "PRIVATE KEY"
                      ? pem.find("-----BEGIN ") != std::string::npos &&
                            pem.find("PRIVATE KEY-----") != std::string::npos
                      : pem.find("-----BEGIN " + std::string(label) + "-----") != std::string::npos;
  if (ok) return;
  const std::string data_key = std::string(key) + "-data";
  const std::string_view field = object.has(data_key) ? std::string_view(data_key) : key;
  object.fail(field, object.field_name(field) + " does not hold a PEM " + std::string(what) +
                         " (no -----BEGIN " + std::string(label) + "----- line): give " +
                         std::string(what) + " in PEM");
}

void read_cluster(const KubeconfigObject& cluster, ClientConfig& config) {
  std::string server = cluster.string("server");
  if (server.empty()) {
    cluster.fail("server", "server is not set: set it to the API server's URL, https://host:port");
  }
  const auto scheme_end = server.find("://");
  std::string scheme = scheme_end == std::string::npos ? "" : server.substr(0, scheme_end);
  for (char& c : scheme)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  while (server.size() > scheme_end + 3 && server.back() == '/')
    server.pop_back();
  if ((scheme != "https" && scheme != "http") || server.size() == scheme_end + 3) {
    cluster.fail("server",
                 "server \"" + server + "\" is not an https:// URL: write it as https://host:port");
  }
  config.server = std::move(server);

  if (cluster.has("proxy-url")) {
    cluster.fail("proxy-url",
                 "proxy-url is not supported: remove it and reach the server without a proxy");
  }
  config.tls_server_name = cluster.string("tls-server-name");
  config.insecure_skip_tls_verify = cluster.boolean("insecure-skip-tls-verify");
  config.ca_pem = pem_field(cluster, "certificate-authority");
  if (config.insecure_skip_tls_verify && !config.ca_pem.empty()) {
    cluster.fail("insecure-skip-tls-verify",
                 "insecure-skip-tls-verify is true and a certificate authority is given: remove "
                 "one (the server's certificate is either checked against the CA or not at all)");
  }
  expect_pem(cluster, "certificate-authority", config.ca_pem, "CERTIFICATE", "certificate");
}

// "gcp" -> what replaced it.
std::string auth_provider_message(const std::string& provider) {
  if (provider == "gcp") {
    return "auth-provider is not supported (it was removed from kubectl in 1.26): use an exec "
           "credential plugin such as gke-gcloud-auth-plugin";
  }
  if (provider == "azure") {
    return "auth-provider is not supported (it was removed from kubectl in 1.26): use an exec "
           "credential plugin such as kubelogin (kubelogin convert-kubeconfig)";
  }
  if (provider == "oidc") {
    return "auth-provider is not supported: use an exec credential plugin such as kubelogin "
           "(kubectl oidc-login)";
  }
  return "auth-provider is not supported: use an exec credential plugin such as "
         "gke-gcloud-auth-plugin (GKE) or kubelogin (AKS, OIDC)";
}

ExecCredentialPlugin read_exec(const KubeconfigObject& user) {
  const KubeconfigObject exec(user.file(), user.value("exec"), user.name(), "exec.");
  auto fail = [&](std::string_view key, const std::string& message) { exec.fail(key, message); };
  if (!exec.node().IsMap()) fail("", "exec must be a mapping with command and apiVersion");
  ExecCredentialPlugin plugin;

  plugin.command = exec.string("command");
  if (plugin.command.empty()) {
    fail("command", "exec.command is not set: set it to the credential plugin's name or path");
  }
  if (plugin.command.find('/') != std::string::npos) {
    plugin.command = user.file().resolve(plugin.command).string();
  }

  plugin.api_version = exec.string("apiVersion");
  if (plugin.api_version.empty()) {
    fail("apiVersion", "exec.apiVersion is not set: set it to " + std::string(kExecV1) +
                           " (or the version the plugin documents)");
  }
  if (plugin.api_version != kExecV1 && plugin.api_version != kExecV1beta1) {
    fail("apiVersion", "exec.apiVersion \"" + plugin.api_version + "\" is not supported: use " +
                           std::string(kExecV1) + " (or v1beta1)");
  }

  const YAML::Node args = exec.value("args");
  if (is_set(args)) {
    if (!args.IsSequence()) fail("args", "exec.args must be a list of strings");
    for (const auto& arg : args) {
      if (!arg.IsScalar()) {
        user.fail_at(user.file().where(arg), "exec.args must be a list of strings");
      }
      plugin.args.push_back(arg.Scalar());
    }
  }

  const YAML::Node env = exec.value("env");
  if (is_set(env)) {
    if (!env.IsSequence()) fail("env", "exec.env must be a list of {name, value}");
    for (std::size_t i = 0; i < env.size(); ++i) {
      const std::string at = "exec.env[" + std::to_string(i) + "]";
      if (!env[i].IsMap()) {
        user.fail_at(user.file().where(env[i]), at + " must be a mapping with name and value");
      }
      const KubeconfigObject entry(user.file(), env[i], user.name(), at + ".");
      std::string name = entry.string("name");
      if (name.empty()) entry.fail("name", at + " has no name: give it one");
      plugin.env.emplace_back(std::move(name), entry.string("value"));
    }
  }

  plugin.install_hint = exec.string("installHint");
  plugin.provide_cluster_info = exec.boolean("provideClusterInfo");

  const std::string mode = exec.string("interactiveMode");
  if (mode == "Always") {
    fail("interactiveMode",
         "exec.interactiveMode is Always, but schedhost runs the plugin without a terminal: use a "
         "plugin that runs unattended, with interactiveMode Never or IfAvailable");
  }
  if (!mode.empty() && mode != "Never" && mode != "IfAvailable") {
    fail("interactiveMode", "exec.interactiveMode \"" + mode +
                                "\" is not one of Never, IfAvailable, Always: set it to Never");
  }
  return plugin;
}

void read_user(const KubeconfigObject& user, ClientConfig& config) {
  if (user.has("auth-provider")) {
    std::string provider;
    const YAML::Node node = user.value("auth-provider");
    if (node.IsMap()) provider = KubeconfigObject(user.file(), node, "").string("name");
    user.fail_at(user.file().where(user.field("auth-provider").first),
                 auth_provider_message(provider));
  }
  for (std::string_view key : {"as", "as-uid", "as-groups", "as-user-extra"}) {
    if (user.has(key)) {
      user.fail(key, std::string(key) +
                         " (impersonation) is not supported: remove it and use a user that has "
                         "the rights itself");
    }
  }

  config.client_cert_pem = pem_field(user, "client-certificate");
  config.client_key_pem = pem_field(user, "client-key");
  if (!config.client_cert_pem.empty() && config.client_key_pem.empty()) {
    user.fail("client-certificate-data",
              "a client certificate is given without its key: set client-key-data or client-key");
  }
  if (config.client_cert_pem.empty() && !config.client_key_pem.empty()) {
    user.fail("client-key-data",
              "a client key is given without its certificate: set client-certificate-data or "
              "client-certificate");
  }
  expect_pem(user, "client-certificate", config.client_cert_pem, "CERTIFICATE", "certificate");
  expect_pem(user, "client-key", config.client_key_pem, "PRIVATE KEY", "private key");

  config.token = user.string("token");
  if (user.has("tokenFile")) {
    const fs::path path = user.file().resolve(user.string("tokenFile"));
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (ec || !fs::is_regular_file(status)) {
      const std::string why =
          ec ? ec.message() : (fs::exists(status) ? "not a regular file" : std::strerror(ENOENT));
      user.fail("tokenFile", "tokenFile " + path.string() + ": " + why +
                                 ": fix the path (a relative one is relative to the kubeconfig's "
                                 "directory)");
    }
    config.token_file = path.string();
  }

  config.username = user.string("username");
  config.password = user.string("password");
  const bool token = !config.token.empty() || !config.token_file.empty();
  if (token && (!config.username.empty() || !config.password.empty())) {
    user.fail(config.username.empty() ? "password" : "username",
              "both a token and a username/password are set: keep one authentication method");
  }

  if (user.has("exec")) config.exec = read_exec(user);
}

}  // namespace

std::optional<std::string> decode_base64(std::string_view text) {
  std::string clean;
  clean.reserve(text.size());
  for (char c : text) {
    if (c == '\n' || c == '\r') continue;
    const bool alphabet = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                          (c >= '0' && c <= '9') || c == '+' || c == '/' || c == '=';
    if (!alphabet) return std::nullopt;
    clean += c;
  }
  if (clean.size() % 4 != 0) return std::nullopt;
  std::size_t padding = 0;
  while (padding < clean.size() && clean[clean.size() - 1 - padding] == '=')
    ++padding;
  if (padding > 2 || clean.find('=') < clean.size() - padding) return std::nullopt;
  if (clean.empty()) return std::string();

  std::string out(clean.size() / 4 * 3, '\0');
  // EVP_DecodeBlock counts each '=' as a zero byte of output.
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(clean.data()),
                                static_cast<int>(clean.size()));
  if (n < 0 || static_cast<std::size_t>(n) != out.size()) return std::nullopt;
  out.resize(out.size() - padding);
  return out;
}

std::string encode_base64(std::string_view bytes) {
  std::string out((bytes.size() + 2) / 3 * 4 + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

ClientConfig load_kubeconfig(const std::string& path, const std::string& context_override) {
  if (path.empty()) {
    throw InputError(
        "no kubeconfig given: pass --kubeconfig, set KUBECONFIG, or create ~/.kube/config");
  }
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec).lexically_normal();
  const Kubeconfig file(path, absolute.parent_path());

  if (fs::is_directory(path, ec)) {
    throw InputError(source_location(path) +
                     ": cannot read the kubeconfig: " + std::strerror(EISDIR));
  }
  std::optional<std::string> text = read_input_file(path, "give a smaller kubeconfig");
  if (!text) {
    const int error = errno;
    throw InputError(source_location(path) +
                     ": cannot read the kubeconfig: " + std::strerror(error));
  }

  YAML::Node root;
  try {
    root = YAML::Load(*text);
  } catch (const YAML::ParserException& e) {
    throw InputError(source_location(path, e.mark.line + 1, e.mark.column + 1) +
                     ": the kubeconfig is not valid YAML: " + e.msg + ": fix the YAML");
  }
  const KubeconfigObject top(file, root, YAML::Node(YAML::NodeType::Undefined), "", "");
  if (is_set(root) && !root.IsMap()) {
    top.fail_at(file.where(root),
                "a kubeconfig must be a mapping (apiVersion: v1, kind: Config, clusters, users, "
                "contexts): is this a kubeconfig?");
  }
  const std::string kind = top.string("kind");
  if (!kind.empty() && kind != "Config") {
    top.fail("kind", "kind is \"" + kind + "\", not Config: is this a kubeconfig?");
  }
  const std::string api_version = top.string("apiVersion");
  if (!api_version.empty() && api_version != "v1") {
    top.fail("apiVersion",
             "apiVersion \"" + api_version + "\" is not supported: a kubeconfig is apiVersion v1");
  }

  const std::vector<Named> contexts = named_list(top, "contexts", "context");
  const std::vector<Named> clusters = named_list(top, "clusters", "cluster");
  const std::vector<Named> users = named_list(top, "users", "user");

  std::string context_name = context_override;
  if (context_name.empty()) {
    context_name = top.string("current-context");
    if (context_name.empty()) {
      top.fail("current-context", "current-context is not set: " +
                                      one_of(contexts, "current-context", "context", "contexts"));
    }
    if (!find_named(contexts, context_name)) {
      top.fail("current-context", "current-context \"" + context_name +
                                      "\" names no context in contexts[]: " +
                                      one_of(contexts, "current-context", "context", "contexts"));
    }
  } else if (!find_named(contexts, context_name)) {
    throw InputError(source_location(path) + ": context \"" + context_name +
                     "\" (asked for instead of current-context) names no context in "
                     "contexts[]: " +
                     one_of(contexts, "the context asked for", "context", "contexts"));
  }
  const Named& named_context = *find_named(contexts, context_name);
  const KubeconfigObject context(file, named_context.body, named_context.entry,
                                 "context \"" + context_name + "\"", "");

  const std::string cluster_name = context.string("cluster");
  if (cluster_name.empty()) {
    context.fail("cluster",
                 "cluster is not set: " + one_of(clusters, "cluster", "cluster", "clusters"));
  }
  const Named* named_cluster = find_named(clusters, cluster_name);
  if (!named_cluster) {
    context.fail("cluster", "cluster \"" + cluster_name + "\" names no cluster in clusters[]: " +
                                one_of(clusters, "cluster", "cluster", "clusters"));
  }

  const std::string user_name = context.string("user");
  const Named* named_user = nullptr;
  if (!user_name.empty()) {
    named_user = find_named(users, user_name);
    if (!named_user) {
      context.fail("user", "user \"" + user_name + "\" names no user in users[]: " +
                               one_of(users, "user", "user", "users"));
    }
  }

  ClientConfig config;
  read_cluster(KubeconfigObject(file, named_cluster->body, named_cluster->entry,
                                "cluster \"" + cluster_name + "\"", ""),
               config);
  if (named_user && is_set(named_user->body)) {
    read_user(KubeconfigObject(file, named_user->body, "user \"" + user_name + "\""), config);
  }

  config.namespace_ = context.string("namespace");
  if (config.namespace_.empty()) config.namespace_ = "default";
  config.source = "kubeconfig " + absolute.string() + " (context " + context_name + ")";
  return config;
}

std::string default_kubeconfig_path() {
  if (const char* list = std::getenv("KUBECONFIG"); list && *list) {
    std::string_view rest(list);
    while (!rest.empty()) {
      const std::size_t colon = rest.find(':');
      const std::string_view entry = rest.substr(0, colon);
      if (!entry.empty()) return std::string(entry);
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    const fs::path path = fs::path(home) / ".kube" / "config";
    std::error_code ec;
    if (fs::exists(path, ec)) return path.string();
  }
  return "";
}

}  // namespace schedhost::kube
