// What the plugin isolation tests share: a plugin directory holding one fixture library as
// fatal.so, the two built-ins, a profile that enables the fixture's plugin, and the three
// commands a user runs on it.
#pragma once

#include <string>
#include <vector>

#include "support/cluster_yaml.hpp"
#include "support/fixtures.hpp"
#include "support/process.hpp"

namespace schedhost::testing {

inline std::string isolation_fixture(const std::string& fault) {
  return std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/plugin_isolation/" + fault + ".so";
}

// Fatal at every point it implements; PrioritySort sorts; DefaultBinder binds unless Fatal does.
inline std::string fatal_profile(bool fatal_binds = false, const std::string& args_dir = {}) {
  std::string yaml = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      disabled: [{name: '*'}]
      enabled: [{name: Fatal}]
    queueSort:
      enabled: [{name: PrioritySort}]
)";
  if (!fatal_binds) yaml += "    bind:\n      enabled: [{name: DefaultBinder}]\n";
  if (!args_dir.empty()) {
    yaml += "  pluginConfig:\n  - name: Fatal\n    args: {dir: '" + args_dir + "'}\n";
  }
  return yaml;
}

class IsolationDir {
 public:
  // fault: the fixture's file name (e.g. "filter_crash"); it is copied in as fatal.so.
  explicit IsolationDir(const std::string& fault) {
    plugin_ = plugins_.copy_in(isolation_fixture(fault), "fatal.so");
  }
  const std::string& plugin() const { return plugin_; }
  std::string plugin_dir() const { return plugins_.path(); }
  const ScratchDir& scratch() const { return files_; }

  ProcessResult plugins(const std::vector<std::string>& extra = {}) const {
    return run_with({"plugins", "--plugin-dir", plugin_dir()}, extra);
  }
  ProcessResult validate(const std::string& profile, const std::vector<std::string>& extra = {}) {
    return run_with({"validate", "--config", files_.write("config.yaml", profile), "--plugin-dir",
                     plugin_dir()},
                    extra);
  }
  ProcessResult run(const std::string& profile, const std::string& cluster,
                    const std::vector<std::string>& extra = {}) {
    return run_with(
        {"run", "--config", files_.write("config.yaml", profile), "--cluster",
         files_.write("cluster.yaml", cluster), "--plugin-dir", plugin_dir(), "-o", "json"},
        extra);
  }
  std::vector<std::string> env() const { return builtins_.env(); }

 private:
  ProcessResult run_with(std::vector<std::string> args,
                         const std::vector<std::string>& extra) const {
    args.insert(args.end(), extra.begin(), extra.end());
    return run_schedhost(args, builtins_.env());
  }

  ScratchDir plugins_;
  ScratchDir files_;
  TwoBuiltIns builtins_;
  std::string plugin_;
};

}  // namespace schedhost::testing
