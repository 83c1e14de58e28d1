// Aliases: yaml-cpp keeps them as shared nodes, but converting a document to JSON (and reading
// profile fields) expands them. Expansion is bounded as go-yaml bounds it for kubectl and the
// API server; a recursive alias is caught by the nesting limit.
#include <chrono>

#include <gtest/gtest.h>

#include "hostile_support.hpp"

namespace schedhost::hostile {
namespace {

// l0 is 9 strings; each next level is 9 aliases of the previous: 9^levels strings expanded.
std::string laughs(int levels, const std::string& indent) {
  std::string text = indent + "l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (int i = 1; i <= levels; ++i) {
    text += indent + "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
    for (int j = 0; j < 9; ++j)
      text += (j > 0 ? ", *l" : "*l") + std::to_string(i - 1);
    text += "]\n";
  }
  return text;
}

TEST(AliasTest, BillionLaughsInAClusterFileIsRefusedQuickly) {
  const auto start = std::chrono::steady_clock::now();
  std::string error = cluster_error("kind: Pod\nmetadata: {name: a}\nspec:\n" + laughs(9, "  "));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_TRUE(error.starts_with("cluster.yaml:")) << error;
  EXPECT_TRUE(error.find(": the document contains excessive aliasing (") != std::string::npos)
      << error;
  EXPECT_TRUE(
      error.ends_with("values come from aliases): write the values out, or use fewer "
                      "aliases"))
      << error;
}

TEST(AliasTest, BillionLaughsInProfileArgs) {
  std::string error = profile_error(profile_with_args("\n" + laughs(9, "      ")));
  EXPECT_TRUE(error.starts_with("profile.yaml:")) << error;
  EXPECT_TRUE(error.find("excessive aliasing") != std::string::npos) << error;
}

TEST(AliasTest, ExpansionIsCheckedBeforeAnyProfileFieldIsRead) {
  // Top-level l0..l8 would be unknown fields; the aliasing is what is refused, before any walk.
  std::string error = profile_error(kProfileHeader + laughs(8, ""));
  EXPECT_TRUE(error.find("excessive aliasing") != std::string::npos) << error;
}

TEST(AliasTest, OneLongStringCopiedByAliases) {
  // 200 aliases of a 1 MiB string: few nodes, 200 MiB of copies.
  std::string text = "kind: Pod\nmetadata: {name: a, annotations: {x: &s '" +
                     std::string(1 << 20, 'x') + "'}}\nspec:\n  l: [";
  for (int i = 0; i < 200; ++i)
    text += i > 0 ? ", *s" : "*s";
  text += "]\n";
  std::string error = cluster_error(text);
  EXPECT_TRUE(
      error.ends_with(": aliases expand to more than 32 MiB of text: write the values "
                      "out, or use fewer aliases"))
      << error.substr(0, 200);
}

TEST(AliasTest, RecursiveAlias) {
  EXPECT_EQ(cluster_error("kind: Pod\nmetadata: {name: a}\nspec: &loop [*loop]\n"),
            "cluster.yaml:3:7: nesting deeper than 128 levels (a recursive alias?): flatten the "
            "document");
}

TEST(AliasTest, OrdinaryAliasesStillWork) {
  std::string text =
      "kind: List\nitems:\n"
      "- {kind: Node, metadata: {name: a, labels: &labels {zone: z1, disk: ssd}}}\n"
      "- {kind: Node, metadata: {name: b, labels: *labels}}\n";
  for (int i = 0; i < 200; ++i)
    text += "- {kind: Pod, metadata: {name: p" + std::to_string(i) + ", labels: *labels}}\n";
  EXPECT_EQ(cluster_error(text), kAccepted);
}

}  // namespace
}  // namespace schedhost::hostile
