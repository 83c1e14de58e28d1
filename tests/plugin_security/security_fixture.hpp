// A plugin setup that passes every check (built-in directory and --plugin-dir both 0755 with
// 0755 files, owned by the user running the tests), for a test to weaken one thing at a time.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "support/fixtures.hpp"
#include "support/process.hpp"

namespace schedhost::testing {

inline void set_mode(const std::string& path, mode_t mode) {
  ASSERT_EQ(::chmod(path.c_str(), mode), 0) << path;
}

// What coreutils' sha256sum prints for path, without the newline: an independent check of both
// the digest and the file format --plugin-digests reads.
inline std::string sha256sum_line(const std::string& dir, const std::string& name) {
  const std::string command = "cd '" + dir + "' && sha256sum '" + name + "'";
  std::FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return {};
  char buf[512] = {};
  const bool read = std::fgets(buf, sizeof buf, pipe) != nullptr;
  ::pclose(pipe);
  std::string line = read ? buf : "";
  if (!line.empty() && line.back() == '\n') line.pop_back();
  return line;
}

inline std::string sha256sum_of(const std::string& dir, const std::string& name) {
  return sha256sum_line(dir, name).substr(0, 64);
}

class SecureSetup {
 public:
  SecureSetup() {
    set_mode(builtins.path(), 0755);
    set_mode(dir.path(), 0755);
    plugin = dir.copy_in(loader_fixture("valid"), "valid.so");
    set_mode(plugin, 0755);
  }

  // schedhost plugins -o json --plugin-dir <dir> [extra...], with the two built-ins.
  ProcessResult plugins(const std::vector<std::string>& extra = {}) const {
    std::vector<std::string> args = {"plugins", "-o", "json", "--plugin-dir", dir.path()};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_schedhost(args, builtins.env());
  }

  // The names of the plugins `plugins -o json` listed.
  static std::vector<std::string> names(const ProcessResult& r) {
    std::vector<std::string> out;
    const auto json = nlohmann::json::parse(r.out, nullptr, false);
    if (json.is_discarded()) return {"<not JSON: " + r.out + ">"};
    for (const auto& p : json["plugins"])
      out.push_back(p["name"]);
    return out;
  }
  // "file: error" per library that `plugins -o json` listed as failed.
  static std::vector<std::string> failed(const ProcessResult& r) {
    std::vector<std::string> out;
    const auto json = nlohmann::json::parse(r.out, nullptr, false);
    if (json.is_discarded()) return {"<not JSON: " + r.out + ">"};
    for (const auto& f : json["failed"])
      out.push_back(f["file"].get<std::string>() + ": " + f["error"].get<std::string>());
    return out;
  }

  TwoBuiltIns builtins;
  ScratchDir dir;
  std::string plugin;
};

}  // namespace schedhost::testing
