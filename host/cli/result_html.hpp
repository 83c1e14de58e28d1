// `schedhost run -o html`: every decision of a run with --explain on one self-contained page
// (inline CSS and script, a Content-Security-Policy that forbids any network), to open offline or
// attach to a ticket. A summary (counts, each node's CPU and memory requested against allocatable
// after the run, pods per zone), then per pod, in the order decided: the result and message, a
// node x plugin grid of normalized scores with the weights and weighted totals (the chosen node
// highlighted, ties at the top marked), the nodes that failed Filter grouped by plugin and reason,
// and the preemption victims. A filter box narrows the pods; each has an anchor.
#pragma once

#include <cstddef>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "cli/nodes_after_run.hpp"
#include "scheduler/run_result.hpp"

namespace schedhost::cli {

inline constexpr std::size_t kMaxHiddenRows = 200'000;

struct HtmlPage {
  std::string title;  // what was run (the config and cluster files)
  // Each profile's Score weights: schedulerName -> plugin -> weight.
  std::map<std::string, std::map<std::string, int>> weights;
  std::vector<NodeAfterRun> nodes;
  // The scored nodes each pod's grid shows, best first (0: all). The others are in the page as
  // data, shown on demand, while the whole page holds at most more_rows of them. A run made for
  // the page condenses each pod's explanation with the same two numbers (RunOptions::digest).
  std::size_t top_nodes = 10;
  std::size_t more_rows = kMaxHiddenRows;
};

void write_html(const scheduler::RunResult& result, const HtmlPage& page, std::ostream& out);

}  // namespace schedhost::cli
