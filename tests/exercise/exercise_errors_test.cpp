// `schedhost exercise` as a process, on bad input: one error line on stderr naming the file (and
// line:column where known), nothing on stdout, exit code 2.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "exercise_inputs.hpp"

namespace schedhost {
namespace {

using testing::ExerciseInputs;
using testing::ProcessResult;
using testing::run_schedhost;

// Runs and checks the shape every bad input shares; returns stderr.
std::string bad_input(const ProcessResult& r) {
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  return r.err;
}

TEST(ExerciseErrors, PluginPodAndClusterAreRequired) {
  ExerciseInputs in;
  EXPECT_EQ(bad_input(run_schedhost({"exercise", "--pod", in.pod, "--cluster", in.cluster})),
            "error: --plugin is required (see schedhost --help)\n");
  EXPECT_EQ(bad_input(run_schedhost({"exercise", "--plugin", "A", "--cluster", in.cluster})),
            "error: --pod is required (see schedhost --help)\n");
  EXPECT_EQ(bad_input(run_schedhost({"exercise", "--plugin", "A", "--pod", in.pod})),
            "error: --cluster is required (see schedhost --help)\n");
}

TEST(ExerciseErrors, AnUnknownOutputFormat) {
  ExerciseInputs in;
  EXPECT_EQ(bad_input(in.run("SamplePlugin", {"-o", "yaml"})),
            "error: --output: yaml not in {json,table,html} (see schedhost --help)\n");
}

TEST(ExerciseErrors, AnUnknownPlugin) {
  ExerciseInputs in;
  EXPECT_EQ(bad_input(in.run("GpuFilter")),
            "error: plugin \"GpuFilter\" is not installed (searched, in order: " +
                testing::builtin_plugin_dir() + " (built-in), " + in.plugins.path() +
                "): put its .so in a --plugin-dir, or check the name with `schedhost plugins`\n");
}

TEST(ExerciseErrors, EveryLibraryThatFailsIsOneLine) {
  ExerciseInputs in;
  const std::string bad = in.plugins.copy_in(testing::loader_fixture("bad_name"), "bad_name.so");
  EXPECT_EQ(bad_input(in.run("SamplePlugin")),
            "error: " + bad +
                ": plugin \"Sample_Plugin\" is not a valid name: must match "
                "^[a-zA-Z][a-zA-Z0-9]*$\n");
}

TEST(ExerciseErrors, AMissingPluginDirectory) {
  ExerciseInputs in;
  const std::string missing = in.files.file("no-plugins");
  EXPECT_EQ(
      bad_input(run_schedhost({"exercise", "--plugin", "SamplePlugin", "--pod", in.pod, "--cluster",
                               in.cluster, "--plugin-dir", missing})),
      "error: " + missing + ": plugin directory does not exist: create it or fix --plugin-dir\n");
}

TEST(ExerciseErrors, ABadClusterFile) {
  ExerciseInputs in;
  in.cluster = in.files.write("cluster.yaml", "kind: Node\nmetadata: {name: a}\n---\nkind: [\n");
  EXPECT_THAT(bad_input(in.run("SamplePlugin")),
              ::testing::StartsWith("error: " + in.cluster + ":5:1: invalid YAML: "));
}

TEST(ExerciseErrors, AMissingPodFile) {
  ExerciseInputs in;
  in.pod = in.files.file("missing.yaml");
  EXPECT_EQ(bad_input(in.run("SamplePlugin")),
            "error: " + in.pod +
                ": cannot read the pod file (No such file or directory): check the path and its "
                "permissions\n");
}

TEST(ExerciseErrors, APodDirectory) {
  ExerciseInputs in;
  in.pod = in.files.path();
  EXPECT_EQ(bad_input(in.run("SamplePlugin")),
            "error: " + in.pod + ": is a directory, not a pod file: pass a file\n");
}

TEST(ExerciseErrors, PodFileYamlSyntax) {
  ExerciseInputs in;
  in.pod = in.files.write("pod.yaml", "kind: Pod\nmetadata:\n  name: [web\n");
  EXPECT_EQ(bad_input(in.run("SamplePlugin")),
            "error: " + in.pod +
                ":4:1: invalid YAML: end of sequence flow not found: fix the syntax at this "
                "position\n");
}

TEST(ExerciseErrors, PodFileJsonSyntax) {
  ExerciseInputs in;
  in.pod = in.files.write("pod.json", "{\"kind\": \"Pod\",\n \"metadata\": {\"name\": }}\n");
  EXPECT_EQ(bad_input(in.run("SamplePlugin")),
            "error: " + in.pod +
                ":2:23: invalid JSON: syntax error while parsing value - unexpected '}'; expected "
                "'[', '{', or a literal: fix the syntax at this position\n");
}

TEST(ExerciseErrors, PodFileWithANode) {
  ExerciseInputs in;
  in.pod = in.files.write("pod.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n");
  EXPECT_EQ(bad_input(in.run("SamplePlugin")),
            "error: " + in.pod +
                ":2:7: kind \"Node\" is not a Pod: the pod file holds one Pod (put nodes in "
                "--cluster)\n");
}

TEST(ExerciseErrors, PodFileWithoutKind) {
  ExerciseInputs in;
  in.pod = in.files.write("pod.yaml", "metadata: {name: a}\n");
  EXPECT_EQ(bad_input(in.run("SamplePlugin")),
            "error: " + in.pod + ":1:1: the object has no kind: add kind: Pod\n");
}

TEST(ExerciseErrors, PodFileWithTwoObjects) {
  ExerciseInputs in;
  in.pod = in.files.write("pod.yaml", "kind: Pod\nmetadata: {name: a}\n---\nkind: Pod\n");
  EXPECT_EQ(bad_input(in.run("SamplePlugin")),
            "error: " + in.pod +
                ":4:1: a second object: the pod file holds exactly one Pod (put nodes and running "
                "pods in --cluster)\n");
}

TEST(ExerciseErrors, AnEmptyPodFile) {
  ExerciseInputs in;
  in.pod = in.files.write("pod.yaml", "# nothing\n");
  EXPECT_EQ(bad_input(in.run("SamplePlugin")),
            "error: " + in.pod + ": no Pod in the file: write one Pod object\n");
}

TEST(ExerciseErrors, PodFileWithAList) {
  ExerciseInputs in;
  in.pod = in.files.write("pod.yaml", "- kind: Pod\n");
  EXPECT_EQ(bad_input(in.run("SamplePlugin")),
            "error: " + in.pod +
                ":1:1: the pod file holds a sequence, not a Pod: write one Pod object with "
                "apiVersion, kind and metadata\n");
}

TEST(ExerciseErrors, PodFileWithAnotherApiVersion) {
  ExerciseInputs in;
  in.pod = in.files.write("pod.yaml", "apiVersion: v2\nkind: Pod\nmetadata: {name: a}\n");
  EXPECT_EQ(
      bad_input(in.run("SamplePlugin")),
      "error: " + in.pod + ":1:13: Pod: apiVersion \"v2\" is not supported: use apiVersion: v1\n");
}

TEST(ExerciseErrors, PodFileWithoutAName) {
  ExerciseInputs in;
  in.pod = in.files.write("pod.yaml", "kind: Pod\nmetadata:\n  namespace: prod\n");
  EXPECT_EQ(bad_input(in.run("SamplePlugin")),
            "error: " + in.pod + ":3:3: Pod has no metadata.name: add a name under metadata\n");
}

TEST(ExerciseErrors, PodFileWithABadQuantityNamesItsLine) {
  ExerciseInputs in;
  in.pod = in.files.write("pod.yaml",
                          "kind: Pod\n"
                          "metadata: {name: web, namespace: prod}\n"
                          "spec:\n"
                          "  containers:\n"
                          "    - name: web\n"
                          "      resources:\n"
                          "        requests: {cpu: lots}\n");
  EXPECT_THAT(bad_input(in.run("SamplePlugin")),
              ::testing::StartsWith("error: " + in.pod +
                                    ":7:25: Pod \"web\": spec.containers[0].resources.requests."
                                    "cpu \"lots\" is not a valid quantity"));
}

TEST(ExerciseErrors, InlineArgsThatAreNotJson) {
  ExerciseInputs in;
  EXPECT_EQ(bad_input(in.run("SamplePlugin", {"--args", "{threshold: 5}"})),
            "error: --args:1:3: invalid JSON: syntax error while parsing object key - invalid "
            "literal; last read: '{th'; expected string literal: write a JSON object, e.g. --args "
            "'{\"key\": 1}', or --args @FILE\n");
}

TEST(ExerciseErrors, InlineArgsThatAreNotAnObject) {
  ExerciseInputs in;
  EXPECT_EQ(bad_input(in.run("SamplePlugin", {"--args", "[1]"})),
            "error: --args: the args must be a mapping of fields, got a sequence: write them as a "
            "JSON object or YAML mapping\n");
}

TEST(ExerciseErrors, AMissingArgsFile) {
  ExerciseInputs in;
  const std::string file = in.files.file("args.json");
  EXPECT_EQ(bad_input(in.run("SamplePlugin", {"--args", "@" + file})),
            "error: " + file +
                ": cannot read the args file (No such file or directory): check the path and its "
                "permissions\n");
}

TEST(ExerciseErrors, AnArgsFileWithBadYaml) {
  ExerciseInputs in;
  const std::string file = in.files.write("args.yaml", "threshold: 5\n  zones: [a\n");
  EXPECT_THAT(bad_input(in.run("SamplePlugin", {"--args", "@" + file})),
              ::testing::MatchesRegex("error: " + file +
                                      ":2:[0-9]+: invalid YAML: .*: fix the syntax at this "
                                      "position\n"));
}

TEST(ExerciseErrors, AnArgsFileWithBadJson) {
  ExerciseInputs in;
  const std::string file = in.files.write("args.json", "{\n  \"threshold\": 5,\n}\n");
  EXPECT_THAT(bad_input(in.run("SamplePlugin", {"--args", "@" + file})),
              ::testing::StartsWith("error: " + file + ":3:1: invalid JSON: "));
}

TEST(ExerciseErrors, AnArgsFileThatIsNotAMapping) {
  ExerciseInputs in;
  const std::string file = in.files.write("args.yaml", "- z1\n");
  EXPECT_EQ(bad_input(in.run("SamplePlugin", {"--args", "@" + file})),
            "error: " + file +
                ": the args must be a mapping of fields, got a sequence: write them as a JSON "
                "object or YAML mapping\n");
}

TEST(ExerciseErrors, ThePluginRefusesItsArgs) {
  ExerciseInputs in;
  EXPECT_EQ(bad_input(in.run("SamplePlugin", {"--args", R"({"threshold": 200})"})),
            "error: plugin \"SamplePlugin\": threshold must be between 0 and 100, got 200\n");
  EXPECT_EQ(bad_input(in.run("ExampleFilter", {"--args", R"({"a": 1})"})),
            "error: plugin \"ExampleFilter\": this plugin takes no args\n");
}

TEST(ExerciseErrors, AScoreNodeThatIsNotInTheCluster) {
  ExerciseInputs in;
  EXPECT_EQ(bad_input(in.run("SamplePlugin", {"--score-nodes", "node-a,node-z"})),
            "error: " + in.cluster +
                ": --score-nodes names node \"node-z\", which is not a Node of the cluster: use "
                "one of node-a, node-b, worker-c\n");
}

}  // namespace
}  // namespace schedhost
