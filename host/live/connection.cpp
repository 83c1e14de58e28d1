#include "live/connection.hpp"

#include <spdlog/spdlog.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <regex>
#include <string_view>
#include <vector>

#include "common/input_error.hpp"
#include "kube/api_error.hpp"
#include "kube/in_cluster_config.hpp"
#include "kube/kubeconfig.hpp"

namespace schedhost::live {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// kube-scheduler's defaults for a zero or unset clientConnection.qps / burst.
constexpr double kDefaultQps = 50;
constexpr int kDefaultBurst = 100;

constexpr std::string_view kJson = "application/json";
constexpr std::string_view kProtobuf = "application/vnd.kubernetes.protobuf";
constexpr std::string_view kYaml = "application/yaml";

constexpr std::string_view kSchedulerRole = "system:kube-scheduler";

// --- resolve_client_config ---------------------------------------------------------------------

std::string text_field(const json& block, const char* name) {
  const auto it = block.find(name);
  return it != block.end() && it->is_string() ? it->get<std::string>() : "";
}

void apply_client_connection(const config::SchedulerConfiguration& cfg, const json& block,
                             kube::ClientConfig& client) {
  const std::string where = cfg.location_of("clientConnection").to_string();
  if (const auto it = block.find("qps"); it != block.end() && it->is_number()) {
    const double qps = it->get<double>();
    if (!std::isfinite(qps)) {
      throw InputError(where +
                       ": clientConnection.qps is not a finite number: set a number of requests "
                       "per second (the default is 50)");
    }
    // Upstream does not validate qps: 0 is defaulted to 50 and a negative value turns
    // client-go's rate limiter off, as it turns ours off.
    client.qps = qps == 0 ? kDefaultQps : qps;
  } else {
    client.qps = kDefaultQps;
  }
  if (const auto it = block.find("burst"); it != block.end() && it->is_number_integer()) {
    const auto burst = it->get<long long>();
    // componentbase's ValidateClientConnectionConfiguration: burst must be non-negative.
    if (burst < 0) {
      throw InputError(where + ": clientConnection.burst " + std::to_string(burst) +
                       " is not valid: it must be non-negative (0 or unset means the default, "
                       "100)");
    }
    client.burst = burst == 0 ? kDefaultBurst : static_cast<int>(burst);
  } else {
    client.burst = kDefaultBurst;
  }

  // The client speaks JSON only. What client-go can send (JSON, YAML, protobuf: the objects are
  // the same, the semantics identical) is accepted and sent as JSON; anything else would make
  // kube-scheduler fail too.
  const std::string content_type = text_field(block, "contentType");
  if (!content_type.empty() && content_type != kJson && content_type != kProtobuf &&
      content_type != kYaml) {
    throw InputError(where + ": clientConnection.contentType \"" + content_type +
                     "\" is not a type the client can send: use " + std::string(kJson) + " or " +
                     std::string(kProtobuf) + " (schedhost sends JSON either way)");
  }
  if (!content_type.empty() && content_type != kJson) {
    spdlog::info("clientConnection.contentType {}: schedhost talks JSON to the API server",
                 content_type);
  }
  if (const std::string accept = text_field(block, "acceptContentTypes"); !accept.empty()) {
    spdlog::info("clientConnection.acceptContentTypes {}: schedhost asks for JSON", accept);
  }
  client.content_type = std::string(kJson);
}

kube::ClientConfig load_client_connection_kubeconfig(const config::SchedulerConfiguration& cfg,
                                                     const std::string& path) {
  // As kube-scheduler (clientcmd.BuildConfigFromFlags): the path as written, so a relative one is
  // relative to the working directory, not to the config file.
  std::error_code ec;
  if (!fs::exists(path, ec) && fs::path(path).is_relative()) {
    throw InputError(cfg.location_of("clientConnection").to_string() +
                     ": clientConnection.kubeconfig \"" + path + "\" does not exist in the " +
                     "working directory " + fs::current_path(ec).string() +
                     " (a relative path is read from there, as kube-scheduler reads it): " +
                     "give its absolute path");
  }
  return kube::load_kubeconfig(path);
}

// --- preflight ---------------------------------------------------------------------------------

// curl's " after 12 ms" varies from run to run and says nothing to the user.
std::string steady_reason(const std::string& reason) {
  static const std::regex elapsed(" after [0-9]+ ms");
  return std::regex_replace(reason, elapsed, "");
}

// The value at pointer in an answer, or null when the answer has no such field.
json field(const json& answer, const json::json_pointer& pointer) {
  return answer.contains(pointer) ? answer.at(pointer) : json();
}

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

bool from_kubeconfig(const kube::ClientConfig& c) {
  return c.source.rfind("kubeconfig ", 0) == 0;
}

// A request that got no answer (ApiError code 0): why, in the user's terms.
[[noreturn]] void no_answer(const kube::ClientConfig& c, const std::string& what_failed) {
  const std::string reason = steady_reason(what_failed);
  const std::string at = "the API server at " + c.server;
  if (reason.rfind("exec credential plugin", 0) == 0 || contains(reason, "token file")) {
    throw InputError("cannot get the credentials of " + c.source + ": " + reason);
  }
  if (contains(reason, "client certificate") || contains(reason, "private key")) {
    throw InputError("cannot use the client certificate of " + c.source + " with " + at + ": " +
                     reason + ": check client-certificate and client-key");
  }
  if (contains(reason, "subject name")) {
    throw InputError("the certificate of " + at + " is not for that host name: " + reason +
                     ": connect by a name the certificate holds, or set tls-server-name in " +
                     c.source);
  }
  if (contains(reason, "SSL certificate problem") || contains(reason, "certificate verify")) {
    const std::string fix =
        from_kubeconfig(c)
            ? "set certificate-authority (or certificate-authority-data) in " + c.source +
                  " to the CA that signed the server's certificate (insecure-skip-tls-verify: "
                  "true turns the check off, for a test cluster only)"
            : "check the CA of " + c.source;
    throw InputError("cannot verify the certificate of " + at + ": " + reason + ": " + fix);
  }
  if (contains(reason, "SSL") || contains(reason, "TLS")) {
    throw InputError("TLS with " + at + " failed: " + reason + ": check that " + c.server +
                     " is the API server's HTTPS address, in " + c.source);
  }
  throw InputError("cannot reach " + at + ": " + reason + ": check the server address in " +
                   c.source);
}

std::string credential_fix(const kube::ClientConfig& c) {
  if (c.exec) {
    return "the credential plugin \"" + c.exec->command +
           "\" gave one the server does not accept: check that it logs in to this cluster";
  }
  if (!c.token_file.empty()) {
    return "the token in " + c.token_file + " is wrong or has expired: replace it";
  }
  if (!c.token.empty()) {
    return "its token is wrong or has expired: replace it (kubectl create token NAME gives a "
           "service account's)";
  }
  if (!c.client_cert_pem.empty()) {
    return "its client certificate is not signed by a CA the server trusts, or has expired: "
           "replace it";
  }
  if (!c.username.empty()) {
    return "the server does not take this username and password (basic authentication was "
           "removed in v1.19): use a token or a client certificate";
  }
  return "it has no credentials: give its user a token or a client certificate";
}

[[noreturn]] void unauthorized(const kube::ClientConfig& c) {
  throw InputError("the API server refused the credentials of " + c.source +
                   " (401 Unauthorized): " + credential_fix(c));
}

// The response, or the InputError for one that got none or a 401.
kube::Response send(kube::ApiClient& client, const std::string& method, const std::string& path,
                    const json& body = nullptr) {
  kube::Response r;
  try {
    if (body.is_null()) {
      r = client.request(method, path);
    } else {
      r = client.request(method, path, body.dump(), kJson);
    }
  } catch (const kube::ApiError& e) {
    if (e.code() != 0) throw;
    no_answer(client.config(), e.message());
  }
  if (r.code == 401) unauthorized(client.config());
  return r;
}

// What ApiError says of a non-2xx answer, e.g. "GET /version: 404 NotFound: ...".
std::string describe(const std::string& method, const std::string& path, const kube::Response& r) {
  try {
    kube::ApiClient::raise(method, path, r);
  } catch (const kube::ApiError& e) {
    return e.what();
  }
  return method + " " + path;
}

std::string server_version(kube::ApiClient& client) {
  const kube::ClientConfig& c = client.config();
  const kube::Response r = send(client, "GET", "/version");
  const json version = json::parse(r.body, nullptr, false);
  const bool ok = r.code == 200 && version.is_object() && version.contains("gitVersion") &&
                  version["gitVersion"].is_string();
  if (!ok) {
    const std::string answer =
        r.code == 200 ? "GET /version: 200 without a gitVersion" : describe("GET", "/version", r);
    throw InputError("the server at " + c.server + " is not a Kubernetes API server (" + answer +
                     "): check the server address in " + c.source);
  }
  return version["gitVersion"].get<std::string>();
}

// Who the server takes us for (SelfSubjectReview, GA in v1.28); "" when it cannot say.
std::string user_name(kube::ApiClient& client) {
  const json review = {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "SelfSubjectReview"}};
  const kube::Response r =
      send(client, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", review);
  if (r.code < 200 || r.code >= 300) return "";
  const json answer = json::parse(r.body, nullptr, false);
  const json username = field(answer, "/status/userInfo/username"_json_pointer);
  return username.is_string() ? username.get<std::string>() : "";
}

struct Permission {
  std::string verb;
  std::string group;  // "" for the core group
  std::string resource;
  std::string subresource;
  std::string namespace_;         // "": every namespace (or a cluster-scoped resource)
  std::string name;               // "": any object
  bool in_scheduler_role = true;  // system:kube-scheduler grants it

  // As kubectl names it: "list poddisruptionbudgets.policy", "create pods/binding".
  std::string describe() const {
    std::string out = verb + " " + resource;
    if (!group.empty()) out += "." + group;
    if (!subresource.empty()) out += "/" + subresource;
    if (!name.empty()) out += " \"" + name + "\"";
    if (!namespace_.empty()) out += " in " + namespace_;
    return out;
  }

  json review() const {
    json attributes = {{"verb", verb}, {"group", group}, {"resource", resource}};
    if (!subresource.empty()) attributes["subresource"] = subresource;
    if (!namespace_.empty()) attributes["namespace"] = namespace_;
    if (!name.empty()) attributes["name"] = name;
    return {{"apiVersion", "authorization.k8s.io/v1"},
            {"kind", "SelfSubjectAccessReview"},
            {"spec", {{"resourceAttributes", attributes}}}};
  }
};

Permission permission(std::string verb, std::string group, std::string resource,
                      std::string subresource = "") {
  Permission p;
  p.verb = std::move(verb);
  p.group = std::move(group);
  p.resource = std::move(resource);
  p.subresource = std::move(subresource);
  return p;
}

// Everything the scheduler reads and writes (the informers, then spec section 4.1).
std::vector<Permission> needed_permissions(const std::optional<LeaseLock>& lease) {
  std::vector<Permission> out;
  const std::pair<const char*, const char*> watched[] = {
      {"", "nodes"}, {"", "pods"}, {"", "namespaces"}, {"policy", "poddisruptionbudgets"}};
  for (const auto& [group, resource] : watched) {
    out.push_back(permission("list", group, resource));
    out.push_back(permission("watch", group, resource));
  }
  out.push_back(permission("create", "", "pods", "binding"));
  out.push_back(permission("patch", "", "pods", "status"));
  out.push_back(permission("delete", "", "pods"));  // preemption's victims
  out.push_back(permission("create", "events.k8s.io", "events"));
  out.push_back(permission("patch", "events.k8s.io", "events"));  // an event series
  if (lease) {
    for (const char* verb : {"get", "create", "update"}) {
      Permission p = permission(verb, "coordination.k8s.io", "leases");
      p.namespace_ = lease->namespace_;
      // RBAC cannot name the object of a create; the bootstrap role may create any Lease, but
      // get and update only kube-scheduler's.
      if (p.verb != "create") {
        p.name = lease->name;
        p.in_scheduler_role = lease->name == "kube-scheduler";
      }
      out.push_back(std::move(p));
    }
  }
  return out;
}

// True when allowed; throws InputError when the review itself cannot be made.
bool allowed(kube::ApiClient& client, const Permission& p) {
  const std::string path = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
  const kube::Response r = send(client, "POST", path, p.review());
  const json answer = json::parse(r.body, nullptr, false);
  if (r.code >= 200 && r.code < 300 && answer.is_object()) {
    const json yes = field(answer, "/status/allowed"_json_pointer);
    return yes.is_boolean() && yes.get<bool>();
  }
  const std::string what = describe("POST", path, r);
  const std::string fix =
      r.code == 403 && contains(what, "system:anonymous")
          ? "the server took the request as anonymous: give the user in " + client.config().source +
                " a token or a client certificate"
          : "bind its user to the ClusterRole system:basic-user, which lets a user review its "
            "own permissions (every authenticated user has it by default)";
  throw InputError("cannot review the permissions of " + client.config().source + " (" + what +
                   "): " + fix);
}

std::string joined(const std::vector<const Permission*>& permissions) {
  std::string out;
  for (const Permission* p : permissions) {
    if (!out.empty()) out += ", ";
    out += p->describe();
  }
  return out;
}

// The kubectl command that binds user to system:kube-scheduler; "" for an unknown user.
std::string binding_command(const std::string& user) {
  constexpr std::string_view kServiceAccount = "system:serviceaccount:";
  std::string subject;
  if (user.rfind(kServiceAccount, 0) == 0) {
    subject = "--serviceaccount=" + user.substr(kServiceAccount.size());
  } else if (!user.empty()) {
    subject = "--user=" + user;
  } else {
    return "";
  }
  return "kubectl create clusterrolebinding schedhost --clusterrole=" +
         std::string(kSchedulerRole) + " " + subject;
}

[[noreturn]] void denied(const kube::ClientConfig& c, const std::string& user,
                         const std::vector<const Permission*>& missing) {
  std::vector<const Permission*> outside_role;
  for (const Permission* p : missing) {
    if (!p->in_scheduler_role) outside_role.push_back(p);
  }
  const std::string who = user.empty() ? "the API server's user of " + c.source
                                       : "the API server's user \"" + user + "\"";
  std::string fix;
  if (outside_role.size() < missing.size()) {
    fix = "bind it to the ClusterRole " + std::string(kSchedulerRole);
    if (const std::string command = binding_command(user); !command.empty()) {
      fix += " (" + command + ")";
    }
    if (!outside_role.empty()) {
      fix += ", and grant it " + joined(outside_role) + " with a Role: that ClusterRole does not";
    }
  } else {
    fix =
        "grant it these with a Role (the ClusterRole " + std::string(kSchedulerRole) + " does not)";
  }
  throw InputError(who + " may not: " + joined(missing) + ": " + fix);
}

}  // namespace

kube::ClientConfig resolve_client_config(const config::SchedulerConfiguration& cfg,
                                         const std::string& kubeconfig_flag) {
  json block = json::object();
  if (const auto it = cfg.upstream_only_fields.find("clientConnection");
      it != cfg.upstream_only_fields.end() && it->second.is_object()) {
    block = it->second;
  }
  // The configuration's own values are checked before any file is read.
  kube::ClientConfig connection;
  apply_client_connection(cfg, block, connection);

  // kube-scheduler takes clientConnection.kubeconfig, else the in-cluster configuration. The
  // --kubeconfig flag (which upstream ignores once --config is given) and $KUBECONFIG or
  // ~/.kube/config, as kubectl finds them, are schedhost's conveniences for a run off-cluster.
  kube::ClientConfig client;
  const char* service_host = std::getenv("KUBERNETES_SERVICE_HOST");
  if (const std::string path = text_field(block, "kubeconfig"); !path.empty()) {
    client = load_client_connection_kubeconfig(cfg, path);
  } else if (!kubeconfig_flag.empty()) {
    client = kube::load_kubeconfig(kubeconfig_flag);
  } else if (service_host != nullptr && *service_host != '\0') {
    client = kube::load_in_cluster_config();
  } else if (const std::string fallback = kube::default_kubeconfig_path(); !fallback.empty()) {
    client = kube::load_kubeconfig(fallback);
  } else {
    const std::string file = cfg.file.empty() ? "the configuration file" : cfg.file;
    throw InputError(
        "no API server to talk to: pass --kubeconfig FILE, set "
        "clientConnection.kubeconfig in " +
        file + ", or run in a pod (in-cluster configuration)");
  }
  client.qps = connection.qps;
  client.burst = connection.burst;
  client.content_type = connection.content_type;
  return client;
}

ServerInfo preflight(kube::ApiClient& client, const std::optional<LeaseLock>& lease) {
  ServerInfo info;
  info.version = server_version(client);
  info.user = user_name(client);

  // The reviews are independent: asked all at once, they cost one round trip, not a dozen.
  const std::vector<Permission> needed = needed_permissions(lease);
  std::vector<std::future<bool>> answers;
  answers.reserve(needed.size());
  for (const Permission& p : needed) {
    answers.push_back(std::async(std::launch::async, [&client, &p] { return allowed(client, p); }));
  }
  std::vector<const Permission*> missing;
  for (std::size_t i = 0; i < needed.size(); ++i) {
    if (!answers[i].get()) missing.push_back(&needed[i]);
  }
  if (!missing.empty()) denied(client.config(), info.user, missing);
  return info;
}

}  // namespace schedhost::live
