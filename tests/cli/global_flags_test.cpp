// Issue 15, item 8: --log-level and -v / --v=N are global flags: the same before the subcommand
// and after it. The fixture library logs its life cycle at info ("init", "create", ...), so the
// level shows in what reaches stderr.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/command_fixtures.hpp"
#include "support/fixtures.hpp"
#include "support/process.hpp"

namespace schedhost::global_flags_test {

using testing::FixturePluginDir;
using testing::ProcessResult;
using testing::run_schedhost;
using testing::ScratchDir;

const char* const kInfoLines =
    "info: library \"fixture\": init\n"
    "info: plugin \"FixtureFilter\": create\n"
    "info: plugin \"FixtureFilter\": destroy\n"
    "info: plugin \"FixtureScore\": create\n"
    "info: plugin \"FixtureScore\": destroy\n"
    "info: library \"fixture\": deinit\n";

const char* const kSummary =
    "defaults: kube-scheduler v1.35 (kubescheduler.config.k8s.io/v1)\n"
    "profile \"default-scheduler\": queueSort: PrioritySort; filter: FixtureFilter; score: "
    "FixtureScore (weight 2); bind: DefaultBinder\n";

struct Inputs {
  ScratchDir files;
  FixturePluginDir plugins;
  std::string config = files.write("profile.yaml", testing::kFixtureProfile);

  // `schedhost <before> validate --config C --plugin-dir P <after>`.
  ProcessResult validate(const std::vector<std::string>& before,
                         const std::vector<std::string>& after = {}) const {
    std::vector<std::string> args = before;
    args.insert(args.end(), {"validate", "--config", config, "--plugin-dir", plugins.path()});
    args.insert(args.end(), after.begin(), after.end());
    return run_schedhost(args);
  }
};

TEST(GlobalFlags, WithoutThemOnlyWarningsAreLogged) {
  const Inputs in;
  const ProcessResult r = in.validate({});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, kSummary);
  EXPECT_EQ(r.err, "");
}

TEST(GlobalFlags, LogLevelWorksBeforeAndAfterTheSubcommand) {
  const Inputs in;
  for (const ProcessResult& r :
       {in.validate({"--log-level", "info"}), in.validate({}, {"--log-level", "info"}),
        in.validate({"--log-level=debug"}), in.validate({}, {"--log-level=debug"})}) {
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, kSummary);
    EXPECT_EQ(r.err, kInfoLines);
  }
  for (const ProcessResult& r :
       {in.validate({"--log-level", "error"}), in.validate({}, {"--log-level", "error"})}) {
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
  }
}

TEST(GlobalFlags, VerbosityIsKubeSchedulersV) {
  const Inputs in;
  for (const ProcessResult& r :
       {in.validate({"-v", "2"}), in.validate({}, {"-v", "0"}), in.validate({"--v=4"}),
        in.validate({}, {"--v=6"}), in.validate({}, {"--v", "3"})}) {
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, kInfoLines);
  }
}

TEST(GlobalFlags, GivenBothTheMoreVerboseWins) {
  const Inputs in;
  EXPECT_EQ(in.validate({"--log-level", "error"}, {"-v", "2"}).err, kInfoLines);
  EXPECT_EQ(in.validate({"-v", "1"}, {"--log-level", "info"}).err, kInfoLines);
}

TEST(GlobalFlags, BadValuesAreBadInputWhereverTheyAre) {
  const Inputs in;
  ProcessResult r = in.validate({}, {"--log-level", "loud"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(
      r.err,
      "error: --log-level: loud not in {trace,debug,info,warn,error} (see schedhost --help)\n");
  r = in.validate({"--log-level", "loud"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(
      r.err,
      "error: --log-level: loud not in {trace,debug,info,warn,error} (see schedhost --help)\n");
  r = in.validate({}, {"-v", "-1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "error: --v: -1 is not a verbosity: give a whole number, 0 or more (see schedhost "
            "--help)\n");
}

TEST(GlobalFlags, EveryCommandTakesThem) {
  for (const std::string command :
       {"run", "validate", "plugins", "exercise", "serve", "extender", "version"}) {
    const ProcessResult r = run_schedhost({command, "--help"});
    EXPECT_EQ(r.exit_code, 0) << command;
    EXPECT_THAT(r.out, ::testing::HasSubstr("--log-level")) << command;
    EXPECT_THAT(r.out, ::testing::HasSubstr("-v,--v N")) << command;
  }
}

}  // namespace schedhost::global_flags_test
