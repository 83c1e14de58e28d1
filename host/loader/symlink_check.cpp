#include "loader/symlink_check.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <system_error>

namespace schedhost::loader {
namespace {

namespace fs = std::filesystem;

// True when path is strictly below dir (both canonical).
bool is_below(const fs::path& path, const fs::path& dir) {
  auto [d, p] = std::mismatch(dir.begin(), dir.end(), path.begin(), path.end());
  return d == dir.end() && p != path.end();
}

}  // namespace

std::optional<Distrust> check_symlink(const fs::path& real_dir, const std::string& dir,
                                      const std::string& name) {
  std::error_code ec;
  const fs::path target = fs::canonical(real_dir / name, ec);
  if (ec) return std::nullopt;
  if (!is_below(target, real_dir)) {
    return Distrust{"a symlink to " + target.string() + ", outside " + dir,
                    "copy the file into " + dir};
  }
  // The directories between the plugin directory (checked by the caller) and the target.
  for (fs::path sub = target.parent_path(); sub != real_dir && sub.has_relative_path();
       sub = sub.parent_path()) {
    struct stat st {};
    if (::stat(sub.c_str(), &st) != 0) return std::nullopt;  // opening the link fails instead
    if (auto distrust = check_trust(st, sub.string())) {
      distrust->problem = "reached through " + sub.string() + ", " + distrust->problem;
      return distrust;
    }
  }
  return std::nullopt;
}

}  // namespace schedhost::loader
