// Like ssh's StrictModes: a plugin file or directory that group or others may write to is refused.
// An unsafe file is one failed library (listed, exit 2); an unsafe directory refuses everything in
// it, before any of its code is loaded.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "security_fixture.hpp"

namespace schedhost {
namespace {

using ::testing::ElementsAre;
using testing::SecureSetup;
using testing::set_mode;

TEST(PluginPermissions, ASafeSetupLoadsWithoutAWord) {
  SecureSetup s;
  const auto r = s.plugins();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_THAT(SecureSetup::names(r),
              ElementsAre("DefaultBinder", "PrioritySort", "FixtureFilter", "FixtureScore"));
}

TEST(PluginPermissions, AFileWritableByGroupAndOthersIsRefused) {
  SecureSetup s;
  set_mode(s.plugin, 0666);
  const auto r = s.plugins();
  const std::string error = s.plugin +
                            ": refusing to load: writable by group and others (mode 0666): chmod "
                            "go-w " +
                            s.plugin + ", or pass --allow-insecure-plugins";
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + error + "\n");
  EXPECT_THAT(SecureSetup::names(r), ElementsAre("DefaultBinder", "PrioritySort"));
  EXPECT_THAT(SecureSetup::failed(r), ElementsAre(error));
}

TEST(PluginPermissions, AFileWritableByGroupIsRefused) {
  SecureSetup s;
  set_mode(s.plugin, 0775);
  const auto r = s.plugins();
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + s.plugin +
                       ": refusing to load: writable by group (mode 0775): chmod go-w " + s.plugin +
                       ", or pass --allow-insecure-plugins\n");
}

TEST(PluginPermissions, AFileWritableByOthersOnlyIsRefused) {
  SecureSetup s;
  set_mode(s.plugin, 0602);
  const auto r = s.plugins();
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + s.plugin +
                       ": refusing to load: writable by others (mode 0602): chmod go-w " +
                       s.plugin + ", or pass --allow-insecure-plugins\n");
}

TEST(PluginPermissions, ReadOnlyAndOwnerWritableFilesLoad) {
  SecureSetup s;
  for (const mode_t mode : {0444, 0500, 0644, 0700, 0755}) {
    set_mode(s.plugin, mode);
    const auto r = s.plugins();
    EXPECT_EQ(r.exit_code, 0) << std::oct << mode << ": " << r.err;
    EXPECT_EQ(r.err, "");
  }
}

TEST(PluginPermissions, ADirectoryWritableByOthersRefusesTheWholeDirectory) {
  SecureSetup s;
  set_mode(s.dir.path(), 0777);
  const auto r = s.plugins();
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + s.dir.path() +
                       ": refusing to load plugins from this directory: writable by group and "
                       "others (mode 0777): chmod go-w " +
                       s.dir.path() + ", or pass --allow-insecure-plugins\n");
  EXPECT_EQ(r.out, "");  // nothing is listed: the command stopped before loading anything
}

TEST(PluginPermissions, AStickyWorldWritableDirectoryIsRefusedToo) {
  SecureSetup s;  // like /tmp: others cannot replace this file, but they can add their own
  set_mode(s.dir.path(), 01777);
  const auto r = s.plugins();
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + s.dir.path() +
                       ": refusing to load plugins from this directory: writable by group and "
                       "others (mode 1777): chmod go-w " +
                       s.dir.path() + ", or pass --allow-insecure-plugins\n");
}

TEST(PluginPermissions, ADirectoryWritableByGroupIsRefused) {
  SecureSetup s;
  set_mode(s.dir.path(), 0775);
  const auto r = s.plugins();
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + s.dir.path() +
                       ": refusing to load plugins from this directory: writable by group (mode "
                       "0775): chmod go-w " +
                       s.dir.path() + ", or pass --allow-insecure-plugins\n");
}

TEST(PluginPermissions, TheBuiltInDirectoryIsCheckedToo) {
  SecureSetup s;
  set_mode(s.builtins.path(), 0777);
  const auto r = s.plugins();
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + s.builtins.path() +
                       ": refusing to load plugins from this directory: writable by group and "
                       "others (mode 0777): chmod go-w " +
                       s.builtins.path() + ", or pass --allow-insecure-plugins\n");
}

TEST(PluginPermissions, ABuiltInFileIsCheckedToo) {
  SecureSetup s;
  const std::string binder = s.builtins.path() + "/default_binder.so";
  set_mode(binder, 0666);
  const auto r = s.plugins();
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + binder +
                       ": refusing to load: writable by group and others (mode 0666): chmod go-w " +
                       binder + ", or pass --allow-insecure-plugins\n");
  EXPECT_THAT(SecureSetup::names(r), ElementsAre("PrioritySort", "FixtureFilter", "FixtureScore"));
}

TEST(PluginPermissions, AnInsecureFileStopsRunValidateAndExercise) {
  // The same refusal, the same exit code, from every command that loads plugins.
  SecureSetup s;
  set_mode(s.plugin, 0666);
  const std::string error = "error: " + s.plugin +
                            ": refusing to load: writable by group and others (mode 0666): chmod "
                            "go-w " +
                            s.plugin + ", or pass --allow-insecure-plugins\n";
  testing::ScratchDir files;
  const std::string config = files.write("profile.yaml",
                                         "apiVersion: "
                                         "kubescheduler.config.k8s.io/v1\nkind: "
                                         "KubeSchedulerConfiguration\n");
  const std::string cluster =
      files.write("cluster.yaml", "apiVersion: v1\nkind: List\nitems: []\n");
  const std::string pod = files.write(
      "pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec: {}\n");
  const std::string dir = s.dir.path();
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"run", "--config", config, "--cluster", cluster, "--plugin-dir", dir},
           {"validate", "--config", config, "--plugin-dir", dir},
           {"exercise", "--plugin", "FixtureFilter", "--pod", pod, "--cluster", cluster,
            "--plugin-dir", dir}}) {
    const auto r = testing::run_schedhost(args, s.builtins.env());
    EXPECT_EQ(r.exit_code, 2) << args[0];
    EXPECT_EQ(r.err, error) << args[0];
    EXPECT_EQ(r.out, "") << args[0];
  }
}

TEST(PluginPermissions, ANonRegularFileIsRefusedWithoutBlocking) {
  SecureSetup s;  // a FIFO would block a plain open() forever
  const std::string fifo = s.dir.file("pipe.so");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  const auto r = s.plugins();
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "error: " + fifo + ": not a regular file: remove it from the plugin directory\n");
}

}  // namespace
}  // namespace schedhost
