// schedhost: a Kubernetes scheduler whose plugins are shared objects.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <vector>

#include "cli/commands.hpp"
#include "common/input_error.hpp"
#include "framework/plugin_host.hpp"

namespace {

void setup_logging(const std::string& level) {
  auto logger = spdlog::stderr_color_mt("schedhost");
  logger->set_pattern("%l: %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(level));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace schedhost::cli;
  CLI::App app{"schedhost: a Kubernetes scheduler whose plugins are shared objects", "schedhost"};
  app.require_subcommand(1);
  std::string log_level = "warn";
  app.add_option("--log-level", log_level, "trace, debug, info, warn or error")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error"}));

  const std::vector<Subcommand> commands = {
      add_run_command(app),      add_validate_command(app), add_plugins_command(app),
      add_exercise_command(app), add_version_command(app),  add_serve_command(app),
      add_probe_command(app),
  };

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "error: " << e.what() << " (see schedhost --help)\n";
    return kExitBadInput;
  }

  // Test knob: plugins see the host table of an older 1.x minor (README, "Emulating an older
  // host").
  if (const char* minor = std::getenv("SCHEDHOST_EMULATE_ABI_MINOR")) {
    const std::string text(minor);
    const bool digits = !text.empty() && text.size() <= 3 &&
                        text.find_first_not_of("0123456789") == std::string::npos;
    if (!digits ||
        !schedhost::framework::emulate_host_abi_minor(static_cast<uint32_t>(std::stoul(text)))) {
      std::cerr << "error: SCHEDHOST_EMULATE_ABI_MINOR=" << text
                << ": not a minor of this host's ABI: use 0 to " << SCHEDHOST_ABI_MINOR
                << ", or unset it\n";
      return kExitBadInput;
    }
  }

  try {
    setup_logging(log_level);
    for (const Subcommand& command : commands) {
      if (command.app->parsed()) return command.run();
    }
    return kExitBadInput;
  } catch (const schedhost::InputError& e) {
    std::cerr << "error: " << e.what() << '\n';
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << '\n';
    return kExitFailure;
  }
}
