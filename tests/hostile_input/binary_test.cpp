// The same refusals through bin/schedhost as a user meets them: exit code 2 and exactly one line
// on stderr, "error: file:line:column: what: fix"; an empty cluster file runs and schedules
// nothing.
#include <gtest/gtest.h>

#include "support/process.hpp"

namespace schedhost::hostile {
namespace {

using testing::ProcessResult;
using testing::run_schedhost;

// Only PrioritySort and DefaultBinder, which TwoBuiltIns installs.
constexpr const char* kMinimalProfile = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: default-scheduler
    plugins:
      multiPoint:
        disabled:
          - name: '*'
      queueSort:
        enabled:
          - name: PrioritySort
      bind:
        enabled:
          - name: DefaultBinder
)";

class HostileBinaryTest : public ::testing::Test {
 protected:
  ProcessResult run_cluster(const std::string& name, const std::string& content) {
    cluster_ = dir_.write(name, content);
    return run_schedhost({"run", "--config", dir_.write("profile.yaml", kMinimalProfile),
                          "--cluster", cluster_, "--plugin-dir", plugins_.path()},
                         builtins_.env());
  }
  ProcessResult validate(const std::string& profile) {
    profile_ = dir_.write("bad-profile.yaml", profile);
    return run_schedhost({"validate", "--config", profile_, "--plugin-dir", plugins_.path()},
                         builtins_.env());
  }

  testing::ScratchDir dir_;
  testing::ScratchDir plugins_;  // an empty user plugin directory
  testing::TwoBuiltIns builtins_;
  std::string cluster_;
  std::string profile_;
};

TEST_F(HostileBinaryTest, InvalidUtf8) {
  ProcessResult r = run_cluster("c.yaml", "kind: Pod\nmetadata: {name: \"caf\xE9\"}\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "error: " + cluster_ + ":2:22: invalid UTF-8 (byte 0xE9): save the file as UTF-8\n");
}

TEST_F(HostileBinaryTest, DeepNesting) {
  ProcessResult r = run_cluster(
      "c.yaml", "kind: Pod\nmetadata: {name: a}\nspec: " + std::string(200000, '[') + "\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "error: " + cluster_ + ":4:1: nesting deeper than 128 levels: flatten the document\n");
}

TEST_F(HostileBinaryTest, BillionLaughsProfile) {
  std::string profile =
      std::string(kMinimalProfile) + "x:\n  l0: &l0 [a, a, a, a, a, a, a, a, a]\n";
  for (int i = 1; i <= 9; ++i) {
    profile += "  l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
    for (int j = 0; j < 9; ++j)
      profile += (j > 0 ? ", *l" : "*l") + std::to_string(i - 1);
    profile += "]\n";
  }
  ProcessResult r = validate(profile);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.starts_with("error: " + profile_ + ":")) << r.err;
  EXPECT_NE(r.err.find("excessive aliasing"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
}

TEST_F(HostileBinaryTest, AbsurdQuantity) {
  ProcessResult r = run_cluster("c.json",
                                "{\"kind\": \"Node\", \"metadata\": {\"name\": \"n\"},\n"
                                " \"status\": {\"allocatable\": {\"cpu\": \"1e999999999\"}}}");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + cluster_ +
                       ":2:36: Node \"n\": status.allocatable.cpu \"1e999999999\" is out of range: "
                       "the largest quantity is 9223372036854775807 (2^63-1) units: use a smaller "
                       "amount\n");
}

TEST_F(HostileBinaryTest, DuplicateJsonKey) {
  ProcessResult r = run_cluster("c.json", "{\"kind\": \"Node\",\n \"kind\": \"Pod\"}");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + cluster_ +
                       ":2:2: key \"kind\" appears twice in this mapping: remove one of them\n");
}

TEST_F(HostileBinaryTest, EmptyProfileAndEmptyCluster) {
  ProcessResult bad = validate("");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "error: " + profile_ +
                         ": the file is empty: write a KubeSchedulerConfiguration (apiVersion: "
                         "kubescheduler.config.k8s.io/v1, kind: KubeSchedulerConfiguration)\n");
  ProcessResult empty = run_cluster("c.yaml", "");
  EXPECT_EQ(empty.exit_code, 0) << empty.err;
  EXPECT_EQ(empty.err, "");
}

}  // namespace
}  // namespace schedhost::hostile
