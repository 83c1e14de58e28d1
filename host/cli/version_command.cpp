#include <schedhost/abi.h>

#include <iostream>

#include "cli/commands.hpp"

namespace schedhost::cli {

Subcommand add_version_command(CLI::App& app) {
  CLI::App* sub =
      app.add_subcommand("version", "Print the schedhost version and its plugin ABI version");
  return {sub, [] {
            std::cout << "schedhost " << SCHEDHOST_VERSION << " (plugin ABI " << SCHEDHOST_ABI_MAJOR
                      << '.' << SCHEDHOST_ABI_MINOR << ")\n";
            return kExitOk;
          }};
}

}  // namespace schedhost::cli
