#include "live/control_plane.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#include "kube/api_client.hpp"

namespace schedhost::testing {
namespace fs = std::filesystem;
namespace {

bool executable(const std::string& path) {
  return !path.empty() && access(path.c_str(), X_OK) == 0;
}

std::string on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (!dir.empty() && executable(dir + "/" + name)) return dir + "/" + name;
  }
  return "";
}

// The first of dirs holding name, else PATH.
std::string find_binary(const std::string& name, const std::vector<std::string>& dirs) {
  for (const std::string& d : dirs) {
    if (executable(d + "/" + name)) return d + "/" + name;
  }
  return on_path(name);
}

std::string random_hex(std::size_t bytes) {
  std::random_device rd;
  std::string out;
  static const char* hex = "0123456789abcdef";
  for (std::size_t i = 0; i < bytes; ++i) {
    const unsigned v = rd() & 0xff;
    out += hex[v >> 4];
    out += hex[v & 15];
  }
  return out;
}

// Polls until ok() or the deadline; returns whether ok() became true.
template <typename F>
bool wait_for(F ok, std::chrono::milliseconds limit, ChildProcess* process) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (ok()) return true;
    if (process != nullptr && !process->running()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return ok();
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

int minor_of(const std::string& version) {  // "v1.35.4" -> 35
  const auto dot = version.find('.');
  if (dot == std::string::npos) return 0;
  return std::atoi(version.c_str() + dot + 1);
}

}  // namespace

bool control_plane_required() {
  const char* v = std::getenv("SCHEDHOST_REQUIRE_APISERVER");
  return v != nullptr && std::string(v) == "1";
}

std::optional<ControlPlaneBinaries> find_control_plane(std::string* why) {
  const std::string project = SCHEDHOST_CONTROLPLANE_BIN;
  const char* assets_env = std::getenv("KUBEBUILDER_ASSETS");
  const std::string assets = assets_env != nullptr ? assets_env : "";
  const fs::path shared =
      fs::weakly_canonical(fs::path(SCHEDHOST_SOURCE_DIR) / "../shared/k8s/bin");

  ControlPlaneBinaries b;
  if (executable(project + "/kube-apiserver")) {
    b.source = project + " (make controlplane)";
    b.apiserver = project + "/kube-apiserver";
  } else if (!assets.empty() && executable(assets + "/kube-apiserver")) {
    b.source = "$KUBEBUILDER_ASSETS " + assets;
    b.apiserver = assets + "/kube-apiserver";
  } else if (executable(shared.string() + "/kube-apiserver")) {
    b.source = shared.string();
    b.apiserver = shared.string() + "/kube-apiserver";
  } else if (std::string p = on_path("kube-apiserver"); !p.empty()) {
    b.source = "PATH";
    b.apiserver = p;
  } else {
    *why =
        "no kube-apiserver: run `make controlplane` (needs Go), or set KUBEBUILDER_ASSETS to a "
        "folder holding kube-apiserver and etcd, or put them on PATH";
    return std::nullopt;
  }
  const std::string here = fs::path(b.apiserver).parent_path().string();
  std::vector<std::string> dirs{here, project};
  if (!assets.empty()) dirs.push_back(assets);
  dirs.push_back(shared.string());
  b.etcd = find_binary("etcd", dirs);
  if (b.etcd.empty() && executable("/usr/bin/etcd")) b.etcd = "/usr/bin/etcd";
  if (b.etcd.empty()) {
    *why = "kube-apiserver found (" + b.source +
           ") but no etcd: run `make controlplane`, or "
           "apt-get install etcd-server";
    return std::nullopt;
  }
  b.kubectl = find_binary("kubectl", dirs);
  b.scheduler = find_binary("kube-scheduler", dirs);
  auto [rc, out] = run_command({b.apiserver, "--version"});
  if (rc != 0) {
    *why = b.apiserver + " --version failed: " + out;
    return std::nullopt;
  }
  // "Kubernetes v1.35.4\n"
  const auto v = out.find('v');
  b.version = v == std::string::npos ? out : out.substr(v, out.find_first_of(" \n", v) - v);
  return b;
}

int free_loopback_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    throw std::runtime_error("cannot bind a loopback port");
  }
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

std::pair<int, std::string> run_command(const std::vector<std::string>& argv) {
  ScratchDir tmp;
  const std::string log = tmp.file("out");
  ChildProcess child(argv, log);
  const int status = child.wait();
  const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return {rc, read_file(log)};
}

ChildProcess::ChildProcess(std::vector<std::string> argv, std::string log_path)
    : log_path_(std::move(log_path)) {
  const pid_t parent = getpid();
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    const int log = open(log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    const int null = open("/dev/null", O_RDONLY);
    dup2(null, 0);
    dup2(log, 1);
    dup2(log, 2);
    std::vector<char*> args;
    for (std::string& a : argv)
      args.push_back(a.data());
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
}

ChildProcess::~ChildProcess() {
  stop();
}

bool ChildProcess::running() {
  if (pid_ <= 0) return false;
  if (waitpid(pid_, &status_, WNOHANG) == pid_) {
    pid_ = -1;
    return false;
  }
  return true;
}

int ChildProcess::wait() {
  if (pid_ > 0) {
    waitpid(pid_, &status_, 0);
    pid_ = -1;
  }
  return status_;
}

int ChildProcess::stop(int grace_ms) {
  if (pid_ <= 0) return status_;
  if (waitpid(pid_, &status_, WNOHANG) == pid_) {
    pid_ = -1;
    return status_;
  }
  kill(pid_, grace_ms > 0 ? SIGTERM : SIGKILL);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(grace_ms);
  while (std::chrono::steady_clock::now() < deadline) {
    if (waitpid(pid_, &status_, WNOHANG) == pid_) {
      pid_ = -1;
      return status_;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, &status_, 0);
  pid_ = -1;
  return status_;
}

std::string ChildProcess::log_tail(std::size_t bytes) const {
  const std::string text = read_file(log_path_);
  return text.size() <= bytes ? text : text.substr(text.size() - bytes);
}

ControlPlane::ControlPlane(ControlPlaneBinaries binaries) : binaries_(std::move(binaries)) {
  admin_token_ = random_hex(16);
  make_certificates();
  write_text(dir_.file("tokens.csv"), admin_token_ + ",admin,admin,\"system:masters\"\n");
  // A port found free can be taken before the server binds it, by another test's server or by
  // an outgoing connection's local port (the suites start many control planes at once): a
  // start that failed so is tried again on new ports.
  for (int attempt = 1;; ++attempt) {
    apiserver_port_ = free_loopback_port();
    server_ = "https://127.0.0.1:" + std::to_string(apiserver_port_);
    kubeconfig_ = dir_.file("admin.kubeconfig");
    write_text(kubeconfig_,
               "apiVersion: v1\nkind: Config\ncurrent-context: test\n"
               "clusters:\n- name: test\n  cluster:\n    server: " +
                   server_ + "\n    certificate-authority: " + dir_.file("ca.crt") +
                   "\ncontexts:\n- name: test\n  context: {cluster: test, user: admin}\n"
                   "users:\n- name: admin\n  user:\n    token: " +
                   admin_token_ + "\n");
    try {
      start_etcd();
      start_apiserver();
      return;
    } catch (const std::runtime_error& e) {
      const bool port_taken =
          std::string(e.what()).find("address already in use") != std::string::npos;
      if (!port_taken || attempt == 3) throw;
      if (apiserver_) apiserver_->stop();
      if (etcd_) etcd_->stop();
      apiserver_.reset();
      etcd_.reset();
      std::filesystem::remove_all(dir_.file("etcd"));
    }
  }
}

ControlPlane::~ControlPlane() {
  if (apiserver_) apiserver_->stop();
  if (etcd_) etcd_->stop();
}

std::string ControlPlane::ca_pem() const {
  return read_file(dir_.file("ca.crt"));
}

std::string ControlPlane::client_cert_kubeconfig() const {
  const std::string path = dir_.file("cert.kubeconfig");
  write_text(path,
             "apiVersion: v1\nkind: Config\ncurrent-context: test\n"
             "clusters:\n- name: test\n  cluster:\n    server: " +
                 server_ +
                 "\n    certificate-authority: ca.crt\n"
                 "contexts:\n- name: test\n  context: {cluster: test, user: cert}\n"
                 "users:\n- name: cert\n  user:\n    client-certificate: "
                 "admin.crt\n    client-key: admin.key\n");
  return path;
}

std::string ControlPlane::write_kubeconfig(const std::string& file, const std::string& server,
                                           const std::string& user_yaml) const {
  const std::string path = dir_.file(file);
  write_text(path,
             "apiVersion: v1\nkind: Config\ncurrent-context: test\n"
             "clusters:\n- name: test\n  cluster:\n    server: " +
                 server + "\n    certificate-authority: " + dir_.file("ca.crt") +
                 "\ncontexts:\n- name: test\n  context: {cluster: test, user: u}\n"
                 "users:\n- name: u\n  user:\n" +
                 (user_yaml.empty() ? "    token: " + admin_token_ + "\n" : user_yaml));
  return path;
}

void ControlPlane::create_service_account(const std::string& name) const {
  kube::ApiClient admin(admin_config());
  admin.create("/api/v1/namespaces/kube-system/serviceaccounts",
               {{"apiVersion", "v1"},
                {"kind", "ServiceAccount"},
                {"metadata", {{"name", name}, {"namespace", "kube-system"}}}});
}

void ControlPlane::grant_kube_scheduler_role(const std::string& service_account) const {
  kube::ApiClient admin(admin_config());
  // As kube-scheduler is bound: system:kube-scheduler, and system:volume-scheduler for
  // VolumeBinding (StorageClasses; the volumes and claims it binds).
  for (const auto& [binding, role] :
       {std::pair<std::string, std::string>{service_account, "system:kube-scheduler"},
        {service_account + "-volumes", "system:volume-scheduler"}}) {
    admin.create(
        "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
        {{"apiVersion", "rbac.authorization.k8s.io/v1"},
         {"kind", "ClusterRoleBinding"},
         {"metadata", {{"name", binding}}},
         {"roleRef",
          {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", role}}},
         {"subjects", nlohmann::json::array({{{"kind", "ServiceAccount"},
                                              {"name", service_account},
                                              {"namespace", "kube-system"}}})}});
  }
}

std::string ControlPlane::service_account_token(const std::string& name,
                                                const std::string& bound_secret) const {
  kube::ApiClient admin(admin_config());
  nlohmann::json spec = {{"expirationSeconds", 3600}};
  if (!bound_secret.empty()) {
    const nlohmann::json secret = admin.create(
        "/api/v1/namespaces/kube-system/secrets",
        {{"apiVersion", "v1"}, {"kind", "Secret"}, {"metadata", {{"name", bound_secret}}}});
    spec["boundObjectRef"] = {{"apiVersion", "v1"},
                              {"kind", "Secret"},
                              {"name", bound_secret},
                              {"uid", secret["metadata"]["uid"]}};
  }
  const nlohmann::json answer = admin.create(
      "/api/v1/namespaces/kube-system/serviceaccounts/" + name + "/token",
      {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenRequest"}, {"spec", spec}});
  return answer["status"]["token"].get<std::string>();
}

kube::ClientConfig ControlPlane::admin_config() const {
  kube::ClientConfig c;
  c.server = server_;
  c.ca_pem = ca_pem();
  c.token = admin_token_;
  c.qps = 0;  // tests are not rate limited
  c.source = "the test control plane";
  return c;
}

// P-256 keys throughout: an RSA-2048 key takes up to a second to make on a busy machine, and
// every live test makes four.
void ControlPlane::make_certificates() {
  const std::string d = dir_.path();
  const std::string ext = dir_.write("server.ext",
                                     "subjectAltName=IP:127.0.0.1,DNS:localhost\n"
                                     "extendedKeyUsage=serverAuth\n");
  const std::string client_ext = dir_.write("client.ext", "extendedKeyUsage=clientAuth\n");
  const std::vector<std::vector<std::string>> steps = {
      {"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
       "-nodes", "-keyout", d + "/ca.key", "-out", d + "/ca.crt", "-days", "3", "-subj",
       "/CN=schedhost-test-ca"},
      {"openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
       "-keyout", d + "/server.key", "-out", d + "/server.csr", "-subj", "/CN=kube-apiserver"},
      {"openssl", "x509", "-req", "-in", d + "/server.csr", "-CA", d + "/ca.crt", "-CAkey",
       d + "/ca.key", "-CAcreateserial", "-out", d + "/server.crt", "-days", "3", "-extfile", ext},
      {"openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
       "-keyout", d + "/admin.key", "-out", d + "/admin.csr", "-subj",
       "/O=system:masters/CN=admin"},
      {"openssl", "x509", "-req", "-in", d + "/admin.csr", "-CA", d + "/ca.crt", "-CAkey",
       d + "/ca.key", "-CAcreateserial", "-out", d + "/admin.crt", "-days", "3", "-extfile",
       client_ext},
      {"openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", d + "/sa.key"},
      {"openssl", "ec", "-in", d + "/sa.key", "-pubout", "-out", d + "/sa.pub"},
  };
  const std::string openssl = on_path("openssl");
  if (openssl.empty()) throw std::runtime_error("no openssl on PATH: apt-get install openssl");
  for (std::vector<std::string> step : steps) {
    step[0] = openssl;
    auto [rc, out] = run_command(step);
    if (rc != 0) throw std::runtime_error("openssl " + step[1] + " failed: " + out);
  }
}

void ControlPlane::start_etcd() {
  const int client = free_loopback_port();
  const int peer = free_loopback_port();
  etcd_url_ = "http://127.0.0.1:" + std::to_string(client);
  const std::string peer_url = "http://127.0.0.1:" + std::to_string(peer);
  std::vector<std::string> args{binaries_.etcd,
                                "--name=default",
                                "--data-dir=" + dir_.file("etcd"),
                                "--listen-client-urls=" + etcd_url_,
                                "--advertise-client-urls=" + etcd_url_,
                                "--listen-peer-urls=" + peer_url,
                                "--initial-advertise-peer-urls=" + peer_url,
                                "--initial-cluster=default=" + peer_url,
                                "--log-level=warn"};
  auto [rc, version] = run_command({binaries_.etcd, "--version"});
  // 3.5 and later: no fsync (test data is thrown away), which makes writes ~10x faster here.
  if (rc == 0 && version.find("etcd Version: 3.4") == std::string::npos) {
    args.push_back("--unsafe-no-fsync");
  }
  etcd_ = std::make_unique<ChildProcess>(args, dir_.file("etcd.log"));
  kube::ClientConfig c;
  c.server = etcd_url_;
  c.qps = 0;
  kube::ApiClient client_for_health(c);
  const bool ready = wait_for(
      [&] {
        try {
          return client_for_health.request("GET", "/health").code == 200;
        } catch (const std::exception&) {
          return false;
        }
      },
      std::chrono::seconds(30), etcd_.get());
  if (!ready) throw std::runtime_error("etcd did not become ready:\n" + etcd_->log_tail());
}

std::vector<std::string> ControlPlane::apiserver_args() const {
  const std::string d = dir_.path();
  std::vector<std::string> args{
      binaries_.apiserver,
      "--etcd-servers=" + etcd_url_,
      "--bind-address=127.0.0.1",
      "--advertise-address=127.0.0.1",
      "--secure-port=" + std::to_string(apiserver_port_),
      "--cert-dir=" + d + "/apiserver-certs",
      "--tls-cert-file=" + d + "/server.crt",
      "--tls-private-key-file=" + d + "/server.key",
      // A client CA makes the server publish kube-system/extension-apiserver-authentication,
      // which kube-scheduler's delegated authentication reads; client certificates from it
      // authenticate (the admin's has O=system:masters).
      "--client-ca-file=" + d + "/ca.crt",
      "--requestheader-client-ca-file=" + d + "/ca.crt",
      // v1.35 (not v1.26) refuses a request-header CA that overlaps the client CA unless only
      // named proxies may use it: none of the test's certificates has this name.
      "--requestheader-allowed-names=front-proxy-client",
      "--token-auth-file=" + d + "/tokens.csv",
      "--authorization-mode=RBAC",
      "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
      "--service-account-key-file=" + d + "/sa.pub",
      "--service-account-signing-key-file=" + d + "/sa.key",
      "--service-cluster-ip-range=10.0.0.0/24",
      // No controller-manager or kubelet runs: no default ServiceAccount would ever be made, and
      // every new node's not-ready taint would stay.
      "--disable-admission-plugins=ServiceAccount,TaintNodesByCondition,Priority",
      // The tests create and bind thousands of pods a second from one client.
      "--enable-priority-and-fairness=false",
      "--max-requests-inflight=3000",
      "--max-mutating-requests-inflight=1000",
      "--profiling=false",
      "--allow-privileged=true",
  };
  const int minor = minor_of(binaries_.version);
  if (minor > 0 && minor < 27) {
    // v1.26 (the fallback binary): spec.schedulingGates is alpha there. In v1.35 the gate is
    // GA and removed, and naming it is an error.
    args.push_back("--feature-gates=PodSchedulingReadiness=true");
  }
  return args;
}

void ControlPlane::start_apiserver() {
  apiserver_ = std::make_unique<ChildProcess>(apiserver_args(), dir_.file("apiserver.log"));
  kube::ApiClient client(admin_config());
  const bool ready = wait_for(
      [&] {
        try {
          return client.request("GET", "/readyz").code == 200;
        } catch (const std::exception&) {
          return false;
        }
      },
      std::chrono::seconds(90), apiserver_.get());
  if (!ready) {
    throw std::runtime_error("kube-apiserver (" + binaries_.apiserver +
                             ") did not become ready:\n" + apiserver_->log_tail());
  }
}

long long ControlPlane::compact_etcd() {
  kube::ClientConfig c;
  c.server = etcd_url_;
  c.qps = 0;
  kube::ApiClient etcd(c);
  // etcd's gRPC gateway: the current revision from any range request, then a compaction.
  const nlohmann::json range = etcd.create("/v3/kv/range", {{"key", "AA=="}});
  const long long revision = std::stoll(range["header"]["revision"].get<std::string>());
  etcd.create("/v3/kv/compaction", {{"revision", std::to_string(revision)}, {"physical", true}});
  return revision;
}

void ControlPlane::stop_apiserver() {
  if (apiserver_) apiserver_->stop();
  apiserver_.reset();
}

}  // namespace schedhost::testing
