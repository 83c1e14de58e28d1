#include "validator/child_process.hpp"

#include <string_view>

namespace schedhost::validator {
namespace {

void take_line(ChildOutcome& out, std::string_view line) {
  const ChildLine l = parse_child_line(line);
  if (l.kind == "call") {
    out.last_call = l.payload;
  } else if (l.kind == "check") {
    if (auto check = parse_check(l.payload)) out.checks.push_back(std::move(*check));
  } else if (l.kind == "plugin") {
    out.plugins.push_back(l.payload);
  } else if (l.kind == "load-error") {
    out.load_error = l.payload;
  } else if (l.kind == "done") {
    out.done = true;
  }
}

ChildOutcome::End to_end(ChildEnd::Kind kind) {
  switch (kind) {
    case ChildEnd::Kind::Exited:
      return ChildOutcome::End::Exited;
    case ChildEnd::Kind::Signaled:
      return ChildOutcome::End::Signaled;
    case ChildEnd::Kind::TimedOut:
      return ChildOutcome::End::TimedOut;
    case ChildEnd::Kind::NotStarted:
      break;
  }
  return ChildOutcome::End::NotStarted;
}

}  // namespace

ChildOutcome run_child(const std::vector<std::string>& args, std::chrono::milliseconds timeout) {
  ChildOutcome out;
  ChildSpec spec;
  spec.args = args;
  spec.timeout = timeout;
  const ChildEnd end =
      run_child_process(spec, [&](std::string_view line) { take_line(out, line); });
  out.end = to_end(end.kind);
  out.exit_code = end.exit_code;
  out.signal = end.signal;
  out.start_error = end.start_error;
  return out;
}

}  // namespace schedhost::validator
