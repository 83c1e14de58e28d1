// Runs the schedhost program as a user would, capturing its exit code, stdout and stderr.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "support/fixtures.hpp"

namespace schedhost::testing {

struct ProcessResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs bin/schedhost with args (no shell), stdin from /dev/null, and env (NAME=value) added to
// its environment.
inline ProcessResult run_schedhost(const std::vector<std::string>& args,
                                   const std::vector<std::string>& env = {}) {
  ScratchDir tmp;
  const std::string out_path = tmp.file("stdout");
  const std::string err_path = tmp.file("stderr");
  const pid_t pid = fork();
  if (pid == 0) {
    if (!freopen("/dev/null", "r", stdin) || !freopen(out_path.c_str(), "w", stdout) ||
        !freopen(err_path.c_str(), "w", stderr)) {
      _exit(127);
    }
    for (const std::string& e : env)
      putenv(const_cast<char*>(e.c_str()));
    const std::string binary = schedhost_binary();
    std::vector<char*> argv{const_cast<char*>(binary.c_str())};
    for (const std::string& a : args)
      argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ProcessResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = read_file(out_path);
  result.err = read_file(err_path);
  return result;
}

}  // namespace schedhost::testing
