// Issue 15, item 1 (the host's part), as the user sees it: a plugin enabled in multiPoint that
// ends up at no extension point is one warning line naming the profile, the plugin and the
// library file; the command still succeeds (upstream allows it).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "cli/command_fixtures.hpp"
#include "support/fixtures.hpp"
#include "support/process.hpp"

namespace schedhost::multi_point_warning_command_test {

using testing::FixturePluginDir;
using testing::ProcessResult;
using testing::run_schedhost;
using testing::ScratchDir;

// FixtureFilter (Filter and Score) in multiPoint, and disabled at both: it runs nowhere. Its
// multiPoint entry is on line 9, column 19.
constexpr const char* kProfile = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: gpu-scheduler
    plugins:
      multiPoint:
        enabled:
          - name: PrioritySort
          - name: FixtureFilter
          - name: DefaultBinder
        disabled:
          - name: '*'
      filter:
        disabled:
          - name: FixtureFilter
      score:
        disabled:
          - name: FixtureFilter
)";

TEST(MultiPointWarning, APluginAtNoPointIsOneWarningNamingProfilePluginAndFile) {
  ScratchDir files;
  FixturePluginDir plugins;
  const std::string config = files.write("profile.yaml", kProfile);
  for (const std::string command : {"validate", "run"}) {
    std::vector<std::string> args = {command, "--config", config, "--plugin-dir", plugins.path()};
    if (command == "run") {
      args.insert(args.end(), {"--cluster", files.write("cluster.yaml", testing::kTwoNodesOnePod)});
    }
    const ProcessResult r = run_schedhost(args);
    EXPECT_EQ(r.exit_code, 0) << command << r.err;
    EXPECT_EQ(r.err, "warning: " + config +
                         ":9:19: profile \"gpu-scheduler\": multiPoint plugin \"FixtureFilter\" (" +
                         plugins.file("valid.so") +
                         ") implements none of the hooks multiPoint expands to in this profile, so "
                         "it runs at no extension point: it implements Filter, Score, which the "
                         "profile disables (filter, score); enable it there, or remove it from "
                         "multiPoint\n")
        << command;
  }
}

}  // namespace schedhost::multi_point_warning_command_test
