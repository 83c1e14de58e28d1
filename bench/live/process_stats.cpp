#include "process_stats.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace schedhost_live_bench {
namespace {

// The fields of /proc/<pid>/stat after the command name, which may hold spaces: field 3 (state)
// is at index 0.
std::vector<std::string> stat_fields(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  if (close == std::string::npos) return {};
  std::istringstream rest(text.substr(close + 1));
  std::vector<std::string> fields;
  for (std::string f; rest >> f;)
    fields.push_back(f);
  return fields;
}

}  // namespace

double process_cpu_seconds(pid_t pid) {
  const std::vector<std::string> f = stat_fields(pid);
  // utime, stime, cutime, cstime: fields 14 to 17.
  if (f.size() < 15) return -1;
  const double ticks = std::stod(f[11]) + std::stod(f[12]) + std::stod(f[13]) + std::stod(f[14]);
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

double process_peak_rss_mib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;  // kB
  }
  return -1;
}

pid_t find_child_process(const std::string& comm) {
  const pid_t self = getpid();
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(name));
    std::ifstream comm_file("/proc/" + name + "/comm");
    std::string process_comm;
    if (!std::getline(comm_file, process_comm) || process_comm != comm) continue;
    const std::vector<std::string> f = stat_fields(pid);
    if (f.size() > 1 && std::stol(f[1]) == self) return pid;  // field 4: the parent
  }
  return -1;
}

}  // namespace schedhost_live_bench
