// Invalid UTF-8 and control characters: refused at their position, as kubectl and the API server
// refuse them, instead of yaml-cpp's silent U+FFFD.
#include <gtest/gtest.h>

#include "hostile_support.hpp"

namespace schedhost::hostile {
namespace {

TEST(EncodingTest, InvalidUtf8InClusterYaml) {
  EXPECT_EQ(cluster_error("kind: Pod\nmetadata: {name: \"caf\xE9\"}\n"),
            "cluster.yaml:2:22: invalid UTF-8 (byte 0xE9): save the file as UTF-8");
}

TEST(EncodingTest, InvalidUtf8InClusterJson) {
  EXPECT_EQ(cluster_error("{\"kind\": \"Pod\",\n \"metadata\": {\"name\": \"\xFF\"}}", "c.json"),
            "c.json:2:24: invalid UTF-8 (byte 0xFF): save the file as UTF-8");
}

TEST(EncodingTest, OverlongSurrogateAndTruncatedSequences) {
  for (const char* bad : {"\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xE2\x82", "\x80"}) {
    EXPECT_EQ(cluster_error(std::string("kind: Pod\nx: ") + bad + "\n"),
              "cluster.yaml:2:4: invalid UTF-8 (byte 0x" +
                  std::string(1, "0123456789ABCDEF"[static_cast<unsigned char>(bad[0]) >> 4]) +
                  std::string(1, "0123456789ABCDEF"[static_cast<unsigned char>(bad[0]) & 15]) +
                  "): save the file as UTF-8")
        << bad;
  }
}

TEST(EncodingTest, ColumnsCountCharacters) {
  // "é" is two bytes and one column, as yaml-cpp counts.
  EXPECT_EQ(cluster_error("kind: Pod\nx: \xC3\xA9\xFF\n"),
            "cluster.yaml:2:5: invalid UTF-8 (byte 0xFF): save the file as UTF-8");
}

TEST(EncodingTest, ControlCharacters) {
  EXPECT_EQ(cluster_error(std::string("kind: Pod\nmetadata: {name: a\0b}\n", 32)),
            "cluster.yaml:2:19: control character U+0000 is not allowed in YAML or JSON: remove "
            "it, or write it as an escape inside a double-quoted string");
  EXPECT_EQ(profile_error(kProfileHeader + "parallelism: 1\x1B\n"),
            "profile.yaml:3:15: control character U+001B is not allowed in YAML or JSON: remove "
            "it, or write it as an escape inside a double-quoted string");
}

TEST(EncodingTest, InvalidUtf8InProfile) {
  EXPECT_EQ(profile_error(kProfileHeader + "profiles:\n- schedulerName: \"\xFF\"\n"),
            "profile.yaml:4:19: invalid UTF-8 (byte 0xFF): save the file as UTF-8");
}

TEST(EncodingTest, ValidUtf8ByteOrderMarkTabsAndCrlfAreFine) {
  EXPECT_EQ(cluster_error("\xEF\xBB\xBFkind: Node\r\nmetadata:\r\n  name: n\xC3\xA9\r\n"
                          "  labels: {a: \"\xF0\x9F\x98\x80\",\tb: c}\r\n"),
            kAccepted);
  EXPECT_EQ(profile_error("\xEF\xBB\xBF" + kProfileHeader), kAccepted);
}

}  // namespace
}  // namespace schedhost::hostile
