// Issue 15, item 5: `validate --plugin` on the author's own objects (--cluster, --pod) as well as
// the generated ones, an --args name the library does not have as bad input, typed args in
// --args, and the file's mode and owner as the loader would judge them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "support/fixtures.hpp"
#include "support/process.hpp"

namespace schedhost::validate_cluster_test {

using testing::builtin_plugin_dir;
using ::testing::Contains;
using ::testing::HasSubstr;
using testing::ProcessResult;
using testing::run_schedhost;
using testing::ScratchDir;

std::string thrower() {
  return std::string(SCHEDHOST_TEST_FIXTURE_DIR) +
         "/plugin_validator/plugin_validator_annotation_thrower.so";
}

// The table's lines with runs of spaces collapsed.
std::vector<std::string> table_lines(const std::string& out) {
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

std::string failed_lines(const ProcessResult& r) {
  std::string text;
  for (const std::string& line : table_lines(r.out)) {
    if (line.rfind("FAIL", 0) == 0) text += line + "\n";
  }
  return text;
}

// "alice (uid 1000)", as the loader names an owner.
std::string owner(uid_t uid) {
  const struct passwd* entry = getpwuid(uid);
  const std::string id = "uid " + std::to_string(uid);
  return entry == nullptr ? id : std::string(entry->pw_name) + " (" + id + ")";
}

ProcessResult validate(const std::string& file, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args{"validate", "--plugin", file};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_schedhost(args);
}

constexpr const char* kAnnotatedPod = R"(apiVersion: v1
kind: Pod
metadata:
  name: annotated
  namespace: default
  annotations:
    example.com/explode: "yes"
spec:
  containers:
    - name: c
      image: busybox
)";

constexpr const char* kPlainPod = R"(apiVersion: v1
kind: Pod
metadata:
  name: mine
  namespace: default
spec:
  containers:
    - name: c
      image: busybox
)";

constexpr const char* kTwoNodes = R"(apiVersion: v1
kind: Node
metadata:
  name: edge-1
status:
  allocatable: {cpu: "2", memory: 4Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata:
  name: edge-2
status:
  allocatable: {cpu: "2", memory: 4Gi, pods: "110"}
)";

TEST(ValidateOnYourObjects, AFilterThatThrowsOnlyOnYourAnnotationPassesTheGeneratedPods) {
  const ProcessResult r = validate(thrower());
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(failed_lines(r), "");
}

TEST(ValidateOnYourObjects, AndFailsOnYourPod) {
  ScratchDir files;
  const std::string pod = files.write("pod.yaml", kAnnotatedPod);
  const ProcessResult r = validate(thrower(), {"--pod", pod});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(failed_lines(r),
            "FAIL AnnotationThrower Filter [pod.yaml] threw or returned Error: boom on annotated "
            "(pod default/annotated, node node-a) (and 3 more of 4 calls)\n");
  // The generated cluster's checks are still there, and passed.
  EXPECT_THAT(table_lines(r.out), Contains("PASS AnnotationThrower Filter 32 calls"));
}

TEST(ValidateOnYourObjects, APodFileMayHoldSeveralPods) {
  ScratchDir files;
  const std::string pods =
      files.write("pods.yaml", std::string(kPlainPod) + "---\n" + kAnnotatedPod);
  const ProcessResult r = validate(thrower(), {"--pod", pods});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(failed_lines(r),
            "FAIL AnnotationThrower Filter [pods.yaml] threw or returned Error: boom on annotated "
            "(pod default/annotated, node node-a) (and 3 more of 8 calls)\n");
}

TEST(ValidateOnYourObjects, YourClusterGivesTheNodesAndPendingPods) {
  ScratchDir files;
  const std::string cluster =
      files.write("cluster.yaml", std::string(kTwoNodes) + "---\n" + kAnnotatedPod);
  const ProcessResult r = validate(thrower(), {"--cluster", cluster});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(failed_lines(r),
            "FAIL AnnotationThrower Filter [cluster.yaml] threw or returned Error: boom on "
            "annotated (pod default/annotated, node edge-1) (and 1 more of 2 calls)\n");
}

TEST(ValidateOnYourObjects, YourPodsOnYourCluster) {
  ScratchDir files;
  const std::string cluster = files.write("cluster.yaml", kTwoNodes);
  const std::string pod = files.write("pod.yaml", kAnnotatedPod);
  const ProcessResult r = validate(thrower(), {"--cluster", cluster, "--pod", pod});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(failed_lines(r),
            "FAIL AnnotationThrower Filter [cluster.yaml, pod.yaml] threw or returned Error: boom "
            "on annotated (pod default/annotated, node edge-1) (and 1 more of 2 calls)\n");
}

TEST(ValidateOnYourObjects, ABuiltInPassesOnYourObjectsToo) {
  ScratchDir files;
  const std::string cluster = files.write("cluster.yaml", kTwoNodes);
  const std::string pod = files.write("pod.yaml", kPlainPod);
  const ProcessResult r =
      validate(builtin_plugin_dir() + "/node_affinity.so", {"--cluster", cluster, "--pod", pod});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(table_lines(r.out),
              Contains("PASS NodeAffinity Score [cluster.yaml, pod.yaml] 2 calls"));
}

TEST(ValidateOnYourObjects, BadPodFilesAreBadInput) {
  ScratchDir files;
  const std::string nodes = files.write("nodes.yaml", kTwoNodes);
  ProcessResult r = validate(thrower(), {"--pod", nodes});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "error: " + nodes +
                       ": node \"edge-1\" in a pod file: put nodes in --cluster, pods in --pod\n");

  const std::string empty = files.write("empty.yaml", "");
  r = validate(thrower(), {"--pod", empty});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + empty +
                       ": no Pod in the file: write one or more Pods (without spec.nodeName)\n");

  r = validate(thrower(), {"--cluster", files.file("missing.yaml")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, ::testing::StartsWith("error: " + files.file("missing.yaml")));
}

TEST(ValidateOnYourObjects, PodGoesWithPlugin) {
  ScratchDir files;
  const ProcessResult r = run_schedhost(
      {"validate", "--config", files.write("p.yaml", "x"), "--pod", files.write("pod.yaml", "")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(
      r.err,
      "error: --pod goes with --plugin FILE.so: it gives the plugin's validation pods of your "
      "own; remove it, or validate a plugin\n");
}

TEST(ValidateArgs, AnArgsNameTheLibraryDoesNotHaveIsBadInput) {
  const ProcessResult r = validate(thrower(), {"--args", "AnnotationThrowr={}"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "error: --args AnnotationThrowr: " + thrower() +
                       " has no plugin \"AnnotationThrowr\" (its plugins: \"AnnotationThrower\"): "
                       "did you mean \"AnnotationThrower\"? give --args one of those names\n");
  const ProcessResult far = validate(thrower(), {"--args", "Gpu={}"});
  EXPECT_EQ(far.exit_code, 2);
  EXPECT_EQ(far.err, "error: --args Gpu: " + thrower() +
                         " has no plugin \"Gpu\" (its plugins: \"AnnotationThrower\"): give --args "
                         "one of those names\n");
}

TEST(ValidateArgs, TypedArgsAreCheckedAndRemovedAsInAProfile) {
  const std::string node_affinity = builtin_plugin_dir() + "/node_affinity.so";
  ProcessResult r = validate(node_affinity, {"--args",
                                             "NodeAffinity={\"apiVersion\": "
                                             "\"kubescheduler.config.k8s.io/v1\", \"kind\": "
                                             "\"NodeAffinityArgs\"}"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(table_lines(r.out), Contains("PASS NodeAffinity create accepted {}"));
  r = validate(node_affinity, {"--args", "NodeAffinity={\"kind\": \"NodeAffinityArgz\"}"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "error: --args NodeAffinity: kind \"NodeAffinityArgz\" does not match plugin "
            "\"NodeAffinity\", whose args are NodeAffinityArgs: write kind: NodeAffinityArgs, or "
            "leave kind out\n");
}

TEST(ValidateFileMode, TheReportSaysTheLoaderWouldLoadIt) {
  ScratchDir dir;
  const std::string copy = dir.copy_in(thrower(), "thrower.so");
  std::filesystem::permissions(copy, std::filesystem::perms(0755));
  const ProcessResult r = validate(copy);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string me = owner(geteuid());
  EXPECT_THAT(table_lines(r.out), Contains("PASS (library) file mode mode 0755, owner " + me +
                                           ": the loader running as " + me + " would load it"));
}

TEST(ValidateFileMode, TheReportGivesTheLoadersRefusal) {
  ScratchDir dir;
  const std::string copy = dir.copy_in(thrower(), "thrower.so");
  std::filesystem::permissions(copy, std::filesystem::perms(0775));
  const ProcessResult r = validate(copy);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(failed_lines(r), "FAIL (library) file mode mode 0775, owner " + owner(geteuid()) +
                                 ": the loader would refuse it: refusing to load: writable by "
                                 "group (mode 0775): chmod go-w " +
                                 copy + ", or pass --allow-insecure-plugins\n");
}

}  // namespace schedhost::validate_cluster_test
