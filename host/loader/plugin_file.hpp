// A plugin file opened once. Its permissions (fstat), its SHA-256 and the code dlopen maps all
// come from this one open file: dlopen reads it through /proc/<pid>/fd/<n>, so a file renamed or
// replaced between the checks and the load is never what gets loaded.
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

  // SHA-256 of the whole file as read from this descriptor (lower-case hex); empty, with
  // error() set, when it cannot be read.
  std::string sha256();

  // The path dlopen should load: /proc/<pid>/fd/<n> (the numeric pid, so debuggers and
  // sanitizer symbolizers in other processes can open it too). Without /proc: fallback_path,
  // and only while it still names this very file.
  std::string load_path(const std::string& fallback_path) const;

  // Keeps the descriptor open for the life of the process. Called once dlopen has seen the
  // file: glibc finds already-loaded libraries by the name they were opened with, so the name
  // /proc/<pid>/fd/<n> must never come to mean another file.
  void keep_open_forever();

 private:
  PluginFile(int fd, std::string error);

  int fd_ = -1;
  std::string error_;
  struct stat status_ {};
};

}  // namespace schedhost::loader
