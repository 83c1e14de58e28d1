// Deep nesting: yaml-cpp's parser recurses once per level (it stops itself near 500 with "bad
// file"), and every converter after it recurses too. Documents deeper than kMaxNestingDepth
// (128) are refused with their position, however the nesting is written.
#include <gtest/gtest.h>

#include "cluster/input_limits.hpp"
#include "hostile_support.hpp"

namespace schedhost::hostile {
namespace {

std::string flow(int depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

// The pod's spec is level 1; `extra` nests below it.
std::string pod_with_spec(const std::string& spec) {
  return "kind: Pod\nmetadata: {name: a}\nspec: " + spec + "\n";
}

TEST(NestingTest, TheLimitIsExact) {
  // root map (0) > spec (1) > 127 sequences (2..128): accepted; one more is refused.
  EXPECT_EQ(cluster_error(pod_with_spec("{x: " + flow(kMaxNestingDepth - 1) + "}")), kAccepted);
  EXPECT_EQ(cluster_error(pod_with_spec("{x: " + flow(kMaxNestingDepth) + "}")),
            "cluster.yaml:3:138: nesting deeper than 128 levels (a recursive alias?): flatten "
            "the document");
}

TEST(NestingTest, FlowMapsAndCompactSequencesBeyondYamlCppsGuard) {
  std::string maps;
  for (int i = 0; i < 100000; ++i)
    maps += "{a: ";
  maps += "1" + std::string(100000, '}');
  std::string compact;  // "- - - x": one level per two characters
  for (int i = 0; i < 100000; ++i)
    compact += "- ";
  for (const std::string& text :
       {pod_with_spec(flow(100000)), pod_with_spec(maps), compact + "x\n"}) {
    std::string error = cluster_error(text);
    EXPECT_TRUE(error.starts_with("cluster.yaml:")) << error;
    EXPECT_TRUE(error.ends_with(": nesting deeper than 128 levels: flatten the document")) << error;
  }
}

TEST(NestingTest, IndentedBlockMappings) {
  std::string text = "kind: Pod\nmetadata: {name: a}\nspec:\n";
  for (int i = 1; i <= 300; ++i)
    text += std::string(i, ' ') + "a:\n";
  std::string error = cluster_error(text);
  EXPECT_TRUE(
      error.ends_with("nesting deeper than 128 levels (a recursive alias?): flatten the "
                      "document"))
      << error;
}

TEST(NestingTest, DeepJson) {
  EXPECT_EQ(cluster_error("{\"kind\": \"Pod\", \"x\": " + flow(100000) + "}", "c.json"),
            "c.json: nesting deeper than 128 levels: flatten the document");
}

TEST(NestingTest, DeepProfileArgs) {
  EXPECT_EQ(profile_error(profile_with_args("{a: " + flow(200) + "}")),
            "profile.yaml:7:138: nesting deeper than 128 levels (a recursive alias?): flatten the "
            "document");
  std::string error = profile_error(profile_with_args(flow(100000)));
  EXPECT_TRUE(error.starts_with("profile.yaml:")) << error;
  EXPECT_TRUE(error.find("nesting deeper than 128 levels") != std::string::npos) << error;
}

}  // namespace
}  // namespace schedhost::hostile
