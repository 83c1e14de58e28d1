// schedhost: a Kubernetes scheduler whose plugins are shared objects.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "common/json_log_formatter.hpp"
#include "common/log_verbosity.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "common/input_error.hpp"
#include "framework/plugin_host.hpp"

namespace {

// The flags every command takes, before or after its name (`schedhost --log-level debug run` and
// `schedhost run --log-level debug` are the same): registered on the program and on each
// subcommand, bound to the same variables.
struct GlobalFlags {
  std::string log_level;  // empty: not given
  int verbosity = -1;     // -v / --v; -1: not given
  std::string logging_format = "text";
};

void add_global_flags(CLI::App* app, GlobalFlags& flags) {
  const std::string group = app->get_parent() == nullptr ? "Options" : "Global options";
  app->add_option("--log-level", flags.log_level,
                  "trace, debug, info, warn or error (default: warn; info for serve and extender)")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error"}))
      ->group(group);
  app->add_option("-v,--v", flags.verbosity,
                  "Log verbosity as kube-scheduler's -v (klog): 0 to 3 info, 4 and 5 debug, 6 and "
                  "up trace; with --log-level too, the more verbose of the two wins")
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            const bool digits = !value.empty() && value.size() <= 9 &&
                                value.find_first_not_of("0123456789") == std::string::npos;
            return digits ? "" : value + " is not a verbosity: give a whole number, 0 or more";
          },
          ""))
      ->option_text("N")
      ->group(group);
  app->add_option("--logging-format", flags.logging_format,
                  "text (default) or json: one JSON object per line, as kube-scheduler's")
      ->check(CLI::IsMember({"text", "json"}))
      ->group(group);
}

// kube-scheduler's klog levels: V(0)-V(3) are the informational lines (V(2) the decisions), V(4)
// and V(5) debugging, higher the trace.
spdlog::level::level_enum verbosity_level(int v) {
  if (v >= 6) return spdlog::level::trace;
  if (v >= 4) return spdlog::level::debug;
  return spdlog::level::info;
}

// What the flags ask for; without either, the command's default (serve and extender: info, with
// their start and stop lines, as kube-scheduler's; every other command: warn).
spdlog::level::level_enum log_level(const GlobalFlags& flags, bool serve) {
  std::optional<spdlog::level::level_enum> level;
  if (!flags.log_level.empty()) level = spdlog::level::from_str(flags.log_level);
  if (flags.verbosity >= 0) {
    const auto from_v = verbosity_level(flags.verbosity);
    level = level ? std::min(*level, from_v) : from_v;  // lower is more verbose
  }
  if (level) return *level;
  return serve ? spdlog::level::info : spdlog::level::warn;
}

void setup_logging(spdlog::level::level_enum level, const GlobalFlags& flags) {
  auto logger = spdlog::stderr_color_mt("schedhost");
  if (flags.logging_format == "json") {
    logger->set_formatter(std::make_unique<schedhost::JsonLogFormatter>());
  } else {
    logger->set_pattern("%l: %v");
  }
  spdlog::set_default_logger(logger);
  spdlog::set_level(level);
  schedhost::log_verbosity().store(std::max(flags.verbosity, 0));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace schedhost::cli;
  CLI::App app{"schedhost: a Kubernetes scheduler whose plugins are shared objects", "schedhost"};
  app.require_subcommand(1);
  GlobalFlags global;
  add_global_flags(&app, global);

  const std::vector<Subcommand> commands = {
      add_run_command(app),      add_validate_command(app), add_plugins_command(app),
      add_exercise_command(app), add_version_command(app),  add_serve_command(app),
      add_probe_command(app),    add_extender_command(app),
  };
  for (const Subcommand& command : commands)
    add_global_flags(command.app, global);

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
    for (const Subcommand& command : commands) {
      if (!command.app->parsed()) continue;
      const bool server =
          command.app->get_name() == "serve" || command.app->get_name() == "extender";
      setup_logging(log_level(global, server), global);
      return command.run();
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
