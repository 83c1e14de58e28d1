// Whether a file or directory may hold plugin code, like ssh's StrictModes: whoever can write a
// plugin (or the directory it is in) runs code inside the scheduler, so only root and the user
// schedhost runs as may own it, and neither its group nor others may write it.
#pragma once

#include <sys/stat.h>

#include <optional>
#include <string>

namespace schedhost::loader {

struct Distrust {
  std::string problem;  // e.g. "writable by group and others (mode 0666)"
  std::string fix;      // e.g. "chmod go-w /plugins/gpu.so"
};

// Empty when st (of path) is owned by root or the effective user and not writable by group or
// others; otherwise what is wrong and the command that fixes it.
std::optional<Distrust> check_trust(const struct stat& st, const std::string& path);

// "alice (uid 1000)", or "uid 1000" for a uid without a name: how messages name an owner.
std::string owner_text(uid_t uid);
// The permission bits in octal, "0755".
std::string mode_text(mode_t mode);

inline constexpr const char* kAllowInsecureFlag = "--allow-insecure-plugins";

// "refusing to <action>: <problem>: <fix>, or pass --allow-insecure-plugins".
std::string refusal(const std::string& action, const Distrust& distrust);

// "<insecure what>, allowed by --allow-insecure-plugins: <problem>".
std::string override_warning(const std::string& what, const std::string& problem);

}  // namespace schedhost::loader
