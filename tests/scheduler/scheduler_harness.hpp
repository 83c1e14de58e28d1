// Runs a profile (YAML text) over a cluster (YAML text) with the built-in plugins and the
// cycle fixture plugins, the way `schedhost run` does.
#pragma once

#include <string>
#include <vector>

#include "cluster/cluster_file.hpp"
#include "config/config_parser.hpp"
#include "config/profile_resolver.hpp"
#include "loader/plugin_registry.hpp"
#include "scheduler/scheduler.hpp"
#include "support/cluster_yaml.hpp"
#include "support/fixtures.hpp"

namespace schedhost::testing {

// A profile with every default plugin disabled, PrioritySort and the binders `bind` enabled, and
// `plugins` (YAML lines at the indentation of `plugins:` members, then pluginConfig) added.
inline std::string profile_with(const std::string& plugins,
                                const std::string& bind = "[{name: DefaultBinder}]") {
  return "apiVersion: kubescheduler.config.k8s.io/v1\n"
         "kind: KubeSchedulerConfiguration\n"
         "profiles:\n"
         "- schedulerName: default-scheduler\n"
         "  plugins:\n"
         "    multiPoint:\n"
         "      disabled: [{name: '*'}]\n"
         "    queueSort:\n"
         "      enabled: [{name: PrioritySort}]\n"
         "    bind:\n"
         "      enabled: " +
         bind + "\n" + plugins;
}

class SchedulerHarness {
 public:
  // extra_fixture_dirs: more fixture folders under the test fixture dir (e.g. "plugin_faults").
  explicit SchedulerHarness(const std::vector<std::string>& extra_fixture_dirs = {}) {
    std::vector<loader::PluginDirectory> dirs = {
        {builtin_plugin_dir(), true},
        {std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/scheduler", true}};
    for (const std::string& d : extra_fixture_dirs)
      dirs.push_back({std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/" + d, true});
    registry_.load_directories(dirs);
  }

  scheduler::RunResult run(const std::string& profile, const std::string& cluster,
                           scheduler::RunOptions options = {true, 0, {}, std::nullopt}) {
    config::Resolution resolution = config::resolve_profiles(
        config::parse_configuration(profile, "profile.yaml"), registry_.catalog());
    const cluster::Cluster c = cluster::load_cluster(dir_.write("cluster.yaml", cluster));
    return scheduler::run_scheduler(resolution.configuration, registry_, c, options);
  }

  const loader::PluginRegistry& registry() const { return registry_; }

 private:
  loader::PluginRegistry registry_;
  ScratchDir dir_;
};

}  // namespace schedhost::testing
