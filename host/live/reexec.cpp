#include "live/reexec.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

namespace schedhost::live {
namespace {

// close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) where the kernel has it (5.11), else fd by fd.
void cloexec_above_stderr() {
  if (::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == 0) return;
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return;
  const int own = ::dirfd(dir);
  while (const dirent* entry = ::readdir(dir)) {
    const int fd = std::atoi(entry->d_name);
    if (fd > 2 && fd != own) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
  ::closedir(dir);
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings)
    out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

std::vector<std::string> own_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> argv;
  std::size_t start = 0;
  for (std::size_t nul = all.find('\0'); nul != std::string::npos; nul = all.find('\0', start)) {
    argv.push_back(all.substr(start, nul - start));
    start = nul + 1;
  }
  return argv;
}

std::string reexecute(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  if (argv.empty()) return "cannot re-execute: /proc/self/cmdline could not be read";
  std::vector<std::string> args = argv;
  std::vector<std::string> environment = env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('=') + 1);
    bool replaced = false;
    for (const std::string& mine : env)
      replaced = replaced || mine.rfind(name, 0) == 0;
    if (!replaced) environment.push_back(entry);
  }
  std::vector<char*> arg_pointers = pointers(args);
  std::vector<char*> env_pointers = pointers(environment);
  cloexec_above_stderr();
  ::execve("/proc/self/exe", arg_pointers.data(), env_pointers.data());
  return std::string("cannot re-execute /proc/self/exe: ") + std::strerror(errno);
}

}  // namespace schedhost::live
