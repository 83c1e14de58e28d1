// What the fuzzers found in the parsers' dependencies, pinned with the exact refusal (the inputs
// are also in tests/fuzz/corpus, where the corpus tests replay them).
#include <chrono>

#include <gtest/gtest.h>

#include "hostile_support.hpp"

namespace schedhost::hostile {
namespace {

// yaml-cpp 0.7 loops forever, allocating, on a ',' where a document or a top-level value could
// start.
TEST(FuzzFindingsTest, YamlCppCommaLoopIsRefused) {
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(cluster_error(",\n"),
            "cluster.yaml:1:1: invalid YAML: unexpected ',' outside a [...] or {...}: fix the "
            "syntax at this position");
  EXPECT_EQ(cluster_error("kind: Node\nmetadata: {name: a}\n---\n[a], b\n"),
            "cluster.yaml:4:4: invalid YAML: unexpected ',' outside a [...] or {...}: fix the "
            "syntax at this position");
  EXPECT_EQ(profile_error(kProfileHeader + "---\n, x\n"),
            "profile.yaml:4:1: the file is not valid YAML (unexpected ',' outside a [...] or "
            "{...}): fix the syntax here");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

// A duplicate key stops the JSON parser early; the rest of the text is read again as YAML for the
// position, so it must pass the same guard.
TEST(FuzzFindingsTest, JsonDuplicateBeforeAStrayComma) {
  EXPECT_EQ(cluster_error("{\"a\": 1, \"a\": 2},\n", "c.json"),
            "c.json: key \"a\" appears twice in this mapping: remove one of them");
}

// nlohmann throws out_of_range, not parse_error, for a number beyond double.
TEST(FuzzFindingsTest, JsonNumberOverflowIsRefused) {
  EXPECT_EQ(cluster_error("{\"kind\": \"Pod\",\n \"x\": 1e999}", "c.json"),
            "c.json:2:7: invalid JSON: the number 1e999 is out of range: write a number of at "
            "most about 1.8e308");
}

// A quoted "\n" in a name or key reaches messages: escaped, so the error stays one line.
TEST(FuzzFindingsTest, LineBreaksInUserTextAreEscaped) {
  EXPECT_EQ(cluster::parse_cluster_text(
                "kind: Pod\nmetadata: {name: \"a\\nb\"}\nspec: {nodeName: x}\n", "cluster.yaml")
                .warnings.at(0)
                .substr(0, 68),
            "cluster.yaml:3:18: Pod \"default/a\\nb\" is bound to node \"x\", which is");
  EXPECT_EQ(profile_error(kProfileHeader + "\"bad\\r\\nfield\\u0007\": 1\n").substr(0, 50),
            "profile.yaml:3:1: unknown field \"bad\\r\\nfield\\x07\"");
}

}  // namespace
}  // namespace schedhost::hostile
