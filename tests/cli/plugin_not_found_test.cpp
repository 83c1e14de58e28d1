// Issue 15, item 4: "not installed" says which directories were searched (and that one does not
// exist), and "did you mean" for an installed name one case change or one edit away; a
// --plugin-dir that names a file says so; two files defining one plugin name both files and which
// one keeps the name. The real program, real fixture libraries.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli/command_fixtures.hpp"
#include "common/input_error.hpp"
#include "common/plugin_search.hpp"
#include "config/scheduler_configuration.hpp"
#include "framework/framework.hpp"
#include "loader/plugin_registry.hpp"
#include "support/fixtures.hpp"
#include "support/process.hpp"

namespace schedhost::plugin_not_found_test {

using testing::builtin_plugin_dir;
using testing::FixturePluginDir;
using testing::loader_fixture;
using testing::ProcessResult;
using testing::run_schedhost;
using testing::ScratchDir;
using testing::TwoBuiltIns;

// The upstream defaults off; the plugin named `filter` enabled at filter, on line 14, column 19.
std::string profile_with_filter(const std::string& filter) {
  return R"(apiVersion: kubescheduler.config.k8s.io/v1
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
          - name: )" +
         filter + R"(
      bind:
        enabled:
          - name: DefaultBinder
)";
}

TEST(PluginNotFound, NamesTheDirectoriesSearchedAndThatTheDefaultOneDoesNotExist) {
  if (std::filesystem::exists(loader::kDefaultUserPluginDir)) {
    GTEST_SKIP() << "/plugins exists on this machine";
  }
  ScratchDir files;
  TwoBuiltIns builtins;
  const std::string config = files.write("profile.yaml", profile_with_filter("GpuFilter"));
  const ProcessResult r = run_schedhost({"validate", "--config", config}, builtins.env());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "error: " + config +
                       ":14:19: plugin \"GpuFilter\" is not installed (searched, in order: " +
                       builtins.path() +
                       " (built-in), /plugins (does not exist)): put its .so in a --plugin-dir, "
                       "or remove it\n");
}

TEST(PluginNotFound, NamesEveryPluginDirInSearchOrder) {
  ScratchDir files;
  ScratchDir first;
  FixturePluginDir second;
  TwoBuiltIns builtins;
  const std::string config = files.write("profile.yaml", profile_with_filter("GpuFilter"));
  const ProcessResult r =
      run_schedhost({"run", "--config", config, "--cluster",
                     files.write("cluster.yaml", testing::kTwoNodesOnePod), "--plugin-dir",
                     first.path(), "--plugin-dir", second.path()},
                    builtins.env());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "error: " + config +
                       ":14:19: plugin \"GpuFilter\" is not installed (searched, in order: " +
                       builtins.path() + " (built-in), " + first.path() + ", " + second.path() +
                       "): put its .so in a --plugin-dir, or remove it\n");
}

TEST(PluginNotFound, SuggestsTheInstalledNameThatDiffersOnlyInCase) {
  ScratchDir files;
  FixturePluginDir plugins;
  TwoBuiltIns builtins;
  const std::string config = files.write("profile.yaml", profile_with_filter("fixtureFilter"));
  const ProcessResult r = run_schedhost(
      {"validate", "--config", config, "--plugin-dir", plugins.path()}, builtins.env());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + config +
                       ":14:19: plugin \"fixtureFilter\" is not installed (searched, in order: " +
                       builtins.path() + " (built-in), " + plugins.path() +
                       "): did you mean \"FixtureFilter\"? Otherwise put its .so in a "
                       "--plugin-dir, or remove it\n");
}

TEST(PluginNotFound, SuggestsTheInstalledNameOneEditAway) {
  ScratchDir files;
  FixturePluginDir plugins;
  TwoBuiltIns builtins;
  for (const std::string typo : {"FixtureFiltr", "FixtureFilters", "FixtureFolter"}) {
    const std::string config = files.write("profile.yaml", profile_with_filter(typo));
    const ProcessResult r = run_schedhost(
        {"validate", "--config", config, "--plugin-dir", plugins.path()}, builtins.env());
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "error: " + config + ":14:19: plugin \"" + typo +
                         "\" is not installed (searched, in order: " + builtins.path() +
                         " (built-in), " + plugins.path() +
                         "): did you mean \"FixtureFilter\"? Otherwise put its .so in a "
                         "--plugin-dir, or remove it\n");
  }
  // Two edits away: no suggestion.
  const std::string config = files.write("profile.yaml", profile_with_filter("FixtureFiltrs"));
  const ProcessResult r = run_schedhost(
      {"validate", "--config", config, "--plugin-dir", plugins.path()}, builtins.env());
  EXPECT_THAT(r.err, ::testing::Not(::testing::HasSubstr("did you mean")));
}

TEST(PluginNotFound, ExerciseSaysTheSame) {
  ScratchDir files;
  FixturePluginDir plugins;
  TwoBuiltIns builtins;
  const std::string cluster = files.write("cluster.yaml", testing::kTwoNodesOnePod);
  const ProcessResult r = run_schedhost({"exercise", "--plugin", "fixturefilter", "--pod", cluster,
                                         "--cluster", cluster, "--plugin-dir", plugins.path()},
                                        builtins.env());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "error: plugin \"fixturefilter\" is not installed (searched, in order: " +
                       builtins.path() + " (built-in), " + plugins.path() +
                       "): did you mean \"FixtureFilter\"? Otherwise put its .so in a "
                       "--plugin-dir, or check the name with `schedhost plugins`\n");
}

// The framework, given a profile that was not resolved against its registry, says the same.
TEST(PluginNotFound, TheFrameworkSaysTheSame) {
  ScratchDir plugins;
  plugins.copy_in(loader_fixture("valid"), "valid.so");
  loader::PluginRegistry registry;
  registry.load_directories({{plugins.path(), true}});
  config::Profile profile;
  profile.scheduler_name = "p";
  profile.enabled[static_cast<std::size_t>(ExtensionPoint::Score)].push_back(
      {"FixtureScor", 1, {}});
  try {
    framework::Framework framework(profile, registry);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "profile \"p\": plugin \"FixtureScor\" is not installed (searched, in order: " +
                  plugins.path() +
                  "): did you mean \"FixtureScore\"? Otherwise put its .so in a --plugin-dir, or "
                  "remove it");
  }
}

TEST(PluginNotFound, APluginDirThatIsAFileSaysSoAndNamesItsFolder) {
  ScratchDir files;
  FixturePluginDir plugins;
  const std::string library = plugins.file("valid.so");
  const std::string config = files.write("profile.yaml", testing::kFixtureProfile);
  const std::string expected = "error: " + library +
                               ": --plugin-dir names a file, not a directory: pass the folder it "
                               "is in, --plugin-dir " +
                               plugins.path() + "\n";
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"validate", "--config", config, "--plugin-dir", library},
           {"plugins", "--plugin-dir", library},
       }) {
    const ProcessResult r = run_schedhost(args);
    EXPECT_EQ(r.exit_code, 2) << args[0];
    EXPECT_EQ(r.out, "") << args[0];
    EXPECT_EQ(r.err, expected) << args[0];
  }
}

TEST(PluginNotFound, AStrayCopyInTheSameDirectoryNamesBothFilesAndWhichOneWins) {
  ScratchDir files;
  FixturePluginDir plugins;  // valid.so
  // The old copy sorts first ("valid.old.so" < "valid.so"), so it is the one that loads.
  const std::string old_copy = plugins.copy_in(loader_fixture("valid"), "valid.old.so");
  const std::string config = files.write("profile.yaml", testing::kFixtureProfile);
  const ProcessResult r =
      run_schedhost({"validate", "--config", config, "--plugin-dir", plugins.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "error: " + plugins.file("valid.so") +
                       ": plugin \"FixtureFilter\" is also defined by " + old_copy +
                       ", which loads first (files of a directory load in name order) and keeps "
                       "the name: remove " +
                       old_copy + " to use this file, or remove this file to keep " + old_copy +
                       "\n");
}

TEST(PluginNotFound, ACopyInALaterDirectoryNamesBothFilesAndWhichOneWins) {
  ScratchDir files;
  FixturePluginDir first;
  FixturePluginDir second;
  const std::string config = files.write("profile.yaml", testing::kFixtureProfile);
  const ProcessResult r = run_schedhost({"validate", "--config", config, "--plugin-dir",
                                         first.path(), "--plugin-dir", second.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + second.file("valid.so") +
                       ": plugin \"FixtureFilter\" is also defined by " + first.file("valid.so") +
                       ", which loads first (its directory is searched first) and keeps the name: "
                       "remove " +
                       first.file("valid.so") + " to use this file, or remove this file to keep " +
                       first.file("valid.so") + "\n");
}

TEST(PluginNotFound, ACopyOfABuiltInNamesBothFilesAndSaysTheBuiltInWins) {
  ScratchDir files;
  ScratchDir plugins;
  TwoBuiltIns builtins;
  const std::string copy = plugins.copy_in(builtin_plugin_dir() + "/priority_sort.so", "sort.so");
  const std::string builtin = builtins.path() + "/priority_sort.so";
  const ProcessResult r =
      run_schedhost({"plugins", "--plugin-dir", plugins.path()}, builtins.env());
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_THAT(r.err,
              ::testing::HasSubstr(
                  "error: " + copy + ": plugin \"PrioritySort\" is also defined by " + builtin +
                  ", which loads first (the built-in directory is searched first) and "
                  "keeps the name: remove " +
                  builtin + " to use this file, or remove this file to keep " + builtin + "\n"));
}

TEST(PluginSearch, NearNames) {
  const std::vector<std::string> installed = {"NodeName", "NodePorts", "nodename", "ImageLocality"};
  // Case only wins over one edit.
  EXPECT_EQ(near_names("NODENAME", installed), (std::vector<std::string>{"NodeName", "nodename"}));
  EXPECT_EQ(near_names("NodePort", installed), (std::vector<std::string>{"NodePorts"}));
  EXPECT_EQ(near_names("ImageLocalty", installed), (std::vector<std::string>{"ImageLocality"}));
  EXPECT_EQ(near_names("Image", installed), std::vector<std::string>{});
  EXPECT_EQ(near_names("NodeName", installed), (std::vector<std::string>{"nodename"}));
}

TEST(PluginSearch, SearchedDirectoriesText) {
  EXPECT_EQ(searched_directories_text({}), "");
  EXPECT_EQ(searched_directories_text({{"/usr/lib/schedhost/plugins", true, true, false},
                                       {"/plugins", false, false, true},
                                       {"/opt/plugins", false, false, false}}),
            " (searched, in order: /usr/lib/schedhost/plugins (built-in), /plugins (not a "
            "directory), /opt/plugins (does not exist))");
}

}  // namespace schedhost::plugin_not_found_test
