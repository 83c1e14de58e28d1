// kube::parse_json makes the tree nlohmann::json::parse(text, nullptr, false) makes: the same
// values, the same number kinds (unsigned for non-negative integers), the last of a repeated key,
// and a discarded value for what is not JSON, including what only one of the two parsers reads.
#include "kube/json_parse.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

namespace schedhost::testing {
namespace {

using nlohmann::json;

// Equal trees, and equal kinds all the way down (json's == says 1 == 1u == 1.0).
void expect_same_tree(const json& got, const json& want, const std::string& where = "") {
  ASSERT_EQ(got.type(), want.type())
      << "at " << where << ": " << got.dump() << " vs " << want.dump();
  ASSERT_EQ(got.is_number_unsigned(), want.is_number_unsigned()) << "at " << where;
  ASSERT_EQ(got.is_number_float(), want.is_number_float()) << "at " << where;
  if (got.is_object()) {
    ASSERT_EQ(got.size(), want.size()) << "at " << where;
    for (auto it = want.begin(); it != want.end(); ++it) {
      ASSERT_TRUE(got.contains(it.key())) << "at " << where << "/" << it.key();
      expect_same_tree(got.at(it.key()), it.value(), where + "/" + it.key());
    }
  } else if (got.is_array()) {
    ASSERT_EQ(got.size(), want.size()) << "at " << where;
    for (std::size_t i = 0; i < want.size(); ++i)
      expect_same_tree(got[i], want[i], where + "/" + std::to_string(i));
  } else {
    ASSERT_EQ(got, want) << "at " << where;
  }
}

void expect_like_nlohmann(const std::string& text) {
  SCOPED_TRACE(text.substr(0, 80));
  const json want = json::parse(text, nullptr, false);
  const json got = kube::parse_json(text);
  ASSERT_EQ(got.is_discarded(), want.is_discarded());
  if (!want.is_discarded()) {
    expect_same_tree(got, want);
    EXPECT_EQ(got.dump(), want.dump());
  }
}

TEST(ParseJson, APodWatchEventFromTheApiServerIsTheSameTree) {
  std::ifstream in(SCHEDHOST_POD_EVENTS);
  ASSERT_TRUE(in) << SCHEDHOST_POD_EVENTS;
  int lines = 0;
  for (std::string line; std::getline(in, line);) {
    expect_like_nlohmann(line);
    ++lines;
  }
  EXPECT_EQ(lines, 2);
}

TEST(ParseJson, NumbersKeepNlohmannsKinds) {
  for (const char* text : {"0", "7", "-7", "9223372036854775807", "-9223372036854775808",
                           "9223372036854775808", "18446744073709551615", "1.5", "-2.5e-3", "1e400",
                           "[1, -1, 2.0, 1E2]", R"({"a": 300, "b": -300, "c": 0.1})"}) {
    expect_like_nlohmann(text);
  }
  // Past 64 bits: nlohmann reads a float; simdjson refuses, and the text goes to nlohmann.
  expect_like_nlohmann("18446744073709551616");
  expect_like_nlohmann(R"({"big": 123456789012345678901234567890})");
  EXPECT_TRUE(kube::parse_json("18446744073709551616").is_number_float());
  EXPECT_TRUE(kube::parse_json("42").is_number_unsigned());
  EXPECT_EQ(kube::parse_json("-42").get<std::int64_t>(), -42);
  // The one difference: simdjson reads -0 as the integer 0, which is then unsigned (nlohmann
  // keeps it signed). The same value and the same text either way.
  EXPECT_EQ(kube::parse_json("-0"), json::parse("-0"));
  EXPECT_EQ(kube::parse_json("-0").dump(), "0");
}

TEST(ParseJson, StringsEscapesAndRepeatedKeys) {
  for (const char* text :
       {R"("plain")", R"("tab\tquote\"slash\/back\\")", R"("\u00e9\u4e2d\ud83d\ude00")",
        R"("nul\u0000inside")", "\"\xc3\xa9 raw UTF-8\"", R"({"k": 1, "k": 2})",
        R"({"": "empty key", "a": {"a": {"a": []}}})", "true", "false", "null", "  {}  ",
        "[[], {}, [[]]]"}) {
    expect_like_nlohmann(text);
  }
  EXPECT_EQ(kube::parse_json(R"({"k": 1, "k": 2})")["k"], 2);
  EXPECT_EQ(kube::parse_json(R"("nul\u0000inside")").get<std::string>().size(), 10u);
}

TEST(ParseJson, WhatIsNotJsonIsDiscarded) {
  for (const char* text :
       {"", "   ", "{", "[1,]", R"({"a" 1})", "nul", "01", "1.", "-", "{\"a\":1} trailing",
        "\"\xff\xfe bad UTF-8\"", "'single'", "[1 2]", "\"unterminated"}) {
    expect_like_nlohmann(text);
    EXPECT_TRUE(kube::parse_json(text).is_discarded()) << text;
  }
}

TEST(ParseJson, DeepAndLargeTextsToo) {
  // Deeper than simdjson's 1024 levels: nlohmann's parser reads it.
  const std::string deep = std::string(1500, '[') + std::string(1500, ']');
  expect_like_nlohmann(deep);
  EXPECT_FALSE(kube::parse_json(deep).is_discarded());
  // Over 64 KB (a list page): a parser of its own; then a small one on the same thread again.
  std::string items = "[";
  for (int i = 0; i < 5000; ++i) {
    items += (i ? "," : "") + std::string(R"({"name":"node-)") + std::to_string(i) +
             R"(","cpu":"4","pods":110})";
  }
  items += "]";
  ASSERT_GT(items.size(), 64u * 1024);
  expect_like_nlohmann(items);
  expect_like_nlohmann(R"({"after": "the large one"})");
}

}  // namespace
}  // namespace schedhost::testing
