// A symlink in a plugin directory may lead only to a file inside that directory (as Kubernetes
// ConfigMap and Secret volumes do), through directories that pass the same ownership and
// permission checks: otherwise whoever controls the target, not the directory, picks the code.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "loader/file_trust.hpp"

namespace schedhost::loader {

// Checks the symlink real_dir/name, where real_dir is the canonical path of the plugin directory
// shown to the user as dir. Empty when it is safe, or dangling (opening it then fails).
std::optional<Distrust> check_symlink(const std::filesystem::path& real_dir, const std::string& dir,
                                      const std::string& name);

}  // namespace schedhost::loader
