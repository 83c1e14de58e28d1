#include "loader/load_probe.hpp"

#include <charconv>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string_view>

#include "common/child_process.hpp"

namespace schedhost::loader {
namespace {

// What the child said about the libraries of one run, indexed from the run's first library.
struct ChildReport {
  std::vector<std::optional<ProbeVerdict>> verdicts;
  std::optional<std::size_t> current;  // the library being loaded
  std::string step;                    // and the step it was in
  bool done = false;
};

std::optional<std::size_t> index_of(std::string_view text) {
  std::size_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// "<kind> <index> <rest>": see load_probe_child.cpp for the lines.
void take_line(ChildReport& report, std::string_view line) {
  const std::size_t space = line.find(' ');
  const std::string_view kind = line.substr(0, space);
  if (kind == "done") {
    report.done = true;
    return;
  }
  if (space == std::string_view::npos) return;
  std::string_view rest = line.substr(space + 1);
  const std::size_t space2 = rest.find(' ');
  const std::optional<std::size_t> i = index_of(rest.substr(0, space2));
  if (!i || *i >= report.verdicts.size()) return;
  rest = space2 == std::string_view::npos ? std::string_view() : rest.substr(space2 + 1);
  if (kind == "library") {
    report.current = *i;
    report.step.clear();
  } else if (kind == "step") {
    report.step = rest;
  } else if (kind == "ok") {
    report.verdicts[*i] = ProbeVerdict{true, {}};
  } else if (kind == "refused") {
    report.verdicts[*i] = ProbeVerdict{false, std::string(rest)};
  }
}

std::string seconds(std::chrono::milliseconds timeout) {
  std::ostringstream out;
  out << static_cast<double>(timeout.count()) / 1000.0 << " s";
  return out.str();
}

// Why the library the child was loading is refused, from how the child ended.
std::string blame(const ChildEnd& end, const std::string& step, std::chrono::milliseconds timeout) {
  const std::string where = step.empty() ? "while loading" : "in " + step;
  std::string what;
  switch (end.kind) {
    case ChildEnd::Kind::Signaled:
      what = "crashed with " + signal_name(end.signal) + " " + where;
      break;
    case ChildEnd::Kind::Exited:
      what = "called exit(" + std::to_string(end.exit_code) + ") while loading" +
             (step.empty() ? "" : ", " + where);
      break;
    case ChildEnd::Kind::TimedOut:
      what = "did not finish loading within " + seconds(timeout) +
             (step.empty() ? "" : ", stuck " + where);
      break;
    case ChildEnd::Kind::NotStarted:
      return "cannot be probed: " + end.start_error;
  }
  return what +
         " (probed in a child process, not loaded): fix the library or remove it from the "
         "plugin directory";
}

std::string not_probed(const ChildEnd& end, const std::string& program) {
  switch (end.kind) {
    case ChildEnd::Kind::NotStarted:
      return "cannot be probed: " + end.start_error;
    case ChildEnd::Kind::Signaled:
      return "cannot be probed: the probe child (" + program + ") died with " +
             signal_name(end.signal) + " before loading it";
    case ChildEnd::Kind::TimedOut:
      return "cannot be probed: the probe child (" + program + ") did not start";
    case ChildEnd::Kind::Exited:
      break;
  }
  return "cannot be probed: the probe child (" + program + ") exited with code " +
         std::to_string(end.exit_code) + " before loading it";
}

std::mutex cache_mutex;
std::map<std::string, ProbeVerdict>& cache() {
  static auto* verdicts = new std::map<std::string, ProbeVerdict>();  // never destroyed
  return *verdicts;
}

// Probes `todo` (indices into inputs) in one child; fills out for each library the child
// reported on or was blamed for, and returns how many of todo it settled (all but the libraries
// after one that killed the child).
std::size_t probe_some(const std::vector<ProbeInput>& inputs, const std::vector<std::size_t>& todo,
                       const ProbeOptions& options, std::vector<ProbeVerdict>& out) {
  ChildSpec spec;
  spec.program = options.program;
  spec.timeout = options.timeout;
  spec.args = {"probe-plugins"};
  for (std::size_t i : todo) {
    spec.args.push_back(inputs[i].path);
    spec.args.push_back(inputs[i].load_path);
  }
  ChildReport report;
  report.verdicts.resize(todo.size());
  const ChildEnd end =
      run_child_process(spec, [&report](std::string_view line) { take_line(report, line); });

  const bool finished = report.done && end.kind == ChildEnd::Kind::Exited && end.exit_code == 0;
  std::size_t settled = todo.size();
  if (!finished) {
    if (!report.current) {
      for (std::size_t k = 0; k < todo.size(); ++k)
        out[todo[k]] = {false, not_probed(end, options.program)};
      return todo.size();
    }
    settled = *report.current + 1;
    if (!report.verdicts[*report.current]) {
      report.verdicts[*report.current] = {false, blame(end, report.step, options.timeout)};
    }
  }
  for (std::size_t k = 0; k < settled; ++k) {
    out[todo[k]] = report.verdicts[k].value_or(
        ProbeVerdict{false, "the probe child ended without a word about it: load it again"});
  }
  return settled;
}

}  // namespace

std::vector<ProbeVerdict> probe_libraries(const std::vector<ProbeInput>& inputs,
                                          const ProbeOptions& options) {
  std::vector<ProbeVerdict> out(inputs.size());
  std::vector<std::size_t> todo;
  {
    const std::lock_guard lock(cache_mutex);
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      auto it = cache().find(inputs[i].identity);
      if (it != cache().end() && !inputs[i].identity.empty()) {
        out[i] = it->second;
      } else {
        todo.push_back(i);
      }
    }
  }
  while (!todo.empty()) {
    const std::size_t settled = probe_some(inputs, todo, options, out);
    todo.erase(todo.begin(), todo.begin() + static_cast<std::ptrdiff_t>(settled));
  }
  const std::lock_guard lock(cache_mutex);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].identity.empty()) cache()[inputs[i].identity] = out[i];
  }
  return out;
}

}  // namespace schedhost::loader
