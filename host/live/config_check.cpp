#include "live/config_check.hpp"

#include <cmath>
#include <sstream>
#include <string_view>

#include "common/child_process.hpp"

namespace schedhost::live {
namespace {

// Runs `schedhost <args>` and keeps what it said on stdout and stderr, line by line.
struct ChildRun {
  ChildEnd end;
  std::vector<std::string> lines;
};

ChildRun run_validate(const std::vector<std::string>& args, std::chrono::milliseconds timeout,
                      const std::atomic<bool>* cancel) {
  ChildSpec spec;
  spec.cancel = cancel;
  spec.args = args;
  // The validators print only when they are done: the whole run must fit in the silence allowed.
  spec.timeout = timeout;
  spec.startup = timeout;
  spec.capture_output = true;
  ChildRun run;
  run.end =
      run_child_process(spec, [&run](std::string_view line) { run.lines.emplace_back(line); });
  return run;
}

// "a  b   c" -> "a b c": the validator's table row as one line.
std::string squeeze(const std::string& line) {
  std::istringstream words(line);
  std::string out;
  for (std::string word; words >> word;)
    out += (out.empty() ? "" : " ") + word;
  return out;
}

// Why the child refused, in its own words: its `error: ` lines, else the FAIL rows of
// `validate --plugin`'s table, else how it ended. Empty when it passed.
std::string refusal(const ChildRun& run, std::chrono::milliseconds timeout) {
  switch (run.end.kind) {
    case ChildEnd::Kind::NotStarted:
      return "the check could not start: " + run.end.start_error;
    case ChildEnd::Kind::TimedOut:
      return "the check did not finish within " + std::to_string(timeout.count() / 1000) + " s";
    case ChildEnd::Kind::Signaled:
      return "the check was killed by " + signal_name(run.end.signal);
    case ChildEnd::Kind::Exited:
      if (run.end.exit_code == 0) return "";
      break;
  }
  std::string errors;
  for (const std::string& line : run.lines) {
    if (line.rfind("error: ", 0) == 0) errors += (errors.empty() ? "" : "; ") + line.substr(7);
  }
  if (!errors.empty()) return errors;
  std::string failed;
  for (const std::string& line : run.lines) {
    if (line.rfind("FAIL ", 0) == 0) failed += (failed.empty() ? "" : "; ") + squeeze(line);
  }
  if (!failed.empty()) return failed;
  return "the check exited " + std::to_string(run.end.exit_code) +
         (run.lines.empty() ? "" : ": " + run.lines.back());
}

std::vector<std::string> trust_flags(const loader::PluginTrust& trust) {
  std::vector<std::string> flags;
  if (trust.allow_insecure) flags.push_back("--allow-insecure-plugins");
  if (!trust.digests_file.empty())
    flags.insert(flags.end(), {"--plugin-digests", trust.digests_file});
  std::ostringstream seconds;
  seconds << static_cast<double>(trust.load_timeout.count()) / 1000.0;
  flags.insert(flags.end(), {"--plugin-load-timeout", seconds.str()});
  return flags;
}

}  // namespace

CheckVerdict check_out_of_process(const ConfigCheck& check,
                                  const std::vector<std::string>& plugin_files) {
  for (const std::string& file : plugin_files) {
    const std::string why = refusal(
        run_validate({"validate", "--plugin", file}, check.timeout, check.cancel), check.timeout);
    // The validator's own lines name the file already; the other reasons do not.
    if (!why.empty()) return {false, why.rfind(file, 0) == 0 ? why : file + ": " + why};
  }
  std::vector<std::string> args{"validate", "--config", check.config};
  for (const std::string& dir : check.plugin_dirs)
    args.insert(args.end(), {"--plugin-dir", dir});
  const std::vector<std::string> trust = trust_flags(check.trust);
  args.insert(args.end(), trust.begin(), trust.end());
  const std::string why = refusal(run_validate(args, check.timeout, check.cancel), check.timeout);
  if (why.empty()) return {true, ""};
  // validate --config's error lines start with the file they are about (the profile, with its
  // line, or a plugin library); its other ends are about the profile.
  const bool named = why.rfind('/', 0) == 0 || why.rfind(check.config, 0) == 0;
  return {false, named ? why : check.config + ": " + why};
}

}  // namespace schedhost::live
