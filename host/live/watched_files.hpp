// What `serve --watch-config` compares from one poll to the next: the configuration file (and
// the --plugin-digests file) and every .so of the plugin directories, each by what its path
// resolves to. Polling stat() rather than inotify: it sees a ConfigMap's `..data` symlink swap
// (the resolved target changes) as well as a plugin copied in place, needs no watch descriptors
// (nothing to leak into the re-executed process, no inotify limits), and works on any volume.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace schedhost::live {

// One path's state. A missing file has size -1 and nothing else.
struct FileState {
  std::string target;  // the path with every symlink resolved (a `..data` swap changes it)
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  std::int64_t size = -1;
  std::int64_t mtime_ns = 0;
  bool operator==(const FileState&) const = default;
};

// What to watch: single files, and directories whose *.so files are watched (as the loader
// picks them).
struct WatchedPaths {
  std::vector<std::string> files;
  std::vector<std::string> plugin_dirs;
};

// path -> state, for every watched file and every .so found in the plugin directories.
using WatchedFiles = std::map<std::string, FileState>;

WatchedFiles snapshot(const WatchedPaths& paths);

// The differences from before to after, one line: `changed: /etc/schedhost/config.yaml; added:
// /plugins/gpu.so; removed: /plugins/old.so` (only the parts that apply).
std::string describe_changes(const WatchedFiles& before, const WatchedFiles& after);

// The .so files of after that are new or differ from before (the ones to check one by one).
std::vector<std::string> changed_plugin_files(const WatchedFiles& before,
                                              const WatchedFiles& after);

}  // namespace schedhost::live
