#include "cli/exercise_html.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>

#include "cli/html_text.hpp"

namespace schedhost::cli {
namespace {

using framework::ExerciseResult;
using framework::Status;

template <class T>
std::map<std::string, T> by_node(const framework::PerNode<T>& list) {
  return {list.begin(), list.end()};
}

std::string status_text(const Status& s) {
  std::string text(framework::code_name(s.code));
  for (std::size_t i = 0; i < s.reasons.size(); ++i)
    text += (i == 0 ? ": " : ", ") + s.reasons[i];
  return text;
}

void hook_row(const char* hook, const std::optional<Status>& status, std::ostream& out) {
  if (!status) return;
  out << "<tr data-hook=\"" << hook << "\"><th>" << hook << "</th><td>"
      << html_escape(status_text(*status)) << "</td></tr>\n";
}

std::string score_cell(const char* column, const std::map<std::string, std::int64_t>& scores,
                       const std::string& node) {
  auto it = scores.find(node);
  if (it == scores.end()) return "<td></td>";
  return "<td data-" + std::string(column) + "=\"" + std::to_string(it->second) + "\" style=\"" +
         score_style(it->second) + "\">" + std::to_string(it->second) + "</td>";
}

}  // namespace

void write_exercise_html(const std::string& plugin, const std::string& pod,
                         const ExerciseResult& result, const cluster::Snapshot& snapshot,
                         std::ostream& out) {
  write_page_head(out, "schedhost exercise: " + plugin,
                  "body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}"
                  "table{border-collapse:collapse;margin:.3em 0}"
                  "th,td{border:1px solid #ccc;padding:2px 6px;text-align:left}",
                  false);
  out << "<h1>schedhost exercise</h1><p>plugin <b data-plugin=\"" << html_escape(plugin) << "\">"
      << html_escape(plugin) << "</b>, pod <b data-pod=\"" << html_escape(pod) << "\">"
      << html_escape(pod) << "</b></p>\n<table class=\"hooks\">";
  hook_row("PreEnqueue", result.pre_enqueue, out);
  hook_row("PreFilter", result.pre_filter, out);
  if (result.node_names) {
    std::string names;
    for (const std::string& n : *result.node_names)
      names += (names.empty() ? "" : ", ") + n;
    out << "<tr data-hook=\"PreFilterNodes\"><th>PreFilter keeps</th><td>" << html_escape(names)
        << "</td></tr>\n";
  }
  hook_row("PreScore", result.pre_score, out);
  hook_row("NormalizeScore", result.normalize_score, out);
  out << "</table>\n<table class=\"nodes\"><tr><th>node</th><th>Filter</th><th>Score</th>"
      << "<th>normalized</th></tr>\n";
  const auto filter = result.filter ? by_node(*result.filter) : std::map<std::string, Status>{};
  const auto scores =
      result.scores ? by_node(*result.scores) : std::map<std::string, std::int64_t>{};
  const auto normalized = result.normalized_scores ? by_node(*result.normalized_scores)
                                                   : std::map<std::string, std::int64_t>{};
  const auto errors = by_node(result.score_errors);
  for (const cluster::NodeInfo& node : snapshot.node_infos()) {
    const std::string& name = node.name();
    out << "<tr data-node=\"" << html_escape(name) << "\"><td>" << html_escape(name) << "</td><td";
    if (auto f = filter.find(name); f != filter.end()) {
      out << " data-filter=\"" << html_escape(framework::code_name(f->second.code)) << "\">"
          << html_escape(status_text(f->second));
    } else {
      out << ">";
    }
    out << "</td>";
    if (auto e = errors.find(name); e != errors.end()) {
      out << "<td data-score-error=\"" << html_escape(framework::code_name(e->second.code)) << "\">"
          << html_escape(status_text(e->second)) << "</td>";
    } else {
      out << score_cell("score", scores, name);
    }
    out << score_cell("normalized", normalized, name) << "</tr>\n";
  }
  out << "</table></body></html>\n";
}

}  // namespace schedhost::cli
