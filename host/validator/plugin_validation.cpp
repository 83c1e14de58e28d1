#include "validator/plugin_validation.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/input_error.hpp"
#include "common/plugin_search.hpp"
#include "loader/file_trust.hpp"
#include "validator/child_process.hpp"

namespace schedhost::validator {
namespace {

std::vector<std::string> child_args(const ValidationOptions& options, const std::string& plugin) {
  std::vector<std::string> args = options.child_flags;
  args.insert(args.end(), {"validate", "--plugin", options.plugin_file, "--child"});
  if (!plugin.empty()) {
    args.insert(args.end(), {"--child-plugin", plugin});
    if (auto it = options.args.find(plugin); it != options.args.end()) {
      args.insert(args.end(), {"--args", plugin + "=" + it->second});
    }
    if (!options.cluster_file.empty()) args.insert(args.end(), {"--cluster", options.cluster_file});
    for (const std::string& pod : options.pod_files)
      args.insert(args.end(), {"--pod", pod});
  }
  return args;
}

std::string quote_plugin(const std::string& s) {
  return "\"" + s + "\"";
}

// Every --args name must be a plugin of the library: args for a misspelt name would silently
// leave the real plugin with {}.
void check_args_names(const ValidationOptions& options, const std::vector<std::string>& plugins) {
  for (const auto& [name, json] : options.args) {
    if (std::find(plugins.begin(), plugins.end(), name) != plugins.end()) continue;
    std::string list;
    for (const std::string& p : plugins)
      list += (list.empty() ? "" : ", ") + quote_plugin(p);
    const std::vector<std::string> near = near_names(name, plugins);
    throw InputError("--args " + name + ": " + options.plugin_file + " has no plugin " +
                     quote_plugin(name) + " (its plugins: " + list + "): " +
                     (near.empty() ? "" : "did you mean " + quote_plugin(near.front()) + "? ") +
                     "give --args one of those names");
  }
}

// A FAIL for a child that did not end on purpose; none when it did.
void judge_end(const ChildOutcome& out, const std::string& subject,
               std::chrono::milliseconds timeout, std::vector<CheckResult>& checks) {
  const std::string where = out.last_call.empty() ? "before its first call" : "in " + out.last_call;
  switch (out.end) {
    case ChildOutcome::End::Signaled:
      checks.push_back(
          {false, subject, "crash", "killed by " + signal_name(out.signal) + " " + where});
      return;
    case ChildOutcome::End::TimedOut:
      checks.push_back({false, subject, "hang",
                        (out.last_call.empty() ? std::string("the child") : out.last_call) +
                            " did not return within " + std::to_string(timeout.count()) +
                            " ms (killed)"});
      return;
    case ChildOutcome::End::NotStarted:
      checks.push_back(
          {false, subject, "start", "cannot start a validator child: " + out.start_error});
      return;
    case ChildOutcome::End::Exited:
      if (out.done && out.exit_code == 0) return;
      checks.push_back(
          {false, subject, "exit",
           "the process exited with code " + std::to_string(out.exit_code) + " " + where});
      return;
  }
}

}  // namespace

bool ValidationReport::passed() const {
  return load_error.empty() &&
         std::all_of(checks.begin(), checks.end(), [](const CheckResult& c) { return c.pass; });
}

CheckResult file_mode_check(const std::string& plugin_file) {
  struct stat st {};
  if (::stat(plugin_file.c_str(), &st) != 0) {
    return {false, "(library)", "file mode",
            "cannot stat the file: " + std::string(std::strerror(errno))};
  }
  const std::string what =
      "mode " + loader::mode_text(st.st_mode) + ", owner " + loader::owner_text(st.st_uid) + ": ";
  // The loader checks the file it opens, through any symlink: so does stat().
  if (auto distrust = loader::check_trust(st, plugin_file)) {
    return {false, "(library)", "file mode",
            what + "the loader would refuse it: " + loader::refusal("load", *distrust)};
  }
  return {true, "(library)", "file mode",
          what + "the loader running as " + loader::owner_text(::geteuid()) + " would load it"};
}

ValidationReport validate_plugin_file(const ValidationOptions& options) {
  ValidationReport report;
  const ChildOutcome listing = run_child(child_args(options, {}), options.timeout);
  if (listing.load_error) {
    report.load_error = *listing.load_error;
    return report;
  }
  judge_end(listing, "(library)", options.timeout, report.checks);
  if (!report.checks.empty()) return report;
  check_args_names(options, listing.plugins);
  report.checks.push_back(file_mode_check(options.plugin_file));
  report.checks.push_back(
      {true, "(library)", "load", std::to_string(listing.plugins.size()) + " plugin(s)"});
  for (const std::string& plugin : listing.plugins) {
    const ChildOutcome out = run_child(child_args(options, plugin), options.timeout);
    report.checks.insert(report.checks.end(), out.checks.begin(), out.checks.end());
    judge_end(out, plugin, options.timeout, report.checks);
  }
  return report;
}

}  // namespace schedhost::validator
