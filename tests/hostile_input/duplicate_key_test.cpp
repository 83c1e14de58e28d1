// A key written twice in one mapping: refused at the second one. yaml-cpp keeps both entries and
// nlohmann's parser would keep the last silently; the API server refuses duplicates (strict
// decoding), and a user editing the first copy would otherwise see no effect.
#include <gtest/gtest.h>

#include "hostile_support.hpp"

namespace schedhost::hostile {
namespace {

TEST(DuplicateKeyTest, ClusterYaml) {
  EXPECT_EQ(cluster_error("kind: Node\nmetadata:\n  name: a\n  labels: {zone: a, zone: b}\n"),
            "cluster.yaml:4:21: key \"zone\" appears twice in this mapping: remove one of them");
}

TEST(DuplicateKeyTest, ClusterJsonNamesTheSecondKey) {
  EXPECT_EQ(cluster_error("{\"kind\": \"List\", \"items\": [\n"
                          "  {\"kind\": \"Node\", \"metadata\": {\"name\": \"a\"}},\n"
                          "  {\"kind\": \"Pod\", \"metadata\": {\"name\": \"p\",\n"
                          "    \"labels\": {\"a/b\": \"1\", \"x\": \"2\",\n"
                          "               \"a/b\": \"3\"}}}]}",
                          "c.json"),
            "c.json:5:16: key \"a/b\" appears twice in this mapping: remove one of them");
}

TEST(DuplicateKeyTest, ClusterJsonTopLevel) {
  EXPECT_EQ(cluster_error("{\"kind\": \"Pod\",\n \"kind\": \"Node\"}", "c.json"),
            "c.json:2:2: key \"kind\" appears twice in this mapping: remove one of them");
}

TEST(DuplicateKeyTest, SameKeyInDifferentMappingsIsFine) {
  EXPECT_EQ(cluster_error("{\"kind\": \"List\", \"items\": [{\"kind\": \"Node\", \"metadata\": "
                          "{\"name\": \"a\"}}, {\"kind\": \"Node\", \"metadata\": {\"name\": "
                          "\"b\"}}]}",
                          "c.json"),
            kAccepted);
}

TEST(DuplicateKeyTest, Profile) {
  EXPECT_EQ(profile_error(kProfileHeader + "parallelism: 4\nparallelism: 8\n"),
            "profile.yaml:4:1: field \"parallelism\" appears twice in KubeSchedulerConfiguration "
            "(first at line 3): keep only one");
  EXPECT_EQ(profile_error(profile_with_args("{a: 1, b: 2, a: 3}")),
            "profile.yaml:7:24: args of plugin \"NodeResourcesFit\": key \"a\" appears twice in "
            "the same mapping: keep only one");
}

}  // namespace
}  // namespace schedhost::hostile
