#include "cli/plugin_validation_output.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "cli/table.hpp"

namespace schedhost::cli {
namespace {

std::size_t failures(const validator::ValidationReport& report) {
  return static_cast<std::size_t>(
      std::count_if(report.checks.begin(), report.checks.end(),
                    [](const validator::CheckResult& c) { return !c.pass; }));
}

}  // namespace

void print_validation_table(const validator::ValidationReport& report, std::ostream& out) {
  Table table({"RESULT", "PLUGIN", "CHECK", "DETAIL"});
  for (const validator::CheckResult& c : report.checks) {
    table.add_row({c.pass ? "PASS" : "FAIL", c.plugin, c.check, c.detail});
  }
  table.print(out);
  const std::size_t failed = failures(report);
  out << report.checks.size() << " checks, " << failed << " failed\n";
}

void print_validation_json(const std::string& plugin_file,
                           const validator::ValidationReport& report, std::ostream& out) {
  nlohmann::ordered_json checks = nlohmann::ordered_json::array();
  for (const validator::CheckResult& c : report.checks) {
    checks.push_back({{"result", c.pass ? "PASS" : "FAIL"},
                      {"plugin", c.plugin},
                      {"check", c.check},
                      {"detail", c.detail}});
  }
  const nlohmann::ordered_json doc = {
      {"file", plugin_file},
      {"passed", report.passed()},
      {"checks", std::move(checks)},
      {"summary", {{"checks", report.checks.size()}, {"failed", failures(report)}}}};
  out << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

}  // namespace schedhost::cli
