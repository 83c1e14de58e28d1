// `schedhost probe-plugins PATH LOAD_PATH ...`: the loader's probe child (loader/load_probe.hpp).
// Not for users, hence hidden from the help.
#include <memory>

#include "cli/commands.hpp"
#include "common/child_process.hpp"
#include "loader/load_probe.hpp"

namespace schedhost::cli {

Subcommand add_probe_command(CLI::App& app) {
  auto files = std::make_shared<std::vector<std::string>>();
  CLI::App* sub = app.add_subcommand("probe-plugins", "");
  sub->group("");
  sub->add_option("files", *files)->required();
  return {sub, [files]() -> int {
            std::vector<loader::ProbeInput> inputs;
            for (std::size_t i = 0; i + 1 < files->size(); i += 2) {
              inputs.push_back({(*files)[i], (*files)[i + 1], {}});
            }
            loader::run_probe_child(inputs, kChildFd);
          }};
}

}  // namespace schedhost::cli
