// The subcommands of the schedhost program. Each registers its flags on the app and returns
// the function that runs it; main() dispatches and turns errors into exit codes.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace schedhost::cli {

// Exit codes of the command-line contract.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitBadInput = 2;

// A subcommand: its CLI11 node and what runs when it was given.
struct Subcommand {
  CLI::App* app;
  std::function<int()> run;
};

Subcommand add_exercise_command(CLI::App& app);
Subcommand add_extender_command(CLI::App& app);
Subcommand add_plugins_command(CLI::App& app);
Subcommand add_probe_command(CLI::App& app);
Subcommand add_run_command(CLI::App& app);
Subcommand add_serve_command(CLI::App& app);
Subcommand add_validate_command(CLI::App& app);
Subcommand add_version_command(CLI::App& app);

}  // namespace schedhost::cli
