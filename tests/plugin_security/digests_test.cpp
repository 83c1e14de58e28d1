// --plugin-digests FILE: only files whose SHA-256 FILE lists (by file name, in sha256sum's format)
// are loaded; every other file is refused by name. Built-ins are pinned only when listed. The
// digest files here are written by coreutils' sha256sum, as an operator would.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "loader/sha256.hpp"
#include "security_fixture.hpp"

namespace schedhost {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using testing::loader_fixture;
using testing::ScratchDir;
using testing::SecureSetup;
using testing::set_mode;
using testing::sha256sum_line;
using testing::sha256sum_of;

constexpr const char* kAllPlugins[] = {"DefaultBinder", "PrioritySort", "FixtureFilter",
                                       "FixtureScore"};

class PluginDigests : public ::testing::Test {
 protected:
  // Writes the pin file (mode 0644) and returns its path.
  std::string pins(const std::string& text) {
    const std::string path = files_.write("plugins.sha256", text);
    set_mode(path, 0644);
    return path;
  }

  SecureSetup s_;
  ScratchDir files_;
};

TEST_F(PluginDigests, APinnedFileLoadsAndUnlistedBuiltInsStayExempt) {
  const std::string file =
      pins("# pinned on deploy\n" + sha256sum_line(s_.dir.path(), "valid.so") + "\n");
  const auto r = s_.plugins({"--plugin-digests", file});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_THAT(SecureSetup::names(r),
              ElementsAre(kAllPlugins[0], kAllPlugins[1], kAllPlugins[2], kAllPlugins[3]));
}

TEST_F(PluginDigests, OurDigestIsCoreutilsDigest) {
  const std::string built = testing::builtin_plugin_dir();
  const std::string bytes = testing::read_file(built + "/priority_sort.so");
  EXPECT_EQ(loader::sha256_hex(bytes), sha256sum_of(built, "priority_sort.so"));
}

TEST_F(PluginDigests, AFileThatIsNotListedIsRefusedByName) {
  const std::string extra = s_.dir.copy_in(loader_fixture("valid_other"), "other.so");
  const std::string file = pins(sha256sum_line(s_.dir.path(), "valid.so") + "\n");
  const auto r = s_.plugins({"--plugin-digests", file});
  const std::string error = extra + ": not in --plugin-digests " + file +
                            ": add its sha256sum line to " + file + ", or remove the file";
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + error + "\n");
  EXPECT_THAT(SecureSetup::failed(r), ElementsAre(error));
  EXPECT_THAT(SecureSetup::names(r),
              ElementsAre(kAllPlugins[0], kAllPlugins[1], kAllPlugins[2], kAllPlugins[3]));
}

TEST_F(PluginDigests, AChangedFileIsRefusedWithBothDigests) {
  const std::string expected = sha256sum_of(s_.dir.path(), "valid.so");
  const std::string file = pins("\n" + sha256sum_line(s_.dir.path(), "valid.so") + "\n");
  // Replaced by another build under the same name after it was pinned.
  fs::remove(s_.plugin);
  fs::copy_file(loader_fixture("valid_other"), s_.plugin);
  const std::string got = sha256sum_of(s_.dir.path(), "valid.so");
  ASSERT_NE(expected, got);
  const auto r = s_.plugins({"--plugin-digests", file});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + s_.plugin + ": sha256 mismatch: expected " + expected + " (" + file +
                       ":2), got " + got + ": restore the pinned file, or pin this one in " + file +
                       "\n");
  EXPECT_THAT(SecureSetup::names(r), ElementsAre("DefaultBinder", "PrioritySort"));
}

TEST_F(PluginDigests, OneAppendedByteIsAMismatch) {
  const std::string file = pins(sha256sum_line(s_.dir.path(), "valid.so") + "\n");
  { std::ofstream(s_.plugin, std::ios::binary | std::ios::app) << '\0'; }
  const auto r = s_.plugins({"--plugin-digests", file});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, ::testing::StartsWith("error: " + s_.plugin + ": sha256 mismatch: expected "));
}

TEST_F(PluginDigests, AListedBuiltInMustMatch) {
  const std::string file = pins(sha256sum_line(s_.dir.path(), "valid.so") + "\n" +
                                std::string(64, '0') + "  priority_sort.so\n");
  const auto r = s_.plugins({"--plugin-digests", file});
  const std::string builtin = s_.builtins.path() + "/priority_sort.so";
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + builtin + ": sha256 mismatch: expected " + std::string(64, '0') +
                       " (" + file + ":2), got " +
                       sha256sum_of(s_.builtins.path(), "priority_sort.so") +
                       ": restore the pinned file, or pin this one in " + file + "\n");
  EXPECT_THAT(SecureSetup::names(r), ElementsAre("DefaultBinder", "FixtureFilter", "FixtureScore"));
}

TEST_F(PluginDigests, AnEmptyPinFileRefusesEveryUserPlugin) {
  const std::string file = pins("# nothing is trusted yet\n");
  const auto r = s_.plugins({"--plugin-digests", file});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + s_.plugin + ": not in --plugin-digests " + file +
                       ": add its sha256sum line to " + file + ", or remove the file\n");
}

TEST_F(PluginDigests, APinThatMatchesNoFileIsAWarning) {
  const std::string file =
      pins(sha256sum_line(s_.dir.path(), "valid.so") + "\n" + std::string(64, 'a') + "  gpu.so\n");
  const auto r = s_.plugins({"--plugin-digests", file});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err,
            "warning: " + file + ":2: \"gpu.so\" is pinned but no plugin directory has it\n");
}

TEST_F(PluginDigests, AMalformedLineStopsBeforeAnythingIsLoaded) {
  const std::string file =
      pins(sha256sum_line(s_.dir.path(), "valid.so") + "\n\nsha256:abc  other.so\n");
  const auto r = s_.plugins({"--plugin-digests", file});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + file +
                       ":3: not a \"sha256  filename\" line: expected 64 hex digits, two spaces "
                       "and a file name, as sha256sum prints them\n");
  EXPECT_EQ(r.out, "");
}

TEST_F(PluginDigests, APathInsteadOfAFileNameIsRefused) {
  // `sha256sum /plugins/*.so` prints paths: the message says how to get bare names.
  const std::string file = pins(std::string(64, 'a') + "  " + s_.plugin + "\n");
  const auto r = s_.plugins({"--plugin-digests", file});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + file + ":1: \"" + s_.plugin +
                       "\" is not a bare file name: list plugin files by name, as `sha256sum "
                       "*.so` prints them when run in the plugin directory\n");
}

TEST_F(PluginDigests, AMissingPinFileIsBadInput) {
  const std::string file = files_.file("missing.sha256");
  const auto r = s_.plugins({"--plugin-digests", file});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + file +
                       ": cannot be read (No such file or directory): check the path given to "
                       "--plugin-digests\n");
}

TEST_F(PluginDigests, APinFileOthersMayWriteIsRefused) {
  // Whoever can edit the pins decides what loads: the pin file passes the plugin checks too.
  const std::string file = pins(sha256sum_line(s_.dir.path(), "valid.so") + "\n");
  set_mode(file, 0666);
  const auto r = s_.plugins({"--plugin-digests", file});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + file +
                       ": refusing to use it as --plugin-digests: writable by group and others "
                       "(mode 0666): chmod go-w " +
                       file + ", or pass --allow-insecure-plugins\n");
  const auto allowed = s_.plugins({"--plugin-digests", file, "--allow-insecure-plugins"});
  EXPECT_EQ(allowed.exit_code, 0) << allowed.err;
  EXPECT_EQ(allowed.err,
            "warning: " + file +
                ": insecure --plugin-digests file, allowed by "
                "--allow-insecure-plugins: writable by group and others (mode 0666)\n");
}

TEST_F(PluginDigests, AnAliasIsPinnedByItsOwnName) {
  // alias.so sorts first and is not pinned; valid.so, the same file, is: it still loads.
  fs::create_symlink("valid.so", s_.dir.file("alias.so"));
  const std::string file = pins(sha256sum_line(s_.dir.path(), "valid.so") + "\n");
  const auto r = s_.plugins({"--plugin-digests", file});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + s_.dir.file("alias.so") + ": not in --plugin-digests " + file +
                       ": add its sha256sum line to " + file + ", or remove the file\n");
  EXPECT_THAT(SecureSetup::names(r),
              ElementsAre(kAllPlugins[0], kAllPlugins[1], kAllPlugins[2], kAllPlugins[3]));
}

TEST_F(PluginDigests, AllowInsecurePluginsDoesNotLiftThePins) {
  const std::string extra = s_.dir.copy_in(loader_fixture("valid_other"), "other.so");
  const std::string file = pins(sha256sum_line(s_.dir.path(), "valid.so") + "\n");
  const auto r = s_.plugins({"--plugin-digests", file, "--allow-insecure-plugins"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + extra + ": not in --plugin-digests " + file +
                       ": add its sha256sum line to " + file + ", or remove the file\n");
}

}  // namespace
}  // namespace schedhost
