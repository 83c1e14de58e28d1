// RustLabelFilter (plugins/examples/rust_filter, a Rust cdylib) through the host: the loader's
// checks, the plugin listing, its Filter verdicts, a binding, and its args refusals. Skipped, with
// the reason, when cargo was not found at configure time.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>

#include "example_run.hpp"
#include "support/fixtures.hpp"

namespace schedhost {
namespace {

using testing::Decision;
using ::testing::ElementsAre;
using testing::example_data;
using testing::run_example;
using testing::run_schedhost;

const std::string kRustExample = SCHEDHOST_RUST_EXAMPLE;

class RustFilter : public ::testing::Test {
 protected:
  void SetUp() override {
    if (kRustExample.empty()) {
      GTEST_SKIP() << "cargo was not found when CMake configured this build, so the Rust example "
                      "(plugins/examples/rust_filter) was not built; install cargo (or put "
                      "$HOME/.cargo/bin on PATH) and re-run cmake";
    }
    // Only the Rust library, so the listing below is exactly its own.
    dir_.copy_in(kRustExample, "rust_filter.so");
  }
  testing::ScratchDir dir_;
};

TEST_F(RustFilter, LoadsAndIsListedWithItsOneFilter) {
  const auto r = run_schedhost({"plugins", "--plugin-dir", dir_.path(), "-o", "json"},
                               {"SCHEDHOST_BUILTIN_PLUGIN_DIR=" + dir_.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const auto json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json.at("failed"), nlohmann::json::array());
  ASSERT_EQ(json.at("plugins").size(), 1u);
  const auto& p = json.at("plugins").at(0);
  EXPECT_EQ(p.at("name"), "RustLabelFilter");
  EXPECT_EQ(p.at("description"), "Example in Rust: keeps pods on nodes that carry a given label");
  EXPECT_EQ(p.at("library"), "rust-filter");
  EXPECT_EQ(p.at("version"), "1.0.0");
  EXPECT_EQ(p.at("abi"), "1.0");
  EXPECT_EQ(p.at("extensionPoints"), nlohmann::json::array({"Filter"}));
}

TEST_F(RustFilter, ExportsOnlyTheEntryFunction) {
  const std::string command = "nm -D --defined-only " + kRustExample + " 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buffer[256];
  while (fgets(buffer, sizeof buffer, pipe.get()) != nullptr)
    out += buffer;
  // One line: "<address> T schedhost_plugin_library_v1".
  EXPECT_THAT(out, ::testing::MatchesRegex("[0-9a-f]+ T schedhost_plugin_library_v1\n"));
}

TEST_F(RustFilter, KeepsPodsOnLabelledNodesAndExplainsTheOthers) {
  const auto run =
      run_example(example_data("rust-filter-profile.yaml"),
                  example_data("rust-filter-cluster.yaml"), dir_.path(), {"--explain"});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  EXPECT_EQ(run.process.err, "");
  EXPECT_THAT(run.decisions(),
              ElementsAre(Decision{"default/fast", "Scheduled", "node-c", ""},
                          Decision{"default/picky", "Unschedulable", "",
                                   "0/3 nodes are available: 3 node(s) didn't have label "
                                   "schedhost.io/rust-ready."}));
  const auto& nodes = run.explain("default/fast");
  const auto rejected = nlohmann::json::parse(R"({"code": "UnschedulableAndUnresolvable",
      "plugin": "RustLabelFilter", "reasons": ["node(s) didn't have label disktype=ssd"]})");
  EXPECT_EQ(nodes.at("node-a").at("filter"), rejected);  // disktype=hdd
  EXPECT_EQ(nodes.at("node-b").at("filter"), rejected);  // no disktype
  EXPECT_EQ(nodes.at("node-c").at("filter").at("code"), "Success");
}

TEST_F(RustFilter, RefusesArgsItDoesNotKnow) {
  const std::string profile = testing::read_file(example_data("rust-filter-profile.yaml"));
  const std::string from = "args: {label: disktype, value: ssd}";
  for (const auto& [args, error] : std::vector<std::pair<std::string, std::string>>{
           {"args: {label: 5}", "label must be a string"},
           {"args: {label: disktype, zone: a}",
            "unknown arg \"zone\": the args are label and value"},
           {"args: {label: ''}", "label must not be empty"}}) {
    std::string bad = profile;
    bad.replace(bad.find(from), from.size(), args);
    testing::ScratchDir files;
    const std::string config = files.write("profile.yaml", bad);
    const auto run = run_example(config, example_data("rust-filter-cluster.yaml"), dir_.path());
    EXPECT_EQ(run.process.exit_code, 2) << args;
    EXPECT_EQ(run.process.out, "") << args;
    EXPECT_EQ(run.process.err,
              "error: " + config + ":20:15: plugin \"RustLabelFilter\": " + error + "\n")
        << args;
  }
}

}  // namespace
}  // namespace schedhost
