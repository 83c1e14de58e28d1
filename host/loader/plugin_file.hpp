// A plugin file opened once. Its permissions (fstat) come from this open file; then its bytes are
// copied into an anonymous in-memory file sealed against every change (memfd_create), and its
// SHA-256, the probe and dlopen all read that copy through /proc/<pid>/fd/<n>. So a file renamed
// or replaced between the checks and the load is never what gets loaded, and a file truncated or
// rewritten in the volume later cannot SIGBUS the code already mapped from it.
#pragma once

#include <sys/stat.h>

#include <string>

namespace schedhost::loader {

class PluginFile {
 public:
  // Opens path, or name relative to the directory dirfd (following a symlink). Never blocks on
  // a FIFO. ok() tells whether it worked, error() why not.
  static PluginFile open(const std::string& path);
  static PluginFile open_at(int dirfd, const std::string& name);

  PluginFile(PluginFile&& other) noexcept;
  PluginFile& operator=(PluginFile&&) = delete;
  PluginFile(const PluginFile&) = delete;
  ~PluginFile();

  bool ok() const { return fd_ >= 0; }
  const std::string& error() const { return error_; }
  const struct stat& status() const { return status_; }

  // Replaces the descriptor by a sealed in-memory copy of the file (named after name, as
  // /proc/<pid>/maps shows it). False, with error() set, when the file cannot be read; when the
  // kernel refuses memfd_create (seccomp, no memfd), the file itself stays in use and
  // sealing_failure() says why.
  bool seal_copy(const std::string& name);
  bool sealed() const { return sealed_; }
  const std::string& sealing_failure() const { return sealing_failure_; }

  // SHA-256 of the whole file as read from this descriptor (lower-case hex); empty, with
  // error() set, when it cannot be read.
  std::string sha256();

  // Device, inode, size and mtime of the file as opened, and the SHA-256 of the bytes: what the
  // probe's verdict is remembered by. Empty until sha256() was computed (with --plugin-digests):
  // hashing every library only for the cache would cost more than it saves.
  std::string identity() const;

  // The path dlopen should load: /proc/<pid>/fd/<n> (the numeric pid, so the probe child,
  // debuggers and sanitizer symbolizers in other processes can open it too). Without /proc, and
  // unsealed: fallback_path, and only while it still names this very file.
  std::string load_path(const std::string& fallback_path) const;

  // Keeps the descriptor open for the life of the process. Called once dlopen has seen the
  // file: glibc finds already-loaded libraries by the name they were opened with, so the name
  // /proc/<pid>/fd/<n> must never come to mean another file.
  void keep_open_forever();

 private:
  PluginFile(int fd, std::string error);

  int fd_ = -1;
  std::string error_;
  struct stat status_ {};  // of the file as opened, also once sealed
  bool sealed_ = false;
  std::string sealing_failure_;
  std::string sha256_;  // computed once
};

}  // namespace schedhost::loader
