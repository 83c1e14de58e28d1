#include "kube/credentials.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "kube/exec_credential.hpp"

namespace schedhost::kube {
namespace {

std::string trim(std::string s) {
  const auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

}  // namespace

Credentials::Credentials(const ClientConfig& config) : config_(config) {
  identity_.bearer_token = config.token;
  identity_.client_cert_pem = config.client_cert_pem;
  identity_.client_key_pem = config.client_key_pem;
}

ClientIdentity Credentials::current() {
  std::lock_guard lock(mutex_);
  const Clock::time_point now = Clock::now();
  if (config_.exec) {
    refresh_exec(now);
  } else if (!config_.token_file.empty()) {
    refresh_token_file(now);
  }
  return identity_;
}

void Credentials::invalidate() {
  std::lock_guard lock(mutex_);
  exec_valid_ = false;
  token_file_size_ = -1;  // re-read the token file too
}

void Credentials::refresh_token_file(Clock::time_point now) {
  if (token_file_size_ >= 0 && now - token_file_checked_ < std::chrono::seconds(1)) return;
  token_file_checked_ = now;
  struct stat st {};
  if (::stat(config_.token_file.c_str(), &st) != 0) {
    throw std::runtime_error(config_.token_file +
                             ": cannot read the token file: " + std::strerror(errno));
  }
  if (token_file_size_ == static_cast<long long>(st.st_size) &&
      token_file_mtime_.tv_sec == st.st_mtim.tv_sec &&
      token_file_mtime_.tv_nsec == st.st_mtim.tv_nsec) {
    return;
  }
  std::ifstream in(config_.token_file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) {
    throw std::runtime_error(config_.token_file + ": cannot read the token file");
  }
  identity_.bearer_token = trim(text.str());
  token_file_mtime_ = st.st_mtim;
  token_file_size_ = static_cast<long long>(st.st_size);
}

void Credentials::refresh_exec(Clock::time_point now) {
  // Refresh a little before the expiry, so a request never carries a token about to lapse.
  if (exec_valid_ && (!exec_expiry_ || now + std::chrono::seconds(10) < *exec_expiry_)) return;
  ExecCredential credential = run_exec_credential(*config_.exec, config_.server, config_.ca_pem);
  identity_.bearer_token = credential.token;
  if (!credential.client_cert_pem.empty()) {
    identity_.client_cert_pem = credential.client_cert_pem;
    identity_.client_key_pem = credential.client_key_pem;
  }
  exec_expiry_ = credential.expiry;
  exec_valid_ = true;
}

}  // namespace schedhost::kube
