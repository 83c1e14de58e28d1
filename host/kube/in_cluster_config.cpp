#include "kube/in_cluster_config.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "cluster/input_file.hpp"
#include "common/input_error.hpp"

namespace schedhost::kube {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kPrefix = "unable to load in-cluster configuration";
constexpr std::string_view kFix = "pass --kubeconfig, or run schedhost in a pod";

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

std::string trimmed(std::string_view text) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!text.empty() && space(text.front()))
    text.remove_prefix(1);
  while (!text.empty() && space(text.back()))
    text.remove_suffix(1);
  return std::string(text);
}

[[noreturn]] void fail_file(const fs::path& path, int error, std::string_view fix) {
  throw InputError(std::string(kPrefix) + ": " + path.string() + ": " + std::strerror(error) +
                   ": " + std::string(fix));
}

// The file's bytes; nullopt when it does not exist, with `required` an error.
std::optional<std::string> read(const fs::path& path, bool required, std::string_view fix) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) fail_file(path, EISDIR, fix);
  std::optional<std::string> text = read_input_file(path, fix);
  if (!text) {
    const int error = errno;
    if (required || error != ENOENT) fail_file(path, error, fix);
  }
  return text;
}

}  // namespace

ClientConfig load_in_cluster_config(const std::string& service_account_dir) {
  const std::string host = env("KUBERNETES_SERVICE_HOST");
  const std::string port = env("KUBERNETES_SERVICE_PORT");
  if (host.empty() || port.empty()) {
    throw InputError(std::string(kPrefix) +
                     ", KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined: " +
                     std::string(kFix));
  }
  bool port_ok = port.size() <= 5;
  for (char c : port)
    port_ok = port_ok && c >= '0' && c <= '9';
  if (!port_ok || std::stoi(port) < 1 || std::stoi(port) > 65535) {
    throw InputError(std::string(kPrefix) + ": KUBERNETES_SERVICE_PORT \"" + port +
                     "\" is not a port number: " + std::string(kFix));
  }

  ClientConfig config;
  const bool ipv6 = host.find(':') != std::string::npos && host.front() != '[';
  config.server = "https://" + (ipv6 ? "[" + host + "]" : host) + ":" + port;

  const fs::path dir(service_account_dir);
  const std::string mount_fix =
      "mount the pod's service account token (automountServiceAccountToken), or " +
      std::string(kFix.substr(0, kFix.find(',')));
  const fs::path token = dir / "token";
  std::error_code ec;
  if (fs::is_directory(token, ec)) fail_file(token, EISDIR, mount_fix);
  if (::access(token.c_str(), R_OK) != 0) fail_file(token, errno, mount_fix);
  config.token_file = token.string();
  config.ca_pem = *read(dir / "ca.crt", true, mount_fix);

  // As client-go's in-cluster namespace: $POD_NAMESPACE, else the service account's.
  config.namespace_ = trimmed(env("POD_NAMESPACE"));
  if (config.namespace_.empty()) {
    if (auto text = read(dir / "namespace", false, mount_fix)) config.namespace_ = trimmed(*text);
  }
  if (config.namespace_.empty()) config.namespace_ = "default";
  config.source = "in-cluster service account";
  return config;
}

}  // namespace schedhost::kube
