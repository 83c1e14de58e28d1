// --allow-insecure-plugins loads what the checks would refuse, loudly: one warning line per
// directory, file or symlink let through, from every command that loads plugins.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "security_fixture.hpp"

namespace schedhost {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using testing::loader_fixture;
using testing::ScratchDir;
using testing::SecureSetup;
using testing::set_mode;

constexpr const char* kProfile = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: default-scheduler
    plugins:
      multiPoint:
        disabled:
          - name: '*'
      queueSort:
        enabled:
          - name: PrioritySort
      filter:
        enabled:
          - name: FixtureFilter
      bind:
        enabled:
          - name: DefaultBinder
)";

constexpr const char* kCluster = R"(apiVersion: v1
kind: Node
metadata:
  name: node-a
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
)";

constexpr const char* kPod = R"(apiVersion: v1
kind: Pod
metadata:
  name: web-1
  namespace: default
spec:
  containers:
    - name: app
      image: nginx
)";

// A plugin directory with every kind of problem the override covers.
class EverythingInsecure : public ::testing::Test {
 protected:
  void SetUp() override {
    set_mode(s_.dir.path(), 0777);
    set_mode(s_.plugin, 0666);
    target_ = elsewhere_.copy_in(loader_fixture("valid_other"), "other.so");
    fs::create_symlink(target_, s_.dir.file("other.so"));
  }
  std::string expected_warnings() const {
    const std::string dir = s_.dir.path();
    const std::string link = s_.dir.file("other.so");
    return "warning: " + dir +
           ": insecure plugin directory, allowed by --allow-insecure-plugins: writable by "
           "group and others (mode 0777)\n"
           "warning: " +
           link +
           ": insecure plugin symlink, allowed by --allow-insecure-plugins: a "
           "symlink to " +
           fs::canonical(target_).string() + ", outside " + dir +
           "\n"
           "warning: " +
           s_.plugin +
           ": insecure plugin file, allowed by --allow-insecure-plugins: writable by "
           "group and others (mode 0666)\n";
  }

  SecureSetup s_;
  ScratchDir elsewhere_;
  ScratchDir files_;
  std::string target_;
};

TEST_F(EverythingInsecure, WithoutTheFlagTheDirectoryIsRefused) {
  const auto r = s_.plugins();
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, ::testing::StartsWith("error: " + s_.dir.path() +
                                           ": refusing to load plugins from this directory: "));
}

TEST_F(EverythingInsecure, PluginsLoadsEverythingWithOneWarningEach) {
  const auto r = s_.plugins({"--allow-insecure-plugins"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, expected_warnings());
  EXPECT_THAT(SecureSetup::names(r), ElementsAre("DefaultBinder", "PrioritySort", "OtherFilter",
                                                 "OtherScore", "FixtureFilter", "FixtureScore"));
}

TEST_F(EverythingInsecure, RunValidateAndExerciseTakeTheFlagAndWarnTheSameWay) {
  const std::string config = files_.write("profile.yaml", kProfile);
  const std::string cluster = files_.write("cluster.yaml", kCluster);
  const std::string pod = files_.write("pod.yaml", kPod);
  const std::string dir = s_.dir.path();
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"run", "--config", config, "--cluster", cluster, "--plugin-dir", dir},
           {"validate", "--config", config, "--plugin-dir", dir},
           {"exercise", "--plugin", "FixtureFilter", "--pod", pod, "--cluster", cluster,
            "--plugin-dir", dir}}) {
    std::vector<std::string> allowed = args;
    allowed.push_back("--allow-insecure-plugins");
    const auto r = testing::run_schedhost(allowed, s_.builtins.env());
    EXPECT_EQ(r.exit_code, 0) << args[0] << ": " << r.err;
    EXPECT_EQ(r.err, expected_warnings()) << args[0];
    EXPECT_NE(r.out, "") << args[0];

    const auto refused = testing::run_schedhost(args, s_.builtins.env());
    EXPECT_EQ(refused.exit_code, 2) << args[0];
    EXPECT_EQ(refused.out, "") << args[0];
  }
}

TEST(AllowInsecurePlugins, DoesNotHideOtherLoadFailures) {
  SecureSetup s;
  set_mode(s.plugin, 0666);
  ScratchDir files;
  const std::string junk = s.dir.write("junk.so", "not a library\n");
  set_mode(junk, 0666);
  const auto r = s.plugins({"--allow-insecure-plugins"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "warning: " + junk +
                       ": insecure plugin file, allowed by --allow-insecure-plugins: "
                       "writable by group and others (mode 0666)\n"
                       "warning: " +
                       s.plugin +
                       ": insecure plugin file, allowed by --allow-insecure-plugins: "
                       "writable by group and others (mode 0666)\n"
                       "error: " +
                       junk + ": not a shared object (no ELF header)\n");
}

}  // namespace
}  // namespace schedhost
