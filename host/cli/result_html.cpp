#include "cli/result_html.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string_view>

#include "cli/html_text.hpp"
#include "scheduler/explanation_digest.hpp"

namespace schedhost::cli {
namespace {

using Json = nlohmann::ordered_json;
using scheduler::ExplanationDigest;
using scheduler::PodResult;

constexpr std::string_view kStyle = R"css(
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.4em}h2{font-size:1.15em;margin:1.6em 0 .3em}h3{font-size:1em;margin:.8em 0 .2em}
table{border-collapse:collapse;margin:.3em 0}
th,td{border:1px solid #ccc;padding:2px 6px;text-align:right}
th:first-child,td:first-child{text-align:left}
.bar{display:inline-block;height:.8em;background:#6a8fd8;vertical-align:middle}
.over{background:#d86a6a}
tr.chosen{outline:2px solid #2a7;font-weight:bold}
tr.tie td:first-child::after{content:" (tie)";color:#a60}
.Scheduled{color:#172}.Unschedulable,.Gated{color:#a60}.Error,.Preempted{color:#b22}
.Skipped{color:#666}.pod{border-top:1px solid #ddd}.message{white-space:pre-wrap}
table.failures td:nth-child(2){text-align:left}
)css";

constexpr std::string_view kScript = R"js(
function hue(s){return 'hsl('+Math.floor(Math.min(100,Math.max(0,s))*6/5)+',70%,85%)';}
document.getElementById('filter').addEventListener('input',function(e){
  var q=e.target.value.toLowerCase();
  document.querySelectorAll('[data-pod-entry]').forEach(function(el){
    el.hidden=q!==''&&el.getAttribute('data-pod-entry').toLowerCase().indexOf(q)<0;});});
document.querySelectorAll('button.more').forEach(function(b){b.addEventListener('click',function(){
  var rows=JSON.parse(document.getElementById(b.getAttribute('data-rows')).textContent);
  var body=document.getElementById(b.getAttribute('data-table')).tBodies[0];
  rows.forEach(function(r){var tr=document.createElement('tr');tr.setAttribute('data-node',r[0]);
    tr.setAttribute('data-total',r[2]);var th=document.createElement('td');th.textContent=r[0];
    tr.appendChild(th);r[1].forEach(function(s){var td=document.createElement('td');
      td.textContent=s;td.style.background=hue(s);tr.appendChild(td);});
    var t=document.createElement('td');t.textContent=r[2];tr.appendChild(t);body.appendChild(tr);});
  b.remove();});});
)js";

std::string percent_bar(std::int64_t used, std::int64_t total) {
  if (total <= 0) return used > 0 ? "<span class=\"bar over\" style=\"width:100px\"></span>" : "";
  const std::int64_t pct = used * 100 / total;
  const std::int64_t width = std::min<std::int64_t>(pct, 100);
  return std::string("<span class=\"bar") + (pct > 100 ? " over" : "") +
         "\" style=\"width:" + std::to_string(width) + "px\"></span> " + std::to_string(pct) + "%";
}

std::string cpu_text(std::int64_t millicores) {
  return millicores % 1000 == 0 ? std::to_string(millicores / 1000)
                                : std::to_string(millicores) + "m";
}

std::string memory_text(std::int64_t bytes) {
  constexpr std::int64_t kMi = std::int64_t{1024} * 1024;
  return bytes % kMi == 0 ? std::to_string(bytes / kMi) + "Mi" : std::to_string(bytes);
}

void write_summary(const scheduler::RunResult& result, const HtmlPage& page, std::ostream& out) {
  const scheduler::RunSummary s = result.summary();
  out << "<section id=\"summary\"><h2>Summary</h2><table class=\"counts\">"
      << "<tr><th>scheduled</th><td data-count=\"scheduled\">" << s.scheduled << "</td></tr>"
      << "<tr><th>unschedulable</th><td data-count=\"unschedulable\">" << s.unschedulable
      << "</td></tr><tr><th>skipped</th><td data-count=\"skipped\">" << s.skipped << "</td></tr>"
      << "<tr><th>errors</th><td data-count=\"errors\">" << s.errors << "</td></tr>"
      << "<tr><th>preempted</th><td data-count=\"preempted\">" << s.preempted
      << "</td></tr></table>\n";
  out << "<h3>Nodes after the run: requested against allocatable</h3><table class=\"nodes\">"
      << "<tr><th>node</th><th>zone</th><th>pods</th><th>CPU</th><th></th><th>memory</th>"
      << "<th></th></tr>\n";
  std::map<std::string, int> zones;
  for (const NodeAfterRun& n : page.nodes) {
    zones[n.zone] += n.pods;
    out << "<tr data-node=\"" << html_escape(n.name) << "\"><td>" << html_escape(n.name)
        << "</td><td>" << html_escape(n.zone) << "</td><td>" << n.pods << "</td><td>"
        << cpu_text(n.cpu_requested) << " / " << cpu_text(n.cpu_allocatable) << "</td><td>"
        << percent_bar(n.cpu_requested, n.cpu_allocatable) << "</td><td>"
        << memory_text(n.memory_requested) << " / " << memory_text(n.memory_allocatable)
        << "</td><td>" << percent_bar(n.memory_requested, n.memory_allocatable) << "</td></tr>\n";
  }
  out << "</table><h3>Pods per zone</h3><table class=\"zones\"><tr><th>zone</th><th>pods</th>"
      << "<th></th></tr>\n";
  int most = 1;
  for (const auto& [zone, pods] : zones)
    most = std::max(most, pods);
  for (const auto& [zone, pods] : zones) {
    out << "<tr data-zone=\"" << html_escape(zone) << "\"><td>"
        << (zone.empty() ? "(no zone label)" : html_escape(zone)) << "</td><td>" << pods
        << "</td><td><span class=\"bar\" style=\"width:" << pods * 200 / most
        << "px\"></span></td></tr>\n";
  }
  out << "</table></section>\n";
}

void write_index(const scheduler::RunResult& result, std::ostream& out) {
  out << "<section id=\"pods\"><h2>Pods, in the order decided</h2>"
      << "<input id=\"filter\" type=\"search\" placeholder=\"filter pods by name\" size=\"40\">"
      << "<ol id=\"index\">\n";
  for (std::size_t i = 0; i < result.pods.size(); ++i) {
    const PodResult& p = result.pods[i];
    out << "<li data-pod-entry=\"" << html_escape(p.pod) << "\"><a href=\"#pod-" << i << "\">"
        << html_escape(p.pod) << "</a> <span class=\"" << html_escape(p.result) << "\">"
        << html_escape(p.result) << "</span>"
        << (p.node.empty() ? "" : " on " + html_escape(p.node)) << "</li>\n";
  }
  out << "</ol></section>\n";
}

// The grid: one row per scored node, best total first (ties by node order).
void write_scores(std::size_t index, const PodResult& p, const ExplanationDigest& d,
                  const HtmlPage& page, std::ostream& out) {
  if (d.best.empty()) return;
  const std::int64_t best = *d.best.front().second.total;
  const std::map<std::string, int>* weights = nullptr;
  if (auto it = page.weights.find(p.profile); it != page.weights.end()) weights = &it->second;
  const std::string table_id = "scores-" + std::to_string(index);
  out << "<h3>Scores (normalized, then weighted)</h3>";
  if (d.tied_at_best > 1) {
    out << "<p class=\"ties\">" << d.tied_at_best << " nodes tie at the top total " << best
        << "; the tie-break (--seed) picked " << html_escape(p.node) << ".</p>";
  }
  out << "<table class=\"scores\" id=\"" << table_id << "\" data-pod=\"" << html_escape(p.pod)
      << "\"><thead><tr><th>node</th>";
  for (const auto& [plugin, score] : d.best.front().second.scores) {
    int weight = 1;
    if (weights != nullptr) {
      if (auto w = weights->find(plugin); w != weights->end()) weight = w->second;
    }
    out << "<th data-plugin=\"" << html_escape(plugin) << "\" data-weight=\"" << weight << "\">"
        << html_escape(plugin) << " &times;" << weight << "</th>";
  }
  out << "<th>total</th></tr></thead><tbody>\n";
  for (std::size_t k = 0; k < d.shown; ++k) {
    const auto& [name, node] = d.best[k];
    std::string cls;
    if (name == p.node) cls += "chosen";
    if (d.tied_at_best > 1 && *node.total == best) cls += cls.empty() ? "tie" : " tie";
    out << "<tr data-node=\"" << html_escape(name) << "\" data-total=\"" << *node.total << "\""
        << (cls.empty() ? "" : " class=\"" + cls + "\"") << "><td>" << html_escape(name) << "</td>";
    for (const auto& [plugin, score] : node.scores) {
      out << "<td data-plugin=\"" << html_escape(plugin) << "\" data-score=\"" << score
          << "\" style=\"" << score_style(score) << "\">" << score << "</td>";
    }
    out << "<td>" << *node.total << "</td></tr>\n";
  }
  out << "</tbody></table>\n";
  if (d.left_out > 0) {
    out << "<p class=\"more\">" << d.left_out
        << " more scored nodes are not in this page (it holds at most " << page.more_rows
        << " hidden rows): run with --html-nodes 0 for every node, or -o json --explain.</p>\n";
    return;
  }
  const std::size_t rest = d.best.size() - d.shown;
  if (rest == 0) return;
  Json rows = Json::array();
  for (std::size_t k = d.shown; k < d.best.size(); ++k) {
    const auto& [name, node] = d.best[k];
    Json scores = Json::array();
    for (const auto& [plugin, score] : node.scores)
      scores.push_back(score);
    rows.push_back(Json::array({name, std::move(scores), *node.total}));
  }
  out << "<script type=\"application/json\" id=\"" << table_id << "-rest\">" << script_json(rows)
      << "</script><button class=\"more\" data-table=\"" << table_id << "\" data-rows=\""
      << table_id << "-rest\">show the other " << rest << " scored nodes</button>\n";
}

// The nodes that failed Filter, grouped by plugin and reason, as bars (the FitError's counts);
// then the nodes Filter never saw (the PreFilter result, an early stop), by why.
void write_failures(const ExplanationDigest& d, std::ostream& out) {
  for (const auto& [why, count] : d.not_evaluated) {
    out << "<p class=\"not-evaluated\" data-count=\"" << count << "\">" << count
        << " node(s) not evaluated: " << html_escape(why) << "</p>\n";
  }
  if (d.failed.empty()) return;
  const std::size_t nodes = std::max<std::size_t>(d.nodes, 1);
  out << "<h3>Nodes that did not pass Filter</h3><table class=\"failures\"><tr><th>plugin</th>"
      << "<th>reason</th><th>nodes</th><th></th></tr>\n";
  for (const auto& [key, count] : d.failed) {
    out << "<tr data-plugin=\"" << html_escape(key.first) << "\" data-count=\"" << count
        << "\"><td>" << html_escape(key.first) << "</td><td>" << html_escape(key.second)
        << "</td><td>" << count
        << "</td><td><span class=\"bar over\" style=\"width:" << count * 200 / nodes
        << "px\"></span></td></tr>\n";
  }
  out << "</table>\n";
}

void write_pod(std::size_t index, const PodResult& p, const HtmlPage& page,
               std::size_t& more_budget, std::ostream& out) {
  out << "<section class=\"pod\" id=\"pod-" << index << "\" data-pod-entry=\"" << html_escape(p.pod)
      << "\"><h2>" << html_escape(p.pod) << "</h2><p><span class=\"result " << html_escape(p.result)
      << "\" data-result=\"" << html_escape(p.result) << "\">" << html_escape(p.result) << "</span>"
      << (p.node.empty()
              ? ""
              : " on <b data-node=\"" + html_escape(p.node) + "\">" + html_escape(p.node) + "</b>")
      << (p.profile.empty() ? "" : " (profile " + html_escape(p.profile) + ")") << "</p>";
  if (!p.message.empty()) out << "<p class=\"message\">" << html_escape(p.message) << "</p>";
  if (!p.preempted.empty()) {
    out << "<h3>Preempted to make room</h3><ul class=\"victims\">";
    for (const std::string& victim : p.preempted)
      out << "<li>" << html_escape(victim) << "</li>";
    out << "</ul>";
  }
  if (!p.events.empty()) {
    out << "<h3>Events</h3><ul class=\"events\">";
    for (const scheduler::PluginEvent& e : p.events) {
      out << "<li data-event-type=\"" << html_escape(e.type) << "\"><b>" << html_escape(e.type)
          << " " << html_escape(e.reason) << "</b> (plugin " << html_escape(e.plugin)
          << "): <span class=\"message\">" << html_escape(e.message) << "</span></li>";
    }
    out << "</ul>";
  }
  out << '\n';
  if (p.explain) {
    // A run for this page keeps digests (RunOptions::digest); a full explanation is condensed here.
    std::optional<ExplanationDigest> condensed;
    if (!p.explain->digest) {
      condensed = scheduler::digest_explanation(*p.explain, page.top_nodes, more_budget);
    }
    const ExplanationDigest& digest = p.explain->digest ? *p.explain->digest : *condensed;
    if (p.explain->reused) {
      out << "<p class=\"reused\">Not scored: the next node of the ranking of "
          << html_escape(p.explain->reused->ranked_by)
          << ", a pod with the same signature, still fitted (opportunistic batching).</p>\n";
    }
    write_scores(index, p, digest, page, out);
    write_failures(digest, out);
  }
  out << "</section>\n";
}

}  // namespace

void write_html(const scheduler::RunResult& result, const HtmlPage& page, std::ostream& out) {
  write_page_head(out, "schedhost run: " + page.title, kStyle, true);
  out << "<h1>schedhost run --explain</h1><p class=\"title\">" << html_escape(page.title)
      << "</p>\n";
  write_summary(result, page, out);
  write_index(result, out);
  std::size_t more_budget = page.more_rows;
  for (std::size_t i = 0; i < result.pods.size(); ++i)
    write_pod(i, result.pods[i], page, more_budget, out);
  out << "<script>" << kScript << "</script></body></html>\n";
}

}  // namespace schedhost::cli
