// The files `schedhost exercise` process tests hand to the program: a cluster, a pod, and a
// plugin directory holding copies of the fixture libraries.
#pragma once

#include <string>
#include <vector>

#include "exercise_fixtures.hpp"
#include "support/fixtures.hpp"
#include "support/process.hpp"

namespace schedhost::testing {

struct ExerciseInputs {
  ScratchDir files;
  ScratchDir plugins;
  std::string cluster = files.write("cluster.yaml", kExerciseCluster);
  std::string pod = files.write("pod.yaml", kExercisePod);

  ExerciseInputs() {
    plugins.copy_in(cycle_plugins_library(), "cycle_plugins.so");
    plugins.copy_in(wrapper_fixture_library(), "wrapper_fixture.so");
    plugins.copy_in(staged_library(), "staged_plugin.so");
    plugins.copy_in(example_plugin_dir() + "/sample_plugin.so", "sample_plugin.so");
    plugins.copy_in(example_plugin_dir() + "/example_filter.so", "example_filter.so");
  }

  // exercise --plugin NAME --pod POD --cluster CLUSTER --plugin-dir PLUGINS, then extra.
  std::vector<std::string> args(const std::string& plugin,
                                const std::vector<std::string>& extra = {}) const {
    std::vector<std::string> a = {"exercise",  "--plugin", plugin,         "--pod",       pod,
                                  "--cluster", cluster,    "--plugin-dir", plugins.path()};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  ProcessResult run(const std::string& plugin, const std::vector<std::string>& extra = {}) const {
    return run_schedhost(args(plugin, extra));
  }
};

}  // namespace schedhost::testing
