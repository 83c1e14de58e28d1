// A plugin that crashes or exits inside a hook ends `run` with one line naming the plugin, its
// file and library, the hook, the pod and the node; by the signal for a crash, with exit code 70
// for exit() and quick_exit(), never 0; and no half-written output. `plugins` and `validate`,
// which run no hook, are not affected.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <string>
#include <tuple>

#include "isolation_fixture.hpp"

namespace schedhost {
namespace {

using testing::IsolationDir;

struct HookFault {
  std::string fixture;
  std::string what;  // from "crashed with" or "called" to the end of the line
  int exit_code;     // as the test harness reports it: 128 + signal for a signal
  std::string cluster;
  bool fatal_binds = false;
  friend void PrintTo(const HookFault& f, std::ostream* os) { *os << f.fixture; }
};

const std::string kTwoNodes =
    testing::node_yaml("node-a") + testing::node_yaml("node-b") + testing::pod_yaml("web-1");
const std::string kOneNode = testing::node_yaml("node-a") + testing::pod_yaml("web-1");

class FatalLine : public ::testing::TestWithParam<HookFault> {};

TEST_P(FatalLine, NamesThePluginTheHookThePodAndTheNode) {
  const HookFault& fault = GetParam();
  IsolationDir dir(fault.fixture);
  const std::string profile = testing::fatal_profile(fault.fatal_binds);

  const testing::ProcessResult ran = dir.run(profile, fault.cluster);
  EXPECT_EQ(ran.exit_code, fault.exit_code) << ran.err;
  EXPECT_EQ(ran.err, "fatal: plugin \"Fatal\" (" + dir.plugin() + ", library fatal 1.0.0) " +
                         fault.what + "\n");
  EXPECT_EQ(ran.out, "");  // nothing half-written

  // Loading and creating the plugin runs none of its hooks.
  const testing::ProcessResult listed = dir.plugins();
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(listed.err, "");
  const testing::ProcessResult validated = dir.validate(profile);
  EXPECT_EQ(validated.exit_code, 0) << validated.err;
}

// Filter and Score set up the thread's record once per node and point it at each plugin in turn:
// with built-in plugins called before it on the same node, the line still names the one that
// crashed.
TEST(FatalLineAfterOtherPlugins, NamesThePluginThatCrashedNotTheOneBefore) {
  std::string profile = testing::fatal_profile();
  const std::string only_fatal = "enabled: [{name: Fatal}]";
  profile.replace(profile.find(only_fatal), only_fatal.size(),
                  "enabled: [{name: NodeUnschedulable}, {name: TaintToleration}, {name: Fatal}]");
  testing::ScratchDir built_ins;  // the two plugins called before Fatal
  built_ins.copy_in(testing::builtin_plugin_dir() + "/node_unschedulable.so",
                    "node_unschedulable.so");
  built_ins.copy_in(testing::builtin_plugin_dir() + "/taint_toleration.so", "taint_toleration.so");
  for (const auto& [fixture, hook, node] :
       {std::tuple{"filter_crash", "Filter", "node-a"}, {"score_crash", "Score", "node-b"}}) {
    IsolationDir dir(fixture);
    const testing::ProcessResult ran =
        dir.run(profile, kTwoNodes, {"--plugin-dir", built_ins.path()});
    EXPECT_EQ(ran.exit_code, 128 + SIGSEGV) << ran.err;
    EXPECT_EQ(ran.err, "fatal: plugin \"Fatal\" (" + dir.plugin() +
                           ", library fatal 1.0.0) crashed with SIGSEGV in " + hook +
                           " for pod default/web-1 on node " + node + "\n");
  }
}

INSTANTIATE_TEST_SUITE_P(
    Faults, FatalLine,
    ::testing::Values(
        HookFault{"filter_crash",
                  "crashed with SIGSEGV in Filter for pod default/web-1 on node node-a",
                  128 + SIGSEGV, kTwoNodes},
        HookFault{"score_crash",
                  "crashed with SIGSEGV in Score for pod default/web-1 on node node-b",
                  128 + SIGSEGV, kTwoNodes},
        HookFault{"permit_crash",
                  "crashed with SIGSEGV in Permit for pod default/web-1 on node node-a",
                  128 + SIGSEGV, kOneNode},
        HookFault{"bind_crash", "crashed with SIGSEGV in Bind for pod default/web-1 on node node-a",
                  128 + SIGSEGV, kOneNode, true},
        HookFault{"filter_abort",
                  "crashed with SIGABRT in Filter for pod default/web-1 on node node-a",
                  128 + SIGABRT, kTwoNodes},
        HookFault{"filter_exit",
                  "called exit(0) in Filter for pod default/web-1 on node node-a: exiting 70", 70,
                  kTwoNodes},
        HookFault{"filter_quick_exit",
                  "called quick_exit() in Filter for pod default/web-1 on node node-a: exiting 70",
                  70, kTwoNodes}),
    [](const auto& info) { return info.param.fixture; });

}  // namespace
}  // namespace schedhost
