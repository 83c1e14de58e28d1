// The bytes checked are the bytes loaded: the loader opens a plugin file once, checks and hashes
// that open file, and dlopens it through /proc/<pid>/fd/<n>. A file replaced by rename after the
// open (the race a plain path-based dlopen loses) is not what gets loaded.
#include <dlfcn.h>
#include <elf.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <link.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "loader/library_loader.hpp"
#include "loader/plugin_file.hpp"
#include "loader/plugin_registry.hpp"
#include "loader/sha256.hpp"
#include "security_fixture.hpp"

namespace schedhost {
namespace {

namespace fs = std::filesystem;
using testing::loader_fixture;
using testing::ScratchDir;

std::vector<std::string> loaded_object_names() {
  std::vector<std::string> names;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        static_cast<std::vector<std::string>*>(data)->push_back(info->dlpi_name);
        return 0;
      },
      &names);
  return names;
}

TEST(LoadFromFd, AFileSwappedAfterItWasOpenedIsNotWhatGetsLoaded) {
  ScratchDir dir;
  const std::string path = dir.copy_in(loader_fixture("valid"), "plugin.so");
  const std::string checked_digest = loader::sha256_hex(testing::read_file(path));
  loader::PluginFile file = loader::PluginFile::open(path);
  ASSERT_TRUE(file.ok()) << file.error();

  // Someone renames another library over the name between the checks and dlopen.
  const std::string swapped = dir.copy_in(loader_fixture("valid_other"), "swap.so");
  ASSERT_EQ(std::rename(swapped.c_str(), path.c_str()), 0);

  EXPECT_EQ(file.sha256(), checked_digest);
  const std::string load_path = file.load_path(path);
  EXPECT_THAT(load_path, ::testing::StartsWith("/proc/" + std::to_string(::getpid()) + "/fd/"));
  loader::OpenResult opened = loader::open_library(path, load_path);
  file.keep_open_forever();
  ASSERT_TRUE(opened.library) << opened.error;
  EXPECT_EQ(opened.library->info.name, "fixture");  // the file that was checked, not "other"
  EXPECT_EQ(opened.library->info.path, path);       // messages keep the user's path
}

TEST(LoadFromFd, TheRegistryLoadsThroughTheDescriptorItChecked) {
  ScratchDir dir;
  dir.copy_in(loader_fixture("valid_other"), "fd_loaded.so");
  loader::PluginRegistry registry;
  registry.load_directories({{dir.path(), true}});
  ASSERT_TRUE(registry.failures().empty()) << registry.failures()[0].message;
  ASSERT_EQ(registry.libraries().size(), 1u);
  EXPECT_EQ(registry.libraries()[0]->info.path, dir.file("fd_loaded.so"));
  // The dynamic linker knows the library by the descriptor it read it from.
  const std::string prefix = "/proc/" + std::to_string(::getpid()) + "/fd/";
  int through_fd = 0;
  for (const std::string& name : loaded_object_names()) {
    if (name.rfind(prefix, 0) == 0) ++through_fd;
    EXPECT_EQ(name.find(dir.path()), std::string::npos) << name;
  }
  EXPECT_GE(through_fd, 1);
}

TEST(LoadFromFd, TwoLibrariesLoadedOneAfterTheOtherStayDistinct) {
  // glibc finds loaded libraries by name: a reused descriptor number would hand back the first.
  ScratchDir a;
  ScratchDir b;
  a.copy_in(loader_fixture("valid"), "a.so");
  b.copy_in(loader_fixture("valid_other"), "b.so");
  loader::PluginRegistry registry;
  registry.load_directories({{a.path(), true}});
  registry.load_directories({{b.path(), true}});
  ASSERT_TRUE(registry.failures().empty()) << registry.failures()[0].message;
  ASSERT_EQ(registry.libraries().size(), 2u);
  EXPECT_EQ(registry.libraries()[0]->info.name, "fixture");
  EXPECT_EQ(registry.libraries()[1]->info.name, "other");
}

TEST(LoadFromFd, DlopenErrorsNameTheUsersPathNotTheDescriptor) {
  ScratchDir dir;
  // A whole library (so the ELF checks pass) that dlopen refuses to map: a loadable segment
  // whose file offset and address disagree modulo the page size.
  std::string bytes = testing::read_file(loader_fixture("valid"));
  Elf64_Ehdr header{};
  std::memcpy(&header, bytes.data(), sizeof header);
  for (std::size_t i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr ph{};
    const std::size_t at = header.e_phoff + i * sizeof ph;
    std::memcpy(&ph, bytes.data() + at, sizeof ph);
    if (ph.p_type != PT_LOAD || ph.p_offset == 0) continue;
    ph.p_offset += 1;
    ph.p_filesz -= 1;
    std::memcpy(bytes.data() + at, &ph, sizeof ph);
    break;
  }
  const std::string path = dir.write("misaligned.so", bytes);
  loader::PluginRegistry registry;
  registry.load_file(path);
  ASSERT_EQ(registry.failures().size(), 1u);
  const std::string& message = registry.failures()[0].message;
  EXPECT_EQ(message.find("/proc/"), std::string::npos) << message;
  EXPECT_THAT(message, ::testing::StartsWith("cannot be loaded: " + path + ": "));
}

}  // namespace
}  // namespace schedhost
