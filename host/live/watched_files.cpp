#include "live/watched_files.hpp"

#include <sys/stat.h>

#include <filesystem>

namespace schedhost::live {
namespace {

namespace fs = std::filesystem;

FileState state_of(const std::string& path) {
  FileState state;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return state;  // missing (or a dangling symlink)
  std::error_code ec;
  state.target = fs::canonical(path, ec).string();
  state.device = st.st_dev;
  state.inode = st.st_ino;
  state.size = st.st_size;
  state.mtime_ns =
      static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  return state;
}

bool is_plugin(const std::string& path) {
  return fs::path(path).extension() == ".so";
}

void add_part(std::string& text, const char* what, const std::vector<std::string>& paths) {
  if (paths.empty()) return;
  text += (text.empty() ? "" : "; ") + std::string(what) + ": ";
  for (std::size_t i = 0; i < paths.size(); ++i)
    text += (i == 0 ? "" : ", ") + paths[i];
}

}  // namespace

WatchedFiles snapshot(const WatchedPaths& paths) {
  WatchedFiles files;
  for (const std::string& file : paths.files)
    files[file] = state_of(file);
  for (const std::string& dir : paths.plugin_dirs) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const std::string path = entry.path().string();
      if (is_plugin(path)) files[path] = state_of(path);
    }
  }
  return files;
}

std::string describe_changes(const WatchedFiles& before, const WatchedFiles& after) {
  std::vector<std::string> changed, added, removed;
  for (const auto& [path, state] : after) {
    const auto it = before.find(path);
    if (it == before.end() || (it->second.size < 0 && state.size >= 0)) {
      added.push_back(path);
    } else if (state.size < 0 && it->second.size >= 0) {
      removed.push_back(path);
    } else if (!(it->second == state)) {
      changed.push_back(path);
    }
  }
  for (const auto& [path, state] : before) {
    if (!after.contains(path) && state.size >= 0) removed.push_back(path);
  }
  std::string text;
  add_part(text, "changed", changed);
  add_part(text, "added", added);
  add_part(text, "removed", removed);
  return text;
}

std::vector<std::string> changed_plugin_files(const WatchedFiles& before,
                                              const WatchedFiles& after) {
  std::vector<std::string> out;
  for (const auto& [path, state] : after) {
    if (!is_plugin(path) || state.size < 0) continue;
    const auto it = before.find(path);
    if (it == before.end() || !(it->second == state)) out.push_back(path);
  }
  return out;
}

}  // namespace schedhost::live
