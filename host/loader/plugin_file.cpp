#include "loader/plugin_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
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

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U  // Linux 6.3: asks for an executable memfd where vm.memfd_noexec is set
#endif

// A sealable memfd that may be mapped executable; -1 with errno set when the kernel has none.
int executable_memfd(const std::string& name) {
  const std::string label = "schedhost-plugin:" + name;
  int fd = ::memfd_create(label.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);
  if (fd < 0 && errno == EINVAL)
    fd = ::memfd_create(label.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING);
  return fd;
}

bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
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
    : fd_(other.fd_),
      error_(std::move(other.error_)),
      status_(other.status_),
      sealed_(other.sealed_),
      sealing_failure_(std::move(other.sealing_failure_)),
      sha256_(std::move(other.sha256_)) {
  other.fd_ = -1;
}

PluginFile::~PluginFile() {
  if (fd_ >= 0) ::close(fd_);
}

bool PluginFile::seal_copy(const std::string& name) {
  const int copy = executable_memfd(name);
  if (copy < 0) {
    sealing_failure_ = "memfd_create: " + std::string(std::strerror(errno));
    return true;
  }
  // In the kernel (sendfile) where it can, through a buffer where it cannot: never by mapping
  // the file, which could be cut short under the copy.
  off_t offset = 0;
  bool kernel_copy = true;
  std::array<char, 1 << 16> buffer{};
  for (;;) {
    ssize_t got = 0;
    if (kernel_copy) {
      got = ::sendfile(copy, fd_, &offset, 1 << 30);
      if (got < 0 && (errno == EINVAL || errno == ENOSYS)) {
        kernel_copy = false;
        continue;
      }
    } else {
      got = ::pread(fd_, buffer.data(), buffer.size(), offset);
      if (got > 0 && !write_all(copy, buffer.data(), static_cast<std::size_t>(got))) {
        sealing_failure_ = "writing the in-memory copy: " + std::string(std::strerror(errno));
        ::close(copy);
        return true;
      }
      if (got > 0) offset += got;
    }
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      error_ = read_error();
      ::close(copy);
      return false;
    }
    if (got == 0) break;
  }
  constexpr int kSeals = F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE;
  if (::fcntl(copy, F_ADD_SEALS, kSeals) != 0) {
    sealing_failure_ = "sealing the in-memory copy: " + std::string(std::strerror(errno));
    ::close(copy);
    return true;
  }
  ::close(fd_);
  fd_ = copy;
  sealed_ = true;
  return true;
}

std::string PluginFile::identity() const {
  const std::string& digest = sha256_;
  if (digest.empty()) return {};
  return std::to_string(status_.st_dev) + ":" + std::to_string(status_.st_ino) + ":" +
         std::to_string(status_.st_size) + ":" + std::to_string(status_.st_mtim.tv_sec) + "." +
         std::to_string(status_.st_mtim.tv_nsec) + ":" + digest;
}

std::string PluginFile::sha256() {
  if (!sha256_.empty()) return sha256_;
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
  sha256_ = to_hex(hash.finish());
  return sha256_;
}

std::string PluginFile::load_path(const std::string& fallback_path) const {
  std::string proc = "/proc/" + std::to_string(::getpid()) + "/fd/" + std::to_string(fd_);
  struct stat mine {};
  if (::fstat(fd_, &mine) != 0) return {};
  const auto same_file = [](const struct stat& a, const struct stat& b) {
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
  };
  struct stat st {};
  if (::stat(proc.c_str(), &st) == 0 && same_file(st, mine)) return proc;
  if (sealed_) return {};  // the copy has no other name
  if (::stat(fallback_path.c_str(), &st) == 0 && same_file(st, mine)) return fallback_path;
  return {};
}

void PluginFile::keep_open_forever() {
  fd_ = -1;  // deliberately leaked: see the header
}

}  // namespace schedhost::loader
