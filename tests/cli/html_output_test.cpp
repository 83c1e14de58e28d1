// `schedhost run -o html`: the page's grids, totals and counts are the JSON output's (parsed out
// of the page by its data- attributes, which is what the page promises to carry), nothing from a
// user file can inject markup or script, and a real browser (Debian's chromium, headless) renders
// it without console errors and shows hostile names as text.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli/html_text.hpp"
#include "cli/result_html.hpp"
#include "scheduler/scheduler_harness.hpp"
#include "support/cluster_yaml.hpp"
#include "support/process.hpp"

// A namespace of its own: the unity build puts this file beside the other cli tests.
namespace schedhost::html_output_test {

using nlohmann::json;
using testing::ProcessResult;
using testing::run_schedhost;

const std::string kSource = SCHEDHOST_SOURCE_DIR;
const std::string kConfig = kSource + "/configs/scheduler-config.yaml";
const std::string kCluster = kSource + "/configs/cluster.yaml";

// One pod's grid as the page shows it: node -> (plugin -> score, total), and each plugin's weight.
struct Grid {
  std::map<std::string, std::map<std::string, std::int64_t>> scores;
  std::map<std::string, std::int64_t> totals;
  std::map<std::string, int> weights;
  std::string chosen;  // the row marked "chosen"
};

// pod -> its grid, from every <table class="scores">, its rows and its hidden rows' JSON.
std::map<std::string, Grid> grids(const std::string& html) {
  std::map<std::string, Grid> out;
  const std::regex table_re("<table class=\"scores\" id=\"([^\"]+)\" data-pod=\"([^\"]*)\">");
  for (std::sregex_iterator t(html.begin(), html.end(), table_re), end; t != end; ++t) {
    Grid& grid = out[(*t)[2].str()];
    const std::size_t from = static_cast<std::size_t>(t->position());
    const std::string table = html.substr(from, html.find("</table>", from) - from);
    std::vector<std::string> columns;
    const std::regex th_re("<th data-plugin=\"([^\"]*)\" data-weight=\"(\\d+)\">");
    for (std::sregex_iterator h(table.begin(), table.end(), th_re); h != end; ++h) {
      columns.push_back((*h)[1].str());
      grid.weights[(*h)[1].str()] = std::stoi((*h)[2].str());
    }
    const std::regex tr_re(
        "<tr data-node=\"([^\"]*)\" data-total=\"(-?\\d+)\"( class=\"([^\"]*)\")?>"
        "(.*?)</tr>");
    for (std::sregex_iterator r(table.begin(), table.end(), tr_re); r != end; ++r) {
      const std::string node = (*r)[1].str();
      grid.totals[node] = std::stoll((*r)[2].str());
      if ((*r)[4].str().find("chosen") != std::string::npos) grid.chosen = node;
      const std::string cells = (*r)[5].str();
      const std::regex td_re("<td data-plugin=\"([^\"]*)\" data-score=\"(-?\\d+)\"");
      for (std::sregex_iterator c(cells.begin(), cells.end(), td_re); c != end; ++c)
        grid.scores[node][(*c)[1].str()] = std::stoll((*c)[2].str());
    }
    // The rows behind the "show" button: [node, [scores in column order], total].
    const std::string rest_open =
        "<script type=\"application/json\" id=\"" + (*t)[1].str() + "-rest\">";
    if (const std::size_t at = html.find(rest_open); at != std::string::npos) {
      const std::size_t start = at + rest_open.size();
      for (const json& row :
           json::parse(html.substr(start, html.find("</script>", start) - start))) {
        const std::string node = row[0];
        grid.totals[node] = row[2];
        for (std::size_t k = 0; k < columns.size(); ++k)
          grid.scores[node][columns[k]] = row[1][k];
      }
    }
  }
  return out;
}

// pod -> (plugin, reason) -> nodes, from each pod section's <table class="failures">.
std::map<std::string, std::map<std::pair<std::string, std::string>, int>> failure_tables(
    const std::string& html) {
  std::map<std::string, std::map<std::pair<std::string, std::string>, int>> out;
  const std::regex section_re(
      "<section class=\"pod\" id=\"pod-\\d+\" data-pod-entry=\"([^\"]*)\">");
  const std::regex row_re(
      "<tr data-plugin=\"([^\"]*)\" data-count=\"(\\d+)\"><td>[^<]*</td><td>([^<]*)</td>");
  for (std::sregex_iterator p(html.begin(), html.end(), section_re), end; p != end; ++p) {
    const std::size_t from = static_cast<std::size_t>(p->position());
    const std::string section = html.substr(from, html.find("</section>", from) - from);
    const std::size_t table = section.find("<table class=\"failures\">");
    if (table == std::string::npos) continue;
    const std::string rows = section.substr(table);
    for (std::sregex_iterator r(rows.begin(), rows.end(), row_re); r != end; ++r)
      out[(*p)[1].str()][{(*r)[1].str(), (*r)[3].str()}] = std::stoi((*r)[2].str());
  }
  return out;
}

void expect_same_as_json(const std::string& html, const json& result) {
  const std::map<std::string, Grid> shown = grids(html);
  const auto failures = failure_tables(html);
  for (const json& pod : result["pods"]) {
    std::map<std::pair<std::string, std::string>, int> expected;
    const json nodes = pod.value("explain", json::object()).value("nodes", json::object());
    for (const auto& [node, e] : nodes.items()) {
      const json& f = e["filter"];
      if (f["code"] == "Success" || f["code"] == "NotEvaluated") continue;
      for (const json& reason : f.value("reasons", json::array()))
        ++expected[{cli::html_escape(f.value("plugin", "")),
                    cli::html_escape(reason.get<std::string>())}];
    }
    const std::string name = cli::html_escape(pod["pod"].get<std::string>());
    if (expected.empty()) {
      EXPECT_EQ(failures.count(name), 0u) << name;
    } else {
      ASSERT_EQ(failures.count(name), 1u) << name;
      EXPECT_EQ(failures.at(name), expected) << name;
    }
  }
  std::size_t pods_with_scores = 0;
  for (const json& pod : result["pods"]) {
    const std::string name = pod["pod"];
    std::map<std::string, std::int64_t> totals;  // a Skipped pod has no explanation
    const json nodes = pod.value("explain", json::object()).value("nodes", json::object());
    for (const auto& [node, e] : nodes.items()) {
      if (e.contains("total")) totals[node] = e["total"];
    }
    if (totals.empty()) {
      EXPECT_EQ(shown.count(name), 0u) << name;
      continue;
    }
    ++pods_with_scores;
    ASSERT_EQ(shown.count(name), 1u) << name;
    const Grid& grid = shown.at(name);
    EXPECT_EQ(grid.totals, totals) << name;
    EXPECT_EQ(grid.chosen, pod["node"]) << name;
    for (const auto& [node, total] : totals) {
      const json& e = nodes.at(node);
      std::int64_t weighted = 0;
      for (const auto& [plugin, score] : e["scores"].items()) {
        EXPECT_EQ(grid.scores.at(node).at(plugin), score.get<std::int64_t>())
            << name << " " << node;
        weighted += score.get<std::int64_t>() * grid.weights.at(plugin);
      }
      EXPECT_EQ(weighted, total) << name << " " << node << ": the weights shown make the total";
    }
  }
  EXPECT_EQ(shown.size(), pods_with_scores);
  for (const char* count : {"scheduled", "unschedulable", "skipped", "errors", "preempted"}) {
    EXPECT_THAT(html,
                ::testing::HasSubstr("data-count=\"" + std::string(count) + "\">" +
                                     std::to_string(result["summary"][count].get<int>()) + "<"));
  }
}

json run_json(const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args{
      "run", "--config", kConfig,     "--cluster",    kCluster,
      "-o",  "json",     "--explain", "--plugin-dir", testing::example_plugin_dir()};
  args.insert(args.end(), extra.begin(), extra.end());
  const ProcessResult r = run_schedhost(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(r.out);
}

std::string run_html(const std::string& config, const std::string& cluster,
                     const std::vector<std::string>& extra = {}) {
  // configs/scheduler-config.yaml uses the example plugins.
  std::vector<std::string> args{"run",       "--config",     config,
                                "--cluster", cluster,        "-o",
                                "html",      "--plugin-dir", testing::example_plugin_dir()};
  args.insert(args.end(), extra.begin(), extra.end());
  const ProcessResult r = run_schedhost(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  return r.out;
}

TEST(HtmlOutput, TheGridsTotalsAndCountsAreTheJsonOutputs) {
  const std::string html = run_html(kConfig, kCluster);
  EXPECT_THAT(html, ::testing::StartsWith("<!DOCTYPE html>"));
  expect_same_as_json(html, run_json());
  // Self-contained: nothing loaded from anywhere.
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("href=\"http"), std::string::npos);
  EXPECT_THAT(html, ::testing::HasSubstr("default-src 'none'"));
}

TEST(HtmlOutput, RowsBeyondTheFirstNAreInThePageBehindAButton) {
  const std::string html = run_html(kConfig, kCluster, {"--html-nodes", "1"});
  EXPECT_THAT(html, ::testing::HasSubstr("show the other 2 scored nodes"));
  expect_same_as_json(html, run_json());
}

TEST(HtmlOutput, TheSummaryHasEachNodesRequestsAndThePodsPerZone) {
  const std::string html = run_html(kConfig, kCluster);
  // configs/README.md: worker-gpu-3 has 7.5 of 8 CPUs requested; train-prod (2 CPUs, 8Gi) and
  // notebook-dev join worker-gpu-1's running pod.
  EXPECT_THAT(html, ::testing::HasSubstr("<tr data-node=\"worker-gpu-3\"><td>worker-gpu-3</td>"
                                         "<td>zone-a</td><td>1</td><td>7500m / 8</td>"));
  EXPECT_THAT(html, ::testing::HasSubstr("<tr data-zone=\"zone-b\"><td>zone-b</td><td>2</td>"));
}

// Nodes Filter never saw are not failures: they get a line of their own, by why.
// `run -o html` condenses each pod's explanation as it is decided (RunOptions::digest), so a run of
// thousands of nodes and pods fits in memory; the page must be the one the full explanation makes,
// byte for byte, including when the "show more" budget runs out part way.
TEST(HtmlOutput, ThePageFromDigestsIsThePageFromTheFullExplanation) {
  std::string cluster;
  for (int i = 0; i < 12; ++i)
    cluster += testing::node_yaml("node-" + std::to_string(i));
  for (int i = 0; i < 6; ++i)
    cluster += testing::pod_yaml("web-" + std::to_string(i));
  cluster += testing::pod_yaml("ssd", "", "  nodeSelector: {disk: ssd}\n");
  const std::string profile = testing::read_file(kSource + "/configs/default-profile.yaml");

  cli::HtmlPage page;
  page.title = "digest";
  page.top_nodes = 3;
  page.more_rows = 20;  // the first two pods keep their 9 more rows, the others none
  testing::SchedulerHarness harness;
  scheduler::RunOptions full;
  full.explain = true;
  scheduler::RunOptions digest;
  digest.digest = scheduler::DigestOptions{page.top_nodes, page.more_rows};
  std::ostringstream from_full;
  std::ostringstream from_digest;
  cli::write_html(harness.run(profile, cluster, full), page, from_full);
  const scheduler::RunResult condensed = harness.run(profile, cluster, digest);
  cli::write_html(condensed, page, from_digest);

  EXPECT_EQ(from_digest.str(), from_full.str());
  ASSERT_TRUE(condensed.pods.front().explain && condensed.pods.front().explain->digest);
  EXPECT_TRUE(condensed.pods.front().explain->nodes.empty());
  const std::string& html = from_digest.str();
  EXPECT_THAT(html, ::testing::HasSubstr(">show the other 9 scored nodes</button>"));
  EXPECT_THAT(html, ::testing::HasSubstr("<p class=\"more\">9 more scored nodes are not in this "
                                         "page (it holds at most 20 hidden rows)"));
  EXPECT_THAT(html, ::testing::HasSubstr("<td>NodeAffinity</td><td>node(s) didn&#39;t match "
                                         "Pod&#39;s node affinity/selector</td><td>12</td>"));
}

TEST(HtmlOutput, NodesLeftOutByPreFilterAreNotEvaluatedNotFailed) {
  testing::ScratchDir dir;
  std::string cluster;
  for (const char* node : {"node-a", "node-b", "node-c"}) {
    cluster += std::string("apiVersion: v1\nkind: Node\nmetadata:\n  name: ") + node +
               "\nstatus:\n  allocatable: {cpu: '4', memory: 8Gi, pods: '110'}\n---\n";
  }
  cluster += R"(apiVersion: v1
kind: Pod
metadata: {name: pinned, namespace: default}
spec:
  containers: [{name: c, image: busybox}]
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchFields: [{key: metadata.name, operator: In, values: [node-b]}]
)";
  const std::string html =
      run_html(kSource + "/configs/default-profile.yaml", dir.write("pinned.yaml", cluster));
  EXPECT_THAT(html, ::testing::HasSubstr("<p class=\"not-evaluated\" data-count=\"2\">2 node(s) "
                                         "not evaluated: not in the PreFilter result</p>"));
  EXPECT_EQ(html.find("<table class=\"failures\">"), std::string::npos);
  EXPECT_THAT(html, ::testing::HasSubstr("Scheduled</span> on <b data-node=\"node-b\">"));
}

const std::string kHostile = R"(apiVersion: v1
kind: Node
metadata:
  name: "<img src=x onerror=alert(1)>"
  labels: {topology.kubernetes.io/zone: "\"><script>alert(2)</script>"}
status:
  allocatable: {cpu: '4', memory: 8Gi, pods: '110'}
---
apiVersion: v1
kind: Node
metadata:
  name: "node-&amp;"
status:
  allocatable: {cpu: '4', memory: 8Gi, pods: '110'}
---
apiVersion: v1
kind: Pod
metadata:
  name: "</script><script>alert(3)</script>"
  namespace: "ns'\"<b>"
spec:
  containers: [{name: c, image: busybox, resources: {requests: {cpu: '1'}}}]
---
apiVersion: v1
kind: Pod
metadata:
  name: "too-big-<!--"
  namespace: default
spec:
  containers: [{name: c, image: busybox, resources: {requests: {cpu: '100'}}}]
)";

TEST(HtmlOutput, NamesFromTheClusterFileCannotInjectMarkupOrScript) {
  testing::ScratchDir dir;
  const std::string cluster = dir.write("hostile.yaml", kHostile);
  const std::string html =
      run_html(kSource + "/configs/default-profile.yaml", cluster, {"--html-nodes", "1"});
  for (const char* raw : {"<img", "<script>alert", "<b>", "<!--", "\"><script"}) {
    EXPECT_EQ(html.find(raw), std::string::npos) << raw;
  }
  EXPECT_THAT(html, ::testing::HasSubstr("&lt;img src=x onerror=alert(1)&gt;"));
  EXPECT_THAT(html,
              ::testing::HasSubstr("ns&#39;&quot;&lt;b&gt;/&lt;/script&gt;&lt;script&gt;alert(3)"
                                   "&lt;/script&gt;"));
  EXPECT_THAT(html, ::testing::HasSubstr("node-&amp;amp;"));
  // Three script elements of the page's own (the hidden rows of two pods, and the code) at most.
  std::size_t scripts = 0;
  for (std::size_t at = html.find("<script"); at != std::string::npos;
       at = html.find("<script", at + 1))
    ++scripts;
  std::size_t ends = 0;
  for (std::size_t at = html.find("</script>"); at != std::string::npos;
       at = html.find("</script>", at + 1))
    ++ends;
  EXPECT_EQ(scripts, ends);
  EXPECT_LE(scripts, 3u);
}

// A real browser: Debian's chromium, headless. Skipped with the reason where it is not installed
// (scripts/install-deps.sh installs it for make test).
std::string chromium() {
  for (const char* candidate : {"/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
    if (::access(candidate, X_OK) == 0) return candidate;
  }
  return {};
}

ProcessResult browser(const std::vector<std::string>& args) {
  ProcessResult r;
  testing::ScratchDir profile;
  std::string command = chromium() +
                        " --headless=new --no-sandbox --disable-gpu --no-first-run"
                        " --enable-logging=stderr --v=0 --user-data-dir=" +
                        profile.path();
  for (const std::string& a : args)
    command += " '" + a + "'";
  const std::string out = profile.file("out"), err = profile.file("err");
  r.exit_code = std::system((command + " >" + out + " 2>" + err).c_str());
  r.out = testing::read_file(out);
  r.err = testing::read_file(err);
  return r;
}

TEST(HtmlOutput, ChromiumRendersTheExampleWithoutConsoleErrors) {
  if (chromium().empty()) GTEST_SKIP() << "chromium is not installed (scripts/install-deps.sh)";
  testing::ScratchDir dir;
  const std::string page =
      dir.write("configs.html", run_html(kConfig, kCluster, {"--html-nodes", "1"}));
  const std::string png = dir.file("configs.png");
  const ProcessResult shot =
      browser({"--window-size=1200,1600", "--screenshot=" + png, "file://" + page});
  EXPECT_EQ(shot.exit_code, 0) << shot.err;
  EXPECT_GT(testing::read_file(png).size(), 10'000u) << shot.err;
  EXPECT_EQ(shot.err.find("CONSOLE"), std::string::npos) << shot.err;
}

TEST(HtmlOutput, ChromiumShowsHostileNamesAsText) {
  if (chromium().empty()) GTEST_SKIP() << "chromium is not installed (scripts/install-deps.sh)";
  testing::ScratchDir dir;
  const std::string cluster = dir.write("hostile.yaml", kHostile);
  const std::string page =
      dir.write("hostile.html", run_html(kSource + "/configs/default-profile.yaml", cluster));
  const ProcessResult dom = browser({"--dump-dom", "file://" + page});
  EXPECT_EQ(dom.exit_code, 0) << dom.err;
  EXPECT_EQ(dom.err.find("CONSOLE"), std::string::npos) << dom.err;
  EXPECT_THAT(dom.out, ::testing::HasSubstr("&lt;img src=x onerror=alert(1)&gt;"));
  EXPECT_EQ(dom.out.find("<img"), std::string::npos);
  EXPECT_EQ(dom.out.find("<b>"), std::string::npos);
  EXPECT_EQ(dom.out.find("<script>alert"), std::string::npos);
}

}  // namespace schedhost::html_output_test
