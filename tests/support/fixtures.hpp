// Paths to the fixture plugins and built-in plugins the build produced, and scratch directories.
#pragma once

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

namespace schedhost::testing {

inline std::string loader_fixture(const std::string& name) {
  return std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/loader/" + name + ".so";
}

inline std::string builtin_plugin_dir() {
  return std::string(SCHEDHOST_BINARY_DIR) + "/lib/schedhost/plugins";
}

// The example plugins (SamplePlugin, ExampleFilter, ...): configs/ needs this as a --plugin-dir.
inline std::string example_plugin_dir() {
  return std::string(SCHEDHOST_BINARY_DIR) + "/lib/schedhost/examples";
}

inline std::string schedhost_binary() {
  return std::string(SCHEDHOST_BINARY_DIR) + "/bin/schedhost";
}

// A fresh directory under the system temp dir, removed when the object dies.
class ScratchDir {
 public:
  ScratchDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() /
            ("schedhost-test-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  std::string path() const { return path_.string(); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::string copy_in(const std::string& from, const std::string& name) const {
    std::filesystem::copy_file(from, path_ / name);
    return file(name);
  }
  std::string write(const std::string& name, const std::string& content) const {
    std::ofstream(path_ / name, std::ios::binary) << content;
    return file(name);
  }

 private:
  std::filesystem::path path_;
};

// A built-in directory with only PrioritySort and DefaultBinder, so these tests do not change
// whenever a built-in plugin is added.
class TwoBuiltIns {
 public:
  TwoBuiltIns() {
    dir_.copy_in(builtin_plugin_dir() + "/default_binder.so", "default_binder.so");
    dir_.copy_in(builtin_plugin_dir() + "/priority_sort.so", "priority_sort.so");
  }
  std::string path() const { return dir_.path(); }
  std::vector<std::string> env() const { return {"SCHEDHOST_BUILTIN_PLUGIN_DIR=" + dir_.path()}; }

 private:
  ScratchDir dir_;
};

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace schedhost::testing
