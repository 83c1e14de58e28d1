// The --plugin-digests file format: what sha256sum prints, comments and blank lines; every other
// line refused with file:line and what to do.
#include <gtest/gtest.h>

#include <string>

#include "common/input_error.hpp"
#include "loader/digest_pins.hpp"

namespace schedhost::loader {
namespace {

constexpr const char* kA = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
constexpr const char* kB = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

// The InputError parsing text throws, or "<no error>".
std::string parse_error(const std::string& text) {
  try {
    parse_digest_pins(text, "pins.txt");
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(DigestPins, ReadsSha256sumOutputWithCommentsAndBlankLines) {
  const DigestPins pins =
      parse_digest_pins(std::string("# plugins of the gpu team\n\n") + kA +
                            "  gpu.so\n   \n  # indented comment\n" + kB + " *binary mode.so\r\n",
                        "pins.txt");
  ASSERT_EQ(pins.by_name.size(), 2u);
  ASSERT_NE(pins.find("gpu.so"), nullptr);
  EXPECT_EQ(pins.find("gpu.so")->sha256, kA);
  EXPECT_EQ(pins.where(*pins.find("gpu.so")), "pins.txt:3");
  ASSERT_NE(pins.find("binary mode.so"), nullptr);  // '*' is sha256sum's binary-mode marker
  EXPECT_EQ(pins.find("binary mode.so")->sha256, kB);
  EXPECT_EQ(pins.find("gpu"), nullptr);
}

TEST(DigestPins, UpperCaseDigestsAreCompared) {
  std::string upper = kA;
  for (char& c : upper)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const DigestPins pins = parse_digest_pins(upper + "  gpu.so", "pins.txt");
  EXPECT_EQ(pins.find("gpu.so")->sha256, kA);
}

TEST(DigestPins, AnEmptyFilePinsNothing) {
  EXPECT_TRUE(parse_digest_pins("", "pins.txt").by_name.empty());
  EXPECT_TRUE(parse_digest_pins("# nothing yet\n", "pins.txt").by_name.empty());
}

TEST(DigestPins, MalformedLinesAreRefusedWithTheirLine) {
  const std::string malformed =
      ": not a \"sha256  filename\" line: expected 64 hex digits, two spaces and a file name, as "
      "sha256sum prints them";
  EXPECT_EQ(parse_error(std::string("# ok\n") + kA + "  a.so\nnot a digest  b.so\n"),
            "pins.txt:3" + malformed);
  EXPECT_EQ(parse_error(std::string(kA).substr(0, 63) + "  short.so"), "pins.txt:1" + malformed);
  EXPECT_EQ(parse_error(std::string(kA) + "0  long.so"), "pins.txt:1" + malformed);
  EXPECT_EQ(parse_error(std::string(kA) + " one-space.so"), "pins.txt:1" + malformed);
  EXPECT_EQ(parse_error(std::string(kA) + "  "), "pins.txt:1" + malformed);
  EXPECT_EQ(parse_error(std::string(kA)), "pins.txt:1" + malformed);
  EXPECT_EQ(parse_error("SHA256 (gpu.so) = " + std::string(kA)), "pins.txt:1" + malformed);
  std::string not_hex = kA;
  not_hex[10] = 'g';
  EXPECT_EQ(parse_error(not_hex + "  a.so"), "pins.txt:1" + malformed);
}

TEST(DigestPins, PathsAreRefusedForBareFileNames) {
  EXPECT_EQ(parse_error(std::string(kA) + "  /plugins/gpu.so\n"),
            "pins.txt:1: \"/plugins/gpu.so\" is not a bare file name: list plugin files by name, "
            "as `sha256sum *.so` prints them when run in the plugin directory");
  // sha256sum escapes names holding a backslash or a newline with a leading backslash.
  EXPECT_EQ(parse_error(std::string("\\") + kA + "  a\\\\b.so\n"),
            "pins.txt:1: not a \"sha256  filename\" line: expected 64 hex digits, two spaces and a "
            "file name, as sha256sum prints them");
}

TEST(DigestPins, AFileListedTwiceIsRefused) {
  EXPECT_EQ(parse_error(std::string(kA) + "  gpu.so\n\n" + kB + "  gpu.so\n"),
            "pins.txt:3: \"gpu.so\" is listed twice (first at line 1): keep one line per file");
}

}  // namespace
}  // namespace schedhost::loader
