// A symlink in a plugin directory may lead only into that directory (the way Kubernetes ConfigMap
// and Secret volumes link ..data/<file>), through directories that pass the same checks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "security_fixture.hpp"

namespace schedhost {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using testing::loader_fixture;
using testing::ScratchDir;
using testing::SecureSetup;
using testing::set_mode;

std::string canonical(const std::string& path) {
  return fs::canonical(path).string();
}

TEST(PluginSymlinks, ALinkOutOfTheDirectoryIsRefusedNamingItsTarget) {
  SecureSetup s;
  ScratchDir elsewhere;
  const std::string target = elsewhere.copy_in(loader_fixture("valid_other"), "other.so");
  const std::string link = s.dir.file("other.so");
  fs::create_symlink(target, link);
  const auto r = s.plugins();
  const std::string error = link + ": refusing to load: a symlink to " + canonical(target) +
                            ", outside " + s.dir.path() + ": copy the file into " + s.dir.path() +
                            ", or pass --allow-insecure-plugins";
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + error + "\n");
  EXPECT_THAT(SecureSetup::failed(r), ElementsAre(error));
  EXPECT_THAT(SecureSetup::names(r),
              ElementsAre("DefaultBinder", "PrioritySort", "FixtureFilter", "FixtureScore"));
}

TEST(PluginSymlinks, ARelativeLinkThatClimbsOutIsRefused) {
  SecureSetup s;
  const fs::path parent = fs::path(s.dir.path()) / "plugins";
  fs::create_directory(parent);
  set_mode(parent.string(), 0755);
  // dir/plugins/escape.so -> ../valid.so: the file exists, but above the plugin directory.
  const std::string link = (parent / "escape.so").string();
  fs::create_symlink("../valid.so", link);
  const auto r =
      testing::run_schedhost({"plugins", "--plugin-dir", parent.string()}, s.builtins.env());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + link + ": refusing to load: a symlink to " + canonical(s.plugin) +
                       ", outside " + parent.string() + ": copy the file into " + parent.string() +
                       ", or pass --allow-insecure-plugins\n");
}

TEST(PluginSymlinks, LinksInsideTheDirectoryLoadLikeAConfigMapVolume) {
  SecureSetup s;
  // The layout kubelet writes: <dir>/..2026_11_30/<file>, ..data -> ..2026_11_30, <file> ->
  // ..data/<file>.
  const fs::path dir = s.dir.path();
  fs::create_directory(dir / "..2026_11_30");
  set_mode((dir / "..2026_11_30").string(), 0755);
  fs::copy_file(loader_fixture("valid_other"), dir / "..2026_11_30" / "other.so");
  fs::create_directory_symlink("..2026_11_30", dir / "..data");
  fs::create_symlink("..data/other.so", dir / "other.so");
  const auto r = s.plugins();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_THAT(SecureSetup::names(r), ElementsAre("DefaultBinder", "PrioritySort", "OtherFilter",
                                                 "OtherScore", "FixtureFilter", "FixtureScore"));
}

TEST(PluginSymlinks, ALinkThroughAWritableSubdirectoryIsRefused) {
  SecureSetup s;
  const fs::path sub = fs::path(s.dir.path()) / "shared";
  fs::create_directory(sub);
  set_mode(sub.string(), 0777);
  fs::copy_file(loader_fixture("valid_other"), sub / "other.so");
  const std::string link = s.dir.file("other.so");
  fs::create_symlink("shared/other.so", link);
  const auto r = s.plugins();
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + link + ": refusing to load: reached through " +
                       canonical(sub.string()) +
                       ", writable by group and others (mode 0777): chmod go-w " +
                       canonical(sub.string()) + ", or pass --allow-insecure-plugins\n");
}

TEST(PluginSymlinks, TheTargetFileItselfIsChecked) {
  SecureSetup s;
  set_mode(s.plugin, 0666);
  const std::string link = s.dir.file("alias.so");  // sorts first: the refusal names the link
  fs::create_symlink("valid.so", link);
  const auto r = s.plugins();
  EXPECT_EQ(r.exit_code, 2);
  // Reported once: the second name reaches the same, already refused, file.
  EXPECT_EQ(r.err, "error: " + link +
                       ": refusing to load: writable by group and others (mode 0666): chmod go-w " +
                       link + ", or pass --allow-insecure-plugins\n");
}

TEST(PluginSymlinks, AGivenPluginDirectoryMayItselfBeASymlink) {
  SecureSetup s;  // --plugin-dir /plugins where /plugins -> /mnt/volume: the operator chose it
  ScratchDir holder;
  const std::string via = holder.file("plugins");
  fs::create_directory_symlink(s.dir.path(), via);
  const auto r =
      testing::run_schedhost({"plugins", "-o", "json", "--plugin-dir", via}, s.builtins.env());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_THAT(SecureSetup::names(r),
              ElementsAre("DefaultBinder", "PrioritySort", "FixtureFilter", "FixtureScore"));
}

TEST(PluginSymlinks, ADanglingLinkIsOneFailedLibrary) {
  SecureSetup s;
  const std::string link = s.dir.file("gone.so");
  fs::create_symlink("nowhere.so", link);
  const auto r = s.plugins();
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + link + ": cannot be read: No such file or directory\n");
}

}  // namespace
}  // namespace schedhost
