// How `serve --watch-config` restarts on a new configuration: the process replaces itself with
// a fresh copy of the program (/proc/self/exe) and the command line it was started with, which
// then loads the new plugins and profiles as any start does. Same PID, so a supervisor (the
// kubelet, a test) sees one process throughout.
#pragma once

#include <string>
#include <vector>

namespace schedhost::live {

// The command line this process was started with (/proc/self/cmdline), argv[0] included.
// Empty if it cannot be read.
std::vector<std::string> own_command_line();

// Marks every file descriptor above stderr close-on-exec (the API connections, the secure
// port's socket, log files opened by plugins: none may leak into the new process), then
// execve()s /proc/self/exe with argv and our environment plus env ("NAME=value", replacing a
// variable of that name). Returns only when that fails: why, one line.
std::string reexecute(const std::vector<std::string>& argv, const std::vector<std::string>& env);

}  // namespace schedhost::live
