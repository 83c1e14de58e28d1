#include "loader/file_trust.hpp"

#include <pwd.h>
#include <unistd.h>

#include <array>
#include <cstdio>

namespace schedhost::loader {
namespace {

std::string user_name(uid_t uid) {
  struct passwd entry {};
  struct passwd* found = nullptr;
  std::array<char, 4096> buffer{};
  if (getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr) {
    return found->pw_name;
  }
  return {};
}

}  // namespace

std::string owner_text(uid_t uid) {
  const std::string name = user_name(uid);
  const std::string id = "uid " + std::to_string(uid);
  return name.empty() ? id : name + " (" + id + ")";
}

std::string mode_text(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

std::optional<Distrust> check_trust(const struct stat& st, const std::string& path) {
  const bool foreign_owner = st.st_uid != 0 && st.st_uid != geteuid();
  const bool group_writable = (st.st_mode & S_IWGRP) != 0;
  const bool others_writable = (st.st_mode & S_IWOTH) != 0;
  if (!foreign_owner && !group_writable && !others_writable) return std::nullopt;

  std::string problem;
  std::string fix;
  if (foreign_owner) {
    problem = "owned by " + owner_text(st.st_uid) + ", not root or the user running schedhost";
    fix = "chown root " + path;
  }
  if (group_writable || others_writable) {
    const char* who = group_writable && others_writable ? "group and others"
                      : group_writable                  ? "group"
                                                        : "others";
    problem += (problem.empty() ? "writable by " : ", and writable by ") + std::string(who) +
               " (mode " + mode_text(st.st_mode) + ")";
    fix += (fix.empty() ? "" : " && ") + std::string("chmod go-w ") + path;
  }
  return Distrust{problem, fix};
}

std::string refusal(const std::string& action, const Distrust& distrust) {
  return "refusing to " + action + ": " + distrust.problem + ": " + distrust.fix + ", or pass " +
         kAllowInsecureFlag;
}

std::string override_warning(const std::string& what, const std::string& problem) {
  return what + ", allowed by " + std::string(kAllowInsecureFlag) + ": " + problem;
}

}  // namespace schedhost::loader
