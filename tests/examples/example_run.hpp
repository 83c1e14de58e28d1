// Runs `schedhost run` on an example's files and reads its JSON output.
#pragma once

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

#include "support/process.hpp"

namespace schedhost::testing {

inline std::string example_data(const std::string& name) {
  return std::string(SCHEDHOST_EXAMPLE_DATA_DIR) + "/" + name;
}

// One pod of the output, as the tests compare it.
struct Decision {
  std::string pod, result, node, message;
  bool operator==(const Decision& o) const {
    return pod == o.pod && result == o.result && node == o.node && message == o.message;
  }
  friend std::ostream& operator<<(std::ostream& os, const Decision& d) {
    return os << "{" << d.pod << ", " << d.result << ", " << d.node << ", \"" << d.message << "\"}";
  }
};

struct ExampleRun {
  ProcessResult process;
  nlohmann::json output;  // null unless stdout was JSON

  std::vector<Decision> decisions() const {
    std::vector<Decision> out;
    for (const auto& p : output.at("pods")) {
      out.push_back({p.at("pod"), p.at("result"), p.value("node", ""), p.value("message", "")});
    }
    return out;
  }
  // --explain: node -> that node's explanation.
  const nlohmann::json& explain(const std::string& pod) const {
    for (const auto& p : output.at("pods")) {
      if (p.at("pod") == pod) return p.at("explain").at("nodes");
    }
    throw std::runtime_error("no pod " + pod + " in the output");
  }
};

// `schedhost run --config <config> --cluster <cluster> --plugin-dir <plugin_dir> -o json [extra]`.
inline ExampleRun run_example(const std::string& config, const std::string& cluster,
                              const std::string& plugin_dir,
                              const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"run",          "--config", config, "--cluster", cluster,
                                   "--plugin-dir", plugin_dir, "-o",   "json"};
  args.insert(args.end(), extra.begin(), extra.end());
  ExampleRun run{run_schedhost(args), nullptr};
  if (run.process.exit_code == 0) run.output = nlohmann::json::parse(run.process.out);
  return run;
}

}  // namespace schedhost::testing
