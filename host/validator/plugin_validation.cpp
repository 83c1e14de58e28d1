#include "validator/plugin_validation.hpp"

#include <algorithm>

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
  }
  return args;
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

ValidationReport validate_plugin_file(const ValidationOptions& options) {
  ValidationReport report;
  const ChildOutcome listing = run_child(child_args(options, {}), options.timeout);
  if (listing.load_error) {
    report.load_error = *listing.load_error;
    return report;
  }
  judge_end(listing, "(library)", options.timeout, report.checks);
  if (!report.checks.empty()) return report;
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
