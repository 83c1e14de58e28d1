// Cluster files read through libyaml's events: the same objects, and messages that name the same
// line and column as when yaml-cpp read every file.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "cluster/cluster_file.hpp"
#include "cluster/yaml_json_reader.hpp"
#include "common/input_error.hpp"
#include "support/yaml_agreement.hpp"

namespace schedhost::cluster {
namespace {

namespace fs = std::filesystem;

// `kubectl get -o yaml` style: what schedhost-bench writes, a node and a pod per document.
std::string kubectl_style_cluster(int nodes, int pods) {
  std::string text;
  for (int i = 0; i < nodes; ++i) {
    const std::string name = "node-" + std::to_string(i);
    text +=
        "---\napiVersion: \"v1\"\nkind: \"Node\"\nmetadata:\n  labels:\n"
        "    kubernetes.io/hostname: \"" +
        name + "\"\n  name: \"" + name +
        "\"\n"
        "spec: {}\nstatus:\n  allocatable:\n    cpu: \"4\"\n    memory: \"32Gi\"\n"
        "    pods: \"110\"\n  conditions:\n    - status: \"True\"\n      type: \"Ready\"\n";
  }
  for (int i = 0; i < pods; ++i) {
    text += "---\napiVersion: \"v1\"\nkind: \"Pod\"\nmetadata:\n  name: \"pod-" +
            std::to_string(i) +
            "\"\n  namespace: \"sched-0\"\nspec:\n  containers:\n"
            "    - image: \"registry.k8s.io/pause:3.10\"\n      name: \"pause\"\n"
            "      ports:\n        - containerPort: 80\n      resources:\n"
            "        requests:\n          cpu: \"100m\"\n          memory: \"500Mi\"\n";
    if (i % 2 == 0) text += "  nodeName: \"node-" + std::to_string(i % nodes) + "\"\n";
  }
  return text;
}

std::string error_of(const std::string& text, YamlReader reader) {
  try {
    parse_cluster_text(text, "cluster.yaml", reader);
  } catch (const InputError& e) {
    return e.what();
  }
  return "<accepted>";
}

// The message for `text`, checked to be the one the yaml-cpp path gives, for a text the libyaml
// reader takes.
std::string fast_path_error(const std::string& text) {
  EXPECT_TRUE(read_yaml_as_json(text).has_value()) << text;
  const std::string fast = error_of(text, YamlReader::kFastest);
  EXPECT_EQ(fast, error_of(text, YamlReader::kYamlCppOnly));
  return fast;
}

TEST(FastPathClusterTest, KubectlStyleFileTakesTheFastPath) {
  const std::string text = kubectl_style_cluster(20, 40);
  ASSERT_TRUE(read_yaml_as_json(text).has_value());
  Cluster cluster = parse_cluster_text(text, "cluster.yaml");
  EXPECT_EQ(cluster.nodes.size(), 20u);
  EXPECT_EQ(cluster.running_pods.size(), 20u);
  EXPECT_EQ(cluster.pending_pods.size(), 20u);
  EXPECT_EQ(cluster.pending_pods[0]->key(), "sched-0/pod-1");
  EXPECT_EQ(testing::cluster_outcome(text, "cluster.yaml", YamlReader::kFastest),
            testing::cluster_outcome(text, "cluster.yaml", YamlReader::kYamlCppOnly));
}

TEST(FastPathClusterTest, IgnoredObjectsKeepTheirPositions) {
  const std::string text =
      "kind: List\nitems:\n- kind: ConfigMap\n  metadata: {name: recorded}\n"
      "- &anchored\n  kind: ConfigMap\n  metadata: {name: from-yaml-cpp}\n"
      "---\n\n  kind: ConfigMap\n  metadata: {name: indented}\n";
  ASSERT_TRUE(read_yaml_as_json(text).has_value());
  Cluster cluster = parse_cluster_text(text, "c.yaml");
  ASSERT_EQ(cluster.ignored.size(), 3u);
  EXPECT_EQ(cluster.ignored[0].location, "c.yaml:3:3");
  EXPECT_EQ(cluster.ignored[1].location, "c.yaml:5:3");
  EXPECT_EQ(cluster.ignored[2].location, "c.yaml:10:3");
}

TEST(FastPathClusterTest, FieldErrorsNameTheirPosition) {
  EXPECT_EQ(
      fast_path_error("kind: Node\nmetadata: {name: a}\n---\nkind: Pod\nmetadata:\n  name: p\n"
                      "spec:\n  containers:\n  - name: c\n    resources:\n"
                      "      requests: {cpu: lots}\n"),
      "cluster.yaml:11:23: Pod \"default/p\": spec.containers[0].resources.requests.cpu "
      "\"lots\" is not a valid quantity: use a number with an optional suffix such as "
      "500m or 2");
}

TEST(FastPathClusterTest, DuplicatesAndPodsOnUnknownNodesNameTheirPositions) {
  EXPECT_EQ(fast_path_error("kind: Node\nmetadata: {name: a}\n---\n# again\nkind: Node\n"
                            "metadata: {name: a}\n"),
            "cluster.yaml:5:1: Node \"a\" is defined twice (first at cluster.yaml:1:1): remove "
            "one of them or rename it");
  // A pod bound to a missing node is a warning, at the same position on both paths.
  const std::string orphan =
      "kind: Node\nmetadata: {name: a}\n---\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeName: "
      "b\n";
  for (YamlReader reader : {YamlReader::kFastest, YamlReader::kYamlCppOnly}) {
    const Cluster cluster = parse_cluster_text(orphan, "cluster.yaml", reader);
    ASSERT_EQ(cluster.warnings.size(), 1u);
    EXPECT_EQ(cluster.warnings[0].substr(0, 62),
              "cluster.yaml:7:13: Pod \"default/p\" is bound to node \"b\", which");
  }
}

TEST(FastPathClusterTest, DocumentsAreCountedAsYamlCppCountsThem) {
  EXPECT_EQ(fast_path_error("---\n---\nkind: Node\nmetadata: {name: a}\n---\n~\n---\njust text\n"),
            "cluster.yaml:8:1: document 4 is a string, not a Kubernetes object: write a mapping "
            "with apiVersion, kind and metadata");
}

TEST(FastPathClusterTest, DirectoryOfFiles) {
  const fs::path dir = fs::temp_directory_path() / ("schedhost-fast-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "a.yaml") << kubectl_style_cluster(2, 0);
  std::ofstream(dir / "b.yaml") << "# b\nkind: Node\nmetadata:\n  name: node-1\n";
  std::string error;
  try {
    load_cluster(dir);
  } catch (const InputError& e) {
    error = e.what();
  }
  EXPECT_EQ(error, (dir / "b.yaml").string() + ":2:1: Node \"node-1\" is defined twice (first at " +
                       (dir / "a.yaml").string() + ":18:1): remove one of them or rename it");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace schedhost::cluster
