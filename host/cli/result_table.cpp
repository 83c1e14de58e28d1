#include "cli/result_table.hpp"

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "cli/output_text.hpp"
#include "cli/table.hpp"

namespace schedhost::cli {
namespace {

constexpr const char* kIndent = "    ";
constexpr const char* kNone = "<none>";
constexpr const char* kNotScored = "-";

std::string cell(const std::string& text, const char* when_empty = "") {
  return text.empty() ? when_empty : one_line(text);
}

std::vector<std::string> lines_of(const Table& table) {
  std::ostringstream text;
  table.print(text);
  std::vector<std::string> lines;
  std::istringstream in(text.str());
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

// "NodeResourcesFit: Insufficient cpu; Too many pods", or whichever half is there.
std::string filter_reason(const scheduler::FilterVerdict& filter) {
  std::string reasons;
  for (const std::string& reason : filter.reasons)
    reasons += (reasons.empty() ? "" : "; ") + reason;
  if (filter.plugin.empty()) return reasons;
  return reasons.empty() ? filter.plugin : filter.plugin + ": " + reasons;
}

// The Score plugins of an explanation, in the order they first appear.
std::vector<std::string> score_plugins(const scheduler::Explanation& explain) {
  std::vector<std::string> plugins;
  for (const auto& [name, node] : explain.nodes) {
    for (const auto& [plugin, score] : node.scores) {
      if (std::find(plugins.begin(), plugins.end(), plugin) == plugins.end()) {
        plugins.push_back(plugin);
      }
    }
  }
  return plugins;
}

void write_explanation(const scheduler::Explanation& explain, std::ostream& out) {
  if (explain.reused) {
    out << kIndent << "reused the ranking of " << one_line(explain.reused->ranked_by)
        << " (opportunistic batching; " << explain.reused->left << " node"
        << (explain.reused->left == 1 ? "" : "s") << " of it left)\n";
  }
  const std::vector<std::string> plugins = score_plugins(explain);
  const bool scored =
      !plugins.empty() || std::any_of(explain.nodes.begin(), explain.nodes.end(),
                                      [](const auto& n) { return n.second.total.has_value(); });
  std::vector<std::string> header = {"NODE", "FILTER"};
  if (scored) {
    for (const std::string& plugin : plugins)
      header.push_back(one_line(plugin));
    header.emplace_back("TOTAL");
  }
  header.emplace_back("REASON");
  Table table(std::move(header));
  for (const auto& [name, node] : explain.nodes) {
    std::vector<std::string> row = {cell(name), cell(node.filter.code)};
    if (scored) {
      for (const std::string& plugin : plugins) {
        auto found = std::find_if(node.scores.begin(), node.scores.end(),
                                  [&](const auto& s) { return s.first == plugin; });
        row.push_back(found == node.scores.end() ? kNotScored : std::to_string(found->second));
      }
      row.emplace_back(node.total ? std::to_string(*node.total) : kNotScored);
    }
    row.push_back(cell(filter_reason(node.filter)));
    table.add_row(std::move(row));
  }
  for (const std::string& line : lines_of(table))
    out << kIndent << line << '\n';
}

}  // namespace

void write_table(const scheduler::RunResult& result, std::ostream& out) {
  Table pods({"POD", "PROFILE", "RESULT", "NODE", "MESSAGE"});
  for (const scheduler::PodResult& pod : result.pods) {
    std::string message = pod.message;
    if (!pod.preempted.empty()) {
      std::string victims;
      for (const std::string& v : pod.preempted)
        victims += (victims.empty() ? "" : ", ") + v;
      message += (message.empty() ? "" : " ") + std::string("preempted: ") + victims;
    }
    pods.add_row({cell(pod.pod), cell(pod.profile, kNone), cell(pod.result), cell(pod.node, kNone),
                  cell(message)});
  }
  // The rows are aligned across all pods, with each pod's explanation printed under its row.
  const std::vector<std::string> lines = lines_of(pods);
  out << lines.front() << '\n';
  for (std::size_t i = 0; i < result.pods.size(); ++i) {
    out << lines[i + 1] << '\n';
    if (result.pods[i].explain) write_explanation(*result.pods[i].explain, out);
  }
  const scheduler::RunSummary summary = result.summary();
  out << "\nscheduled: " << summary.scheduled << ", unschedulable: " << summary.unschedulable
      << ", skipped: " << summary.skipped << ", errors: " << summary.errors
      << ", preempted: " << summary.preempted << '\n';
}

}  // namespace schedhost::cli
