// schedhost/json_args.h, the C plugins' args reader: every type by JSON pointer, escapes, ranges,
// and malformed text refused whatever is asked.
#include <gtest/gtest.h>
#include <schedhost/json_args.h>

#include <cstdint>
#include <string>

namespace schedhost::json_args_test {

schedhost_str_t text(const std::string& s) {
  return {s.data(), s.size()};
}

const std::string kArgs = R"( {"name": "gpu", "weight": 3, "neg": -9223372036854775808,
  "big": 9223372036854775808, "ratio": 0.5, "on": true, "off": false, "none": null,
  "zones": ["a", "b\/c", "\u00e9\ud83d\ude00"], "nested": {"a/b": {"~x": [10, [20, 21]]}},
  "empty": {}, "list": [] } )";

std::string string_at(const std::string& json, const char* pointer, size_t size = 64) {
  char buf[64] = "untouched";
  const schedhost_args_result_t r = schedhost_args_string(text(json), pointer, buf, size);
  return r == SCHEDHOST_ARGS_OK ? std::string(buf) : "#" + std::to_string(r);
}

TEST(JsonArgs, ReadsStringsWithTheirEscapes) {
  EXPECT_EQ(string_at(kArgs, "/name"), "gpu");
  EXPECT_EQ(string_at(kArgs, "/zones/1"), "b/c");
  EXPECT_EQ(string_at(kArgs, "/zones/2"), "\xC3\xA9\xF0\x9F\x98\x80");  // é and U+1F600
  EXPECT_EQ(string_at(kArgs, "/missing"), "#1");
  EXPECT_EQ(string_at(kArgs, "/weight"), "#2");
  EXPECT_EQ(string_at(kArgs, "/name", 3), "#3");  // "gpu" needs 4 bytes with its NUL
  EXPECT_EQ(string_at(kArgs, "/name", 4), "gpu");
}

TEST(JsonArgs, ReadsIntegersInInt64RangeOnly) {
  int64_t v = 7;
  EXPECT_EQ(schedhost_args_int64(text(kArgs), "/weight", &v), SCHEDHOST_ARGS_OK);
  EXPECT_EQ(v, 3);
  EXPECT_EQ(schedhost_args_int64(text(kArgs), "/neg", &v), SCHEDHOST_ARGS_OK);
  EXPECT_EQ(v, INT64_MIN);
  v = 7;
  EXPECT_EQ(schedhost_args_int64(text(kArgs), "/big", &v), SCHEDHOST_ARGS_OUT_OF_RANGE);
  EXPECT_EQ(schedhost_args_int64(text(kArgs), "/ratio", &v), SCHEDHOST_ARGS_OUT_OF_RANGE);
  EXPECT_EQ(schedhost_args_int64(text(kArgs), "/name", &v), SCHEDHOST_ARGS_WRONG_TYPE);
  EXPECT_EQ(v, 7);  // untouched unless OK
  EXPECT_EQ(schedhost_args_int64(text(kArgs), "/nested/a~1b/~0x/1/0", &v), SCHEDHOST_ARGS_OK);
  EXPECT_EQ(v, 20);
  EXPECT_EQ(schedhost_args_int64(text(R"({"n": 9223372036854775807})"), "/n", &v),
            SCHEDHOST_ARGS_OK);
  EXPECT_EQ(v, INT64_MAX);
}

TEST(JsonArgs, ReadsBooleansTypesAndLengths) {
  bool b = false;
  EXPECT_EQ(schedhost_args_bool(text(kArgs), "/on", &b), SCHEDHOST_ARGS_OK);
  EXPECT_TRUE(b);
  EXPECT_EQ(schedhost_args_bool(text(kArgs), "/off", &b), SCHEDHOST_ARGS_OK);
  EXPECT_FALSE(b);
  EXPECT_EQ(schedhost_args_bool(text(kArgs), "/none", &b), SCHEDHOST_ARGS_WRONG_TYPE);

  size_t n = 0;
  EXPECT_EQ(schedhost_args_length(text(kArgs), "/zones", &n), SCHEDHOST_ARGS_OK);
  EXPECT_EQ(n, 3u);
  EXPECT_EQ(schedhost_args_length(text(kArgs), "", &n), SCHEDHOST_ARGS_OK);
  EXPECT_EQ(n, 12u);
  EXPECT_EQ(schedhost_args_length(text(kArgs), "/empty", &n), SCHEDHOST_ARGS_OK);
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(schedhost_args_length(text(kArgs), "/list", &n), SCHEDHOST_ARGS_OK);
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(schedhost_args_length(text(kArgs), "/name", &n), SCHEDHOST_ARGS_WRONG_TYPE);

  schedhost_args_type_t t = SCHEDHOST_ARGS_NULL;
  EXPECT_EQ(schedhost_args_type(text(kArgs), "/nested", &t), SCHEDHOST_ARGS_OK);
  EXPECT_EQ(t, SCHEDHOST_ARGS_OBJECT);
  EXPECT_EQ(schedhost_args_type(text(kArgs), "/ratio", &t), SCHEDHOST_ARGS_OK);
  EXPECT_EQ(t, SCHEDHOST_ARGS_NUMBER);
  EXPECT_EQ(schedhost_args_type(text(kArgs), "/zones/3", &t), SCHEDHOST_ARGS_ABSENT);
  EXPECT_EQ(schedhost_args_type(text(kArgs), "/zones/01", &t), SCHEDHOST_ARGS_ABSENT);
  EXPECT_EQ(schedhost_args_type(text(kArgs), "/name/x", &t), SCHEDHOST_ARGS_WRONG_TYPE);
}

TEST(JsonArgs, NamesTheMembersInOrderAndQuotesAValue) {
  char name[16];
  ASSERT_EQ(schedhost_args_name(text(kArgs), "", 0, name, sizeof name), SCHEDHOST_ARGS_OK);
  EXPECT_STREQ(name, "name");
  ASSERT_EQ(schedhost_args_name(text(kArgs), "", 9, name, sizeof name), SCHEDHOST_ARGS_OK);
  EXPECT_STREQ(name, "nested");
  ASSERT_EQ(schedhost_args_name(text(kArgs), "/nested", 0, name, sizeof name), SCHEDHOST_ARGS_OK);
  EXPECT_STREQ(name, "a/b");
  EXPECT_EQ(schedhost_args_name(text(kArgs), "", 12, name, sizeof name), SCHEDHOST_ARGS_ABSENT);
  EXPECT_EQ(schedhost_args_name(text(kArgs), "/zones", 0, name, sizeof name),
            SCHEDHOST_ARGS_WRONG_TYPE);

  schedhost_str_t value{};
  ASSERT_EQ(schedhost_args_find(text(kArgs), "/nested/a~1b", &value), SCHEDHOST_ARGS_OK);
  EXPECT_EQ(std::string(value.data, value.len), R"({"~x": [10, [20, 21]]})");
}

TEST(JsonArgs, RefusesMalformedTextWhateverIsAsked) {
  const char* const bad[] = {
      "",    "{",       R"({"a":})",   R"({"a" 1})", "[1,]",      R"({"a":1,})", "01",       "1.",
      "tru", R"("\x")", R"("\ud800")", "{} {}",      "\"a\x01\"", "[1 2]",       R"({1:2})", "-"};
  for (const char* json : bad) {
    size_t n = 0;
    EXPECT_EQ(schedhost_args_length(text(json), "", &n), SCHEDHOST_ARGS_MALFORMED) << json;
    EXPECT_EQ(string_at(json, "/a"), "#4") << json;
  }
  EXPECT_EQ(schedhost_args_length(schedhost_str_t{nullptr, 0}, "", nullptr),
            SCHEDHOST_ARGS_MALFORMED);
  // 64 levels are read, 65 are refused.
  const std::string deep64 = std::string(64, '[') + std::string(64, ']');
  const std::string deep65 = std::string(65, '[') + std::string(65, ']');
  size_t n = 0;
  EXPECT_EQ(schedhost_args_length(text(deep64), "", &n), SCHEDHOST_ARGS_OK);
  EXPECT_EQ(schedhost_args_length(text(deep65), "", &n), SCHEDHOST_ARGS_MALFORMED);
}

}  // namespace schedhost::json_args_test
