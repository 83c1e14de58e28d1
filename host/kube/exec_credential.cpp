#include "kube/exec_credential.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/rfc3339.hpp"
#include "common/unique_fd.hpp"
#include "kube/kubeconfig.hpp"

extern char** environ;

namespace schedhost::kube {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxStderr = 64 << 10;

class Failure {
 public:
  explicit Failure(const ExecCredentialPlugin& plugin)
      : prefix_("exec credential plugin \"" + plugin.command + "\": ") {}
  [[noreturn]] void operator()(const std::string& message) const {
    throw std::runtime_error(prefix_ + message);
  }

 private:
  std::string prefix_;
};

// Text on one line: runs of whitespace (line breaks too) become one space.
std::string one_line(std::string_view text) {
  std::string out;
  for (char c : text) {
    const bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r';
    if (space) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  while (!out.empty() && out.back() == ' ')
    out.pop_back();
  return out;
}

// The first line of stderr that is not blank, trimmed and capped.
std::string first_line(std::string_view text) {
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string line = one_line(text.substr(0, end));
    if (!line.empty()) {
      if (line.size() > 500) line = line.substr(0, 500) + "...";
      return line;
    }
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return "";
}

std::string duration_text(std::chrono::milliseconds timeout) {
  if (timeout.count() % 1000 == 0) return std::to_string(timeout.count() / 1000) + " s";
  return std::to_string(timeout.count()) + " ms";
}

std::string exec_info(const ExecCredentialPlugin& plugin, const std::string& server,
                      const std::string& ca_pem) {
  nlohmann::ordered_json info;
  info["kind"] = "ExecCredential";
  info["apiVersion"] = plugin.api_version;
  nlohmann::ordered_json spec = nlohmann::ordered_json::object();
  if (plugin.provide_cluster_info) {
    nlohmann::ordered_json cluster;
    cluster["server"] = server;
    if (!ca_pem.empty()) cluster["certificate-authority-data"] = encode_base64(ca_pem);
    spec["cluster"] = std::move(cluster);
  }
  spec["interactive"] = false;
  info["spec"] = std::move(spec);
  return info.dump();
}

// The process environment with `added` set (replacing a variable of the same name).
std::vector<std::string> environment(
    const std::vector<std::pair<std::string, std::string>>& added) {
  std::vector<std::string> out;
  for (char** entry = environ; entry && *entry; ++entry) {
    const std::string_view text(*entry);
    const std::string_view name = text.substr(0, text.find('='));
    bool replaced = false;
    for (const auto& [added_name, value] : added)
      replaced = replaced || added_name == name;
    if (!replaced) out.emplace_back(text);
  }
  for (std::size_t i = 0; i < added.size(); ++i) {
    bool later = false;  // as Go's exec: the last of repeated names wins
    for (std::size_t j = i + 1; j < added.size(); ++j)
      later = later || added[j].first == added[i].first;
    if (!later) out.push_back(added[i].first + "=" + added[i].second);
  }
  return out;
}

struct Output {
  std::string out;
  std::string err;
  int status = 0;
  bool timed_out = false;
  bool too_much = false;
};

Output run(const ExecCredentialPlugin& plugin, const std::vector<std::string>& env,
           std::chrono::milliseconds timeout, const Failure& fail) {
  int out_pipe[2];
  int err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) fail(std::string("pipe: ") + std::strerror(errno));
  UniqueFd out_read(out_pipe[0]);
  UniqueFd out_write(out_pipe[1]);
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) fail(std::string("pipe: ") + std::strerror(errno));
  UniqueFd err_read(err_pipe[0]);
  UniqueFd err_write(err_pipe[1]);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_write.get(), 1);
  posix_spawn_file_actions_adddup2(&actions, err_write.get(), 2);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  // Its own process group, so that a timeout kills what it started too; signals as a fresh
  // process has them (a server often ignores SIGPIPE or blocks signals in its threads).
  posix_spawnattr_setflags(&attributes,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attributes, 0);
  sigset_t signals;
  sigemptyset(&signals);
  posix_spawnattr_setsigmask(&attributes, &signals);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD})
    sigaddset(&signals, sig);
  posix_spawnattr_setsigdefault(&attributes, &signals);

  std::vector<std::string> arg_strings{plugin.command};
  arg_strings.insert(arg_strings.end(), plugin.args.begin(), plugin.args.end());
  std::vector<char*> argv;
  for (std::string& arg : arg_strings)
    argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_strings = env;
  std::vector<char*> envp;
  for (std::string& entry : env_strings)
    envp.push_back(entry.data());
  envp.push_back(nullptr);

  pid_t pid = -1;
  const int spawned =
      ::posix_spawnp(&pid, plugin.command.c_str(), &actions, &attributes, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (spawned != 0) {
    const std::string hint = one_line(plugin.install_hint);
    fail("cannot run it: " + std::string(std::strerror(spawned)) + ": " +
         (hint.empty() ? "install it, or fix the user's exec.command in the kubeconfig" : hint));
  }
  out_write.reset();
  err_write.reset();

  Output output;
  const Clock::time_point deadline = Clock::now() + timeout;
  bool out_open = true;
  bool err_open = true;
  char buffer[16384];
  while ((out_open || err_open) && !output.too_much) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      output.timed_out = true;
      break;
    }
    pollfd fds[2];
    nfds_t count = 0;
    if (out_open) fds[count++] = pollfd{out_read.get(), POLLIN, 0};
    if (err_open) fds[count++] = pollfd{err_read.get(), POLLIN, 0};
    const int ready = ::poll(fds, count, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) break;
    for (nfds_t i = 0; ready > 0 && i < count; ++i) {
      if (fds[i].revents == 0) continue;
      const bool is_out = fds[i].fd == out_read.get();
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) {
        (is_out ? out_open : err_open) = false;
        continue;
      }
      const std::size_t size = static_cast<std::size_t>(n);
      if (is_out) {
        if (output.out.size() + size > kMaxExecCredentialOutput) output.too_much = true;
        output.out.append(buffer, std::min(size, kMaxExecCredentialOutput - output.out.size()));
      } else if (output.err.size() < kMaxStderr) {
        output.err.append(buffer, std::min(size, kMaxStderr - output.err.size()));
      }
    }
  }

  // Both pipes closed: wait for the exit, still within the deadline.
  while (!output.timed_out && !output.too_much) {
    const pid_t done = ::waitpid(pid, &output.status, WNOHANG);
    if (done == pid) return output;
    if (done < 0 && errno != EINTR) fail(std::string("waitpid: ") + std::strerror(errno));
    if (Clock::now() >= deadline) {
      output.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::kill(-pid, SIGKILL);
  while (::waitpid(pid, &output.status, 0) < 0 && errno == EINTR) {
  }
  return output;
}

std::string credential_field(const nlohmann::json& object, const char* key, const char* name,
                             const Failure& fail) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return "";
  if (!it->is_string()) fail(std::string(name) + " must be a string, got " + it->dump());
  return it->get<std::string>();
}

ExecCredential parse(const ExecCredentialPlugin& plugin, const std::string& text,
                     const Failure& fail) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    std::string what = e.what();
    if (const auto bracket = what.find("] "); what.starts_with("[json.") && bracket != what.npos) {
      what = what.substr(bracket + 2);
    }
    fail("its output is not JSON (" + what + "): the plugin must print an ExecCredential");
  }
  if (!doc.is_object()) fail("its output is not a JSON object: it must be an ExecCredential");
  const std::string kind = credential_field(doc, "kind", "kind", fail);
  if (kind != "ExecCredential") {
    fail("its output has kind \"" + kind + "\", not ExecCredential");
  }
  const std::string api_version = credential_field(doc, "apiVersion", "apiVersion", fail);
  if (api_version != plugin.api_version) {
    fail("its output has apiVersion \"" + api_version + "\", but the kubeconfig asks for \"" +
         plugin.api_version + "\": set exec.apiVersion to the version the plugin prints");
  }
  const auto status = doc.find("status");
  if (status == doc.end() || !status->is_object()) {
    fail("its output has no status: the plugin must print status.token or a client certificate");
  }

  ExecCredential credential;
  credential.token = credential_field(*status, "token", "status.token", fail);
  credential.client_cert_pem =
      credential_field(*status, "clientCertificateData", "status.clientCertificateData", fail);
  credential.client_key_pem =
      credential_field(*status, "clientKeyData", "status.clientKeyData", fail);
  if (credential.client_cert_pem.empty() != credential.client_key_pem.empty()) {
    fail(credential.client_cert_pem.empty()
             ? "its output has status.clientKeyData without status.clientCertificateData"
             : "its output has status.clientCertificateData without status.clientKeyData");
  }
  if (credential.token.empty() && credential.client_cert_pem.empty()) {
    fail(
        "its output has neither status.token nor status.clientCertificateData and "
        "status.clientKeyData");
  }
  const std::string expiry =
      credential_field(*status, "expirationTimestamp", "status.expirationTimestamp", fail);
  if (!expiry.empty()) {
    const std::optional<int64_t> ms = cluster::parse_rfc3339_ms(expiry);
    if (!ms) {
      fail("its status.expirationTimestamp \"" + expiry +
           "\" is not an RFC 3339 time such as 2024-01-02T03:04:05Z");
    }
    credential.expiry = std::chrono::system_clock::time_point(std::chrono::milliseconds(*ms));
  }
  return credential;
}

}  // namespace

ExecCredential run_exec_credential(const ExecCredentialPlugin& plugin, const std::string& server,
                                   const std::string& ca_pem, std::chrono::milliseconds timeout) {
  const Failure fail(plugin);
  std::vector<std::pair<std::string, std::string>> added = plugin.env;
  added.emplace_back("KUBERNETES_EXEC_INFO", exec_info(plugin, server, ca_pem));
  const Output output = run(plugin, environment(added), timeout, fail);

  const std::string stderr_line = first_line(output.err);
  const std::string stderr_part = stderr_line.empty() ? "" : ": " + stderr_line;
  if (output.timed_out) {
    fail("gave no credential within " + duration_text(timeout) + ", so it was killed" +
         stderr_part);
  }
  if (output.too_much) {
    fail("printed more than " + std::to_string(kMaxExecCredentialOutput >> 20) +
         " MiB: is it an exec credential plugin?");
  }
  if (WIFSIGNALED(output.status)) {
    fail("killed by signal " + std::to_string(WTERMSIG(output.status)) + " (" +
         strsignal(WTERMSIG(output.status)) + ")" + stderr_part);
  }
  if (WIFEXITED(output.status) && WEXITSTATUS(output.status) != 0) {
    fail("exit code " + std::to_string(WEXITSTATUS(output.status)) +
         (stderr_line.empty() ? " (and nothing on stderr)" : stderr_part));
  }
  return parse(plugin, output.out, fail);
}

}  // namespace schedhost::kube
