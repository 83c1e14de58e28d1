// Empty files: a profile must say what it configures; an empty cluster file (YAML or JSON, or
// only comments and document markers) is a cluster with no objects, as `kubectl apply` of an
// empty file applies nothing.
#include <gtest/gtest.h>

#include "hostile_support.hpp"

namespace schedhost::hostile {
namespace {

TEST(EmptyFileTest, EmptyProfileIsRefused) {
  const std::string expected =
      "profile.yaml: the file is empty: write a KubeSchedulerConfiguration (apiVersion: "
      "kubescheduler.config.k8s.io/v1, kind: KubeSchedulerConfiguration)";
  for (const char* text : {"", "\n\n", "# only a comment\n", "---\n", "---\n...\n", "~\n"}) {
    EXPECT_EQ(profile_error(text), expected) << text;
  }
}

TEST(EmptyFileTest, EmptyClusterFilesHoldNoObjects) {
  for (const char* text : {"", "\n", "# nothing yet\n", "---\n---\n", "  \n\t\n"}) {
    cluster::Cluster yaml = cluster::parse_cluster_text(text, "cluster.yaml");
    EXPECT_TRUE(yaml.nodes.empty() && yaml.pending_pods.empty() && yaml.ignored.empty()) << text;
  }
  for (const char* text : {"", "\n", " \r\n\t"}) {
    cluster::Cluster json = cluster::parse_cluster_text(text, "cluster.json");
    EXPECT_TRUE(json.nodes.empty() && json.pending_pods.empty() && json.ignored.empty()) << text;
  }
}

TEST(EmptyFileTest, AJsonNullIsEmptyAScalarIsNotAnObject) {
  EXPECT_EQ(cluster_error("null", "c.json"), kAccepted);  // as a YAML document of only ~
  EXPECT_EQ(cluster_error("42", "c.json"),
            "c.json:1:1: the file is a number, not a Kubernetes object: write a mapping with "
            "apiVersion, kind and metadata");
}

}  // namespace
}  // namespace schedhost::hostile
