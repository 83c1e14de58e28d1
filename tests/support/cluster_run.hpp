// `schedhost run -o json` on a cluster file a test wrote, with upstream's default profile (or
// another), and its decisions by pod: how the plugin suites check a whole run.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/fixtures.hpp"
#include "support/process.hpp"

namespace schedhost::testing {

// Upstream v1.35's default profile, every default plugin in its order.
inline constexpr const char* kDefaultProfileYaml =
    "apiVersion: kubescheduler.config.k8s.io/v1\n"
    "kind: KubeSchedulerConfiguration\n"
    "profiles:\n"
    "  - schedulerName: default-scheduler\n";

struct ClusterRun {
  ProcessResult process;
  std::map<std::string, nlohmann::json> pods;  // "default/db" -> its entry of "pods"
};

// Runs with --seed 1; a run that does not exit 0 is a test failure, with no pods.
inline ClusterRun run_cluster(const ScratchDir& dir, const std::string& cluster,
                              const std::string& config = kDefaultProfileYaml,
                              const std::vector<std::string>& extra_args = {}) {
  std::vector<std::string> args = {"run",
                                   "--config",
                                   dir.write("profile.yaml", config),
                                   "--cluster",
                                   dir.write("cluster.yaml", cluster),
                                   "-o",
                                   "json",
                                   "--seed",
                                   "1"};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  ClusterRun r;
  r.process = run_schedhost(args);
  EXPECT_EQ(r.process.exit_code, 0) << r.process.err;
  if (r.process.exit_code != 0) return r;
  // Held: a range-for over parse(...).at("pods") would outlive the parsed document.
  const nlohmann::json out = nlohmann::json::parse(r.process.out);
  for (const nlohmann::json& p : out.at("pods"))
    r.pods[p.at("pod").get<std::string>()] = p;
  return r;
}

}  // namespace schedhost::testing
