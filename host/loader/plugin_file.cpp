#include "loader/plugin_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "loader/sha256.hpp"

namespace schedhost::loader {
namespace {

constexpr int kOpenFlags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;

std::string read_error() {
  return "cannot be read: " + std::string(std::strerror(errno));
}

}  // namespace

PluginFile::PluginFile(int fd, std::string error) : fd_(fd), error_(std::move(error)) {
  if (fd_ >= 0 && ::fstat(fd_, &status_) != 0) {
    error_ = read_error();
    ::close(fd_);
    fd_ = -1;
  }
}

PluginFile PluginFile::open(const std::string& path) {
  const int fd = ::open(path.c_str(), kOpenFlags);
  return {fd, fd < 0 ? read_error() : std::string()};
}

PluginFile PluginFile::open_at(int dirfd, const std::string& name) {
  const int fd = ::openat(dirfd, name.c_str(), kOpenFlags);
  return {fd, fd < 0 ? read_error() : std::string()};
}

PluginFile::PluginFile(PluginFile&& other) noexcept
    : fd_(other.fd_), error_(std::move(other.error_)), status_(other.status_) {
  other.fd_ = -1;
}

PluginFile::~PluginFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::string PluginFile::sha256() {
  Sha256 hash;
  std::array<char, 1 << 16> buffer{};
  off_t offset = 0;
  for (;;) {
    const ssize_t got = ::pread(fd_, buffer.data(), buffer.size(), offset);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      error_ = read_error();
      return {};
    }
    if (got == 0) break;
    hash.update(buffer.data(), static_cast<std::size_t>(got));
    offset += got;
  }
  return to_hex(hash.finish());
}

std::string PluginFile::load_path(const std::string& fallback_path) const {
  const std::string proc = "/proc/" + std::to_string(::getpid()) + "/fd/" + std::to_string(fd_);
  struct stat st {};
  const auto same_file = [this](const struct stat& s) {
    return s.st_dev == status_.st_dev && s.st_ino == status_.st_ino;
  };
  if (::stat(proc.c_str(), &st) == 0 && same_file(st)) return proc;
  if (::stat(fallback_path.c_str(), &st) == 0 && same_file(st)) return fallback_path;
  return {};
}

void PluginFile::keep_open_forever() {
  fd_ = -1;  // deliberately leaked: see the header
}

}  // namespace schedhost::loader
