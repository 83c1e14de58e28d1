// `schedhost validate --plugin FILE.so`: run as a user would, on a good built-in plugin and on one
// fixture per fault; each fault gives exit 1 and its exact FAIL line, and the validator survives
// crashes and hangs of the plugin.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "support/fixtures.hpp"
#include "support/process.hpp"

namespace schedhost::testing {
namespace {

using ::testing::HasSubstr;

std::string fixture(const std::string& name) {
  return std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/plugin_validator/" + name + ".so";
}

// The table's lines with runs of spaces collapsed, so that tests do not depend on column widths.
std::vector<std::string> lines(const std::string& out) {
  std::vector<std::string> result;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    std::string collapsed;
    for (const char c : line) {
      if (c != ' ' || collapsed.empty() || collapsed.back() != ' ') collapsed += c;
    }
    result.push_back(collapsed);
  }
  return result;
}

// Whether text matches pattern, where '#' is one or more digits, '?' one character and '*' any
// run of characters. (Not <regex>: GCC 12 warns inside it under the sanitizers, and -Werror.)
bool like(std::string_view text, std::string_view pattern) {
  if (pattern.empty()) return text.empty();
  if (pattern[0] == '*') {
    for (std::size_t i = 0; i <= text.size(); ++i) {
      if (like(text.substr(i), pattern.substr(1))) return true;
    }
    return false;
  }
  if (pattern[0] == '#') {
    std::size_t n = 0;
    while (n < text.size() && text[n] >= '0' && text[n] <= '9')
      ++n;
    for (std::size_t i = n; i >= 1; --i) {
      if (like(text.substr(i), pattern.substr(1))) return true;
    }
    return false;
  }
  if (text.empty() || (pattern[0] != '?' && pattern[0] != text[0])) return false;
  return like(text.substr(1), pattern.substr(1));
}

ProcessResult validate(const std::string& file, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"validate", "--plugin", file};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_schedhost(args);
}

std::string failures(const ProcessResult& r) {
  std::string text;
  for (const std::string& line : lines(r.out)) {
    if (line.rfind("FAIL", 0) == 0) text += line + "\n";
  }
  return text;
}

TEST(PluginValidator, BuiltInNodeAffinityPassesEveryCheck) {
  const auto r = validate(builtin_plugin_dir() + "/node_affinity.so");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(failures(r), "");
  const auto l = lines(r.out);
  EXPECT_THAT(l, ::testing::Contains("PASS NodeAffinity create accepted {}"));
  EXPECT_THAT(l, ::testing::Contains("PASS NodeAffinity Filter 8 calls"));
  EXPECT_THAT(l, ::testing::Contains(::testing::StartsWith("PASS NodeAffinity Filter on threads")));
  EXPECT_THAT(l, ::testing::Contains(::testing::StartsWith("PASS NodeAffinity cycle-state ")));
  EXPECT_THAT(l, ::testing::Contains("PASS NodeAffinity leak no heap growth over 400 cycles"));
}

TEST(PluginValidator, BuiltInTaintTolerationPassesEveryCheck) {
  const auto r = validate(builtin_plugin_dir() + "/taint_toleration.so");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(failures(r), "");
  EXPECT_THAT(lines(r.out),
              ::testing::Contains(::testing::StartsWith("PASS TaintToleration NormalizeScore")));
}

TEST(PluginValidator, ReportsTheSignalAndTheHookOfACrash) {
  const auto r = validate(fixture("plugin_validator_crash"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(failures(r),
            "FAIL Crasher crash killed by SIGSEGV in Crasher.Filter (pod default/plain, "
            "node node-b)\n");
}

TEST(PluginValidator, KillsAHangingHookAfterTheTimeout) {
  const auto r = validate(fixture("plugin_validator_hang"), {"--timeout-ms", "500"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(failures(r),
            "FAIL Sleeper hang Sleeper.Score (pod default/plain, node node-c) did not return "
            "within 500 ms (killed)\n");
}

TEST(PluginValidator, ReportsAScoreOutOfRange) {
  const auto r = validate(fixture("plugin_validator_score_150"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(failures(r),
            "FAIL Overscorer Score score 150 outside 0..100 without NormalizeScore (pod "
            "default/plain, node node-a) (and 31 more of 32 calls)\n");
}

TEST(PluginValidator, ReportsAnUnknownStatusCode) {
  const auto r = validate(fixture("plugin_validator_code_42"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_THAT(failures(r), HasSubstr("FAIL OddCode Filter returned unknown status code 42 (pod "
                                     "default/plain, node node-a) (and 31 more of 32 calls)\n"));
}

TEST(PluginValidator, ReportsAnExceptionCaughtByTheSdk) {
  const auto r = validate(fixture("plugin_validator_thrower"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(failures(r),
            "FAIL Thrower PreFilter threw or returned Error: boom in PreFilter (pod default/plain) "
            "(and 7 more of 8 calls)\n");
}

TEST(PluginValidator, ReportsResultsThatDifferOnThreads) {
  const auto r = validate(fixture("plugin_validator_flaky"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(like(failures(r),
                   "FAIL Flaky Score on threads node node-? of pod default/plain: score # on 8 "
                   "threads, score # on one thread*\n"))
      << r.out;
}

TEST(PluginValidator, ReportsCycleStateValuesTheHostCannotFree) {
  const auto r = validate(fixture("plugin_validator_leak"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  // The values also show as heap growth: the host's allocator sizes them, hence the pattern.
  EXPECT_TRUE(like(failures(r),
                   "FAIL Leaky cycle-state value \"PreFilterLeaky\" written with ops that have no "
                   "destroy function: the host can never free it (leaked): 8 value(s) leaked\n"
                   "FAIL Leaky leak the heap grew by # bytes per scheduling cycle over 400 "
                   "cycles: memory allocated by the plugin is never freed\n"))
      << r.out;
}

TEST(PluginValidator, ReportsCycleStateValuesWhoseDestroyDoesNotFree) {
  const auto r = validate(fixture("plugin_validator_no_free"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(like(failures(r),
                   "FAIL Forgetful leak the heap grew by # bytes per scheduling cycle over 400 "
                   "cycles: memory allocated by the plugin is never freed\n"))
      << r.out;
}

TEST(PluginValidator, ReportsAQueueSortThatIsNotAntisymmetric) {
  const auto r = validate(fixture("plugin_validator_bad_sort"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_THAT(failures(r),
              ::testing::Eq("FAIL BadSort QueueSort less(default/plain, default/requests) and "
                            "less(default/requests, default/plain) are both true: not "
                            "antisymmetric (and 35 more of 64 calls)\n"));
}

// EnqueueExtensions: the registrations are reported, and the queueing hint runs on synthetic
// events (only those it registered); an answer other than SKIP/QUEUE is a finding.
TEST(PluginValidator, ReportsAQueueingHintThatAnswersNeitherSkipNorQueue) {
  const auto r = validate(fixture("plugin_validator_hint_7"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(
      failures(r),
      "FAIL OddHint QueueingHint answered 7, which is neither SKIP (0) nor QUEUE (1): the "
      "host counts it as QUEUE (pod default/plain, NodeAdd of node node-a) (and 63 more of 88 "
      "calls)\n");
  EXPECT_THAT(lines(r.out), ::testing::Contains("PASS OddHint events registers Node "
                                                "Add|UpdateNodeLabel, Pod Delete"));
}

TEST(PluginValidator, ReportsACrashInTheQueueingHint) {
  const auto r = validate(fixture("plugin_validator_hint_crash"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(failures(r),
            "FAIL HintCrasher crash killed by SIGSEGV in HintCrasher.QueueingHint (pod "
            "default/plain, NodeAdd of node node-b)\n");
}

TEST(PluginValidator, ReportsARegistrationTheHostRefuses) {
  const auto r = validate(fixture("plugin_validator_bad_events"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(failures(r),
            "FAIL BadEvents events registers events for \"Nodes\", which is not a resource: use "
            "one of Pod, Node, PersistentVolume, PersistentVolumeClaim, "
            "storage.k8s.io/StorageClass, storage.k8s.io/CSINode, storage.k8s.io/CSIDriver, "
            "storage.k8s.io/CSIStorageCapacity, resource.k8s.io/ResourceClaim, "
            "resource.k8s.io/ResourceSlice, resource.k8s.io/DeviceClass, \"*\", or "
            "\"<plural>.<version>.<group>\" for another kind: the host refuses the plugin\n");
}

// The built-ins register upstream v1.35's events, with its hints: reported, and the hint called.
TEST(PluginValidator, ReportsTheEventsABuiltInRegisters) {
  const auto r = validate(builtin_plugin_dir() + "/taint_toleration.so");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(lines(r.out), ::testing::Contains("PASS TaintToleration events registers Node "
                                                "Add|UpdateNodeTaint, Pod UpdatePodToleration"));
  // 8 pending pods x (node add and taint change on each of 4 nodes, and their own new
  // tolerations): 8 x (2 x 4 + 1).
  EXPECT_THAT(lines(r.out), ::testing::Contains("PASS TaintToleration QueueingHint 72 calls"));
}

TEST(PluginValidator, ReportsArgsThePluginRefusesAndHowToGiveOthers) {
  const auto r = validate(builtin_plugin_dir() + "/node_affinity.so",
                          {"--args", "NodeAffinity={\"addedAffinity\": 5}"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(failures(r),
            "FAIL NodeAffinity create refused args {\"addedAffinity\":5}: addedAffinity must be a "
            "NodeAffinity object, got 5 (give its args with --args NodeAffinity=JSON)\n");
}

TEST(PluginValidator, ArgsThatAreNotAJsonObjectAreBadInput) {
  const auto r =
      validate(builtin_plugin_dir() + "/node_affinity.so", {"--args", "NodeAffinity=nope"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: --args NodeAffinity: not a JSON object\n");
}

TEST(PluginValidator, PrintsJson) {
  const auto r = validate(fixture("plugin_validator_crash"), {"-o", "json"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["passed"], false);
  const auto& last = doc["checks"].back();
  EXPECT_EQ(last["result"], "FAIL");
  EXPECT_EQ(last["plugin"], "Crasher");
  EXPECT_EQ(last["check"], "crash");
  EXPECT_EQ(last["detail"], "killed by SIGSEGV in Crasher.Filter (pod default/plain, node node-b)");
}

TEST(PluginValidator, AMissingFileIsBadInput) {
  const auto r = validate("/nonexistent/plugin.so");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: /nonexistent/plugin.so: no such file: give the path of a plugin .so\n");
  EXPECT_EQ(r.out, "");
}

TEST(PluginValidator, AFileTheLoaderRefusesIsBadInputWithTheLoadersMessage) {
  ScratchDir dir;
  const std::string junk = dir.write("junk.so", "not an ELF file at all");
  const auto r = validate(junk);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_THAT(r.err, ::testing::StartsWith("error: " + junk + ": "));
  EXPECT_EQ(r.out, "");
}

TEST(PluginValidator, ConfigAndPluginTogetherIsBadInput) {
  const auto r = run_schedhost(
      {"validate", "--plugin", fixture("plugin_validator_crash"), "--config", "x.yaml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--config PROFILE.yaml or --plugin FILE.so"));
}

// ABI 1.9: an Event the host would refuse fails the record_event check with the first one's
// reason and hook; accepted ones are counted.
TEST(PluginValidator, ReportsAnEventTheHostWouldRefuse) {
  const auto r =
      validate(std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/plugin_events/plugin_events_fixture.so",
               {"--args", R"(EventProbe={"events": [["Normal", "Fine", "ok"],
                                         ["Info", "Odd", "no such type"]]})"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  // EventProbe's PreFilter records both of its events on each of the 8 pods: 8 refused.
  EXPECT_THAT(failures(r),
              ::testing::HasSubstr("FAIL EventProbe record_event record_event type \"Info\" is "
                                   "neither Normal nor Warning (and 7 more of 16)\n"));
}

// ABI 1.9: the Coscheduling example on a cluster file with its PodGroups (a resource it
// declares): its hooks, Events and metrics are driven and reported.
TEST(PluginValidator, DrivesAPluginOnTheCustomResourcesItDeclares) {
  const auto r =
      validate(std::string(SCHEDHOST_BINARY_DIR) + "/lib/schedhost/examples/coscheduling.so",
               {"--cluster",
                std::string(SCHEDHOST_SOURCE_DIR) + "/tests/examples/data/gang-incomplete.yaml"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(failures(r), "");
  const auto l = lines(r.out);
  EXPECT_THAT(l, ::testing::Contains("PASS Coscheduling Permit [gang-incomplete.yaml] 4 calls"));
  EXPECT_THAT(l, ::testing::Contains("PASS Coscheduling record_event 9 events recorded"));
  EXPECT_THAT(l, ::testing::Contains(
                     "PASS Coscheduling metric schedhost_plugin_gangs_rejected_total total 1"));
}

}  // namespace
}  // namespace schedhost::testing
