// A library that crashes, exits or hangs while loading (its static constructors, init()) is
// loaded first in a probe child and refused with one line; `plugins`, `run` and `validate` exit 2
// and the host never runs its code.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "isolation_fixture.hpp"

namespace schedhost {
namespace {

using testing::IsolationDir;

struct LoadFault {
  std::string fixture;
  std::string what;  // what the line says it did
  std::vector<std::string> flags;
  friend void PrintTo(const LoadFault& f, std::ostream* os) { *os << f.fixture; }
};

class LoadProbe : public ::testing::TestWithParam<LoadFault> {};

std::string refusal(const IsolationDir& dir, const std::string& what) {
  return "error: " + dir.plugin() + ": " + what +
         " (probed in a child process, not loaded): fix the library or remove it from the plugin "
         "directory\n";
}

TEST_P(LoadProbe, EveryCommandRefusesTheLibraryWithOneLine) {
  const LoadFault& fault = GetParam();
  IsolationDir dir(fault.fixture);
  const std::string line = refusal(dir, fault.what);

  const testing::ProcessResult listed = dir.plugins(fault.flags);
  EXPECT_EQ(listed.exit_code, 2) << listed.err;
  EXPECT_EQ(listed.err, line);
  EXPECT_THAT(listed.out, ::testing::HasSubstr("PrioritySort"));  // the others are listed
  EXPECT_THAT(listed.out, ::testing::Not(::testing::HasSubstr("Fatal")));

  const testing::ProcessResult ran =
      dir.run(testing::fatal_profile(), testing::node_yaml("node-a") + testing::pod_yaml("web-1"),
              fault.flags);
  EXPECT_EQ(ran.exit_code, 2) << ran.err;
  EXPECT_EQ(ran.err, line);
  EXPECT_EQ(ran.out, "");

  const testing::ProcessResult validated = dir.validate(testing::fatal_profile(), fault.flags);
  EXPECT_EQ(validated.exit_code, 2) << validated.err;
  EXPECT_EQ(validated.err, line);
}

INSTANTIATE_TEST_SUITE_P(
    Faults, LoadProbe,
    ::testing::Values(
        LoadFault{"ctor_crash", "crashed with SIGSEGV in its static constructors", {}},
        LoadFault{"ctor_exit", "called exit(0) while loading, in its static constructors", {}},
        LoadFault{"ctor_hang",
                  "did not finish loading within 1.5 s, stuck in its static constructors",
                  {"--plugin-load-timeout", "1.5"}},
        LoadFault{"init_crash", "crashed with SIGSEGV in init()", {}}),
    [](const auto& info) { return info.param.fixture; });

TEST(LoadProbeTimeout, MustBeAPositiveNumberOfSeconds) {
  IsolationDir dir("filter_crash");
  const testing::ProcessResult listed = dir.plugins({"--plugin-load-timeout", "0"});
  EXPECT_EQ(listed.exit_code, 2);
  EXPECT_THAT(listed.err,
              ::testing::StartsWith("error: --plugin-load-timeout: Value 0 not in range"));
}

TEST(LoadProbe, AWellBehavedLibraryIsLoadedAfterItsProbe) {
  IsolationDir dir("filter_crash");  // crashes only when Filter runs: loading it is fine
  const testing::ProcessResult listed = dir.plugins({"-o", "json"});
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(listed.err, "");
  EXPECT_THAT(listed.out, ::testing::HasSubstr("\"name\": \"Fatal\""));
}

}  // namespace
}  // namespace schedhost
